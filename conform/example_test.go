package conform_test

import (
	"context"
	"fmt"

	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// Run takes a server through the battery. This agent drops the error of a
// client's tool that failed on its way to the model; two scenarios, and
// what the battery says of them.
func ExampleRun() {
	agent := harness.Func(refAgent{bug: dropsToolError}.Run)
	rep := conform.Run(context.Background(), agent, conform.Config{Only: []string{"frontend-tool", "tool-error"}})
	for _, r := range rep.Results {
		fmt.Println(r.Name+":", r.Status)
		for _, p := range r.Problems {
			fmt.Println("   ", p.Text)
		}
	}
	// Output:
	// frontend-tool: pass
	// tool-error: fail
	//     request 2 to the model: no tool result holds "sensor offline: no reading for 5 minutes"; its tool results are [""]
}
