package conform_test

import (
	"context"
	"fmt"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// Run takes a server through the battery. This agent drops the error
// field of a client's tool that failed on its way to the model: the
// client CopilotKit is (tool-error: "Error: ..." as the content) is fine,
// an HttpAgent application that posts the field is not.
func ExampleRun() {
	agent := harness.Func(refAgent{bug: dropsToolError}.Run)
	rep := conform.Run(context.Background(), agent, conform.Config{Only: []string{"frontend-tool", "tool-error", "tool-error-field"}})
	for _, r := range rep.Results {
		fmt.Println(r.Name+":", r.Status)
		for _, p := range r.Problems {
			fmt.Println("   ", p.Text)
		}
	}
	// Output:
	// frontend-tool: pass
	// tool-error: pass
	// tool-error-field: fail
	//     request 2 to the model: no tool result holds the error "sensor offline: no reading for 5 minutes" the client posted in the tool message's error field (content ""); its tool results are [""]. @ag-ui/core's ToolMessage allows the field, and an application on HttpAgent may send it; CopilotKit sends "Error: <message>" as the content instead (tool-error)
}

// A case file's cases run through the harness's core, as "aguitest test"
// runs them: here against an agent that re-encodes the arguments of calls
// and loses the city, which the file's expectation catches.
func ExampleParseCases() {
	f, err := conform.ParseCases("cases.yaml", []byte(`cases:
  - name: forecast
    input: {user: "Weather in Paris?"}
    script:
      turns:
        - calls: [{name: get_forecast, args: '{"city":"Paris"}'}]
        - text: "Paris: 18°C."
    golden: none
    expect:
      text: {matches: "18°C"}
      calls: [{name: get_forecast, args: {city: Paris}}]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := harness.Func(refAgent{bug: renamesCallArgs}.Run)
	for i, rep := range (harness.Options{}).TestAll(context.Background(), agent, f.Cases) {
		for _, p := range rep.Problems {
			fmt.Printf("%s:%d: %s\n", f.Path, f.Lines[i], p.Text)
		}
	}
	// Output:
	// cases.yaml:2: want a call get_forecast with city "Paris"; the client holds get_forecast {} (id call_1_1)
}
