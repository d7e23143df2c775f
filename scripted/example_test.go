package scripted_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aguitest/aguitest/scripted"
)

// A Go agent reads the model's stream chunk by chunk.
func ExampleModel_Stream() {
	m := scripted.NewModel(scripted.Script{Turns: []scripted.Turn{{
		Text:  "Checking.",
		Calls: []scripted.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}},
		Plan:  scripted.Plan{Split: scripted.Split{Size: 6}},
	}}})
	stream, err := m.Stream(context.Background(), scripted.Request{
		Messages: []scripted.Message{{Role: "user", Content: "Weather in Paris?"}},
	})
	if err != nil {
		panic(err)
	}
	for c, err := range stream {
		switch {
		case err != nil:
			fmt.Println("error:", err)
		case c.Call != nil:
			fmt.Printf("call %d id=%q name=%q args=%q\n", c.Call.Index, c.Call.ID, c.Call.Name, c.Call.Args)
		case c.Finish != "":
			fmt.Println("finish:", c.Finish)
		case c.Usage != nil:
			fmt.Println("usage:", c.Usage.TotalTokens)
		default:
			fmt.Printf("text %q\n", c.Text)
		}
	}
	fmt.Println("check:", m.Check())
	// Output:
	// text "Checki"
	// text "ng."
	// call 0 id="call_1_1" name="get_weather" args=""
	// call 0 id="" name="" args="{\"city"
	// call 0 id="" name="" args="\":\"Par"
	// call 0 id="" name="" args="is\"}"
	// finish: tool_calls
	// usage: 19
	// check: <nil>
}

// An agent in any language points its OpenAI client at the server.
func ExampleServer() {
	script, err := scripted.Parse("hello.yaml", []byte(`
turns:
  - expect: {last_user: hello}
    text: Hi there.
    plan: {split: {by: words}}
`))
	if err != nil {
		panic(err)
	}
	srv := scripted.NewServer(script)
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"hello"}]}`))
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, ev := range strings.Split(strings.TrimSpace(string(body)), "\n\n") {
		if i := strings.Index(ev, `"delta":`); i >= 0 {
			ev = ev[i:]
		}
		fmt.Println(ev)
	}
	fmt.Println("check:", srv.Check())
	// Output:
	// "delta":{"role":"assistant","content":"Hi"},"logprobs":null,"finish_reason":null}]}
	// "delta":{"content":" there"},"logprobs":null,"finish_reason":null}]}
	// "delta":{"content":"."},"logprobs":null,"finish_reason":null}]}
	// "delta":{},"logprobs":null,"finish_reason":"stop"}]}
	// data: [DONE]
	// check: <nil>
}

// A split is a pure function of its input, parameters and seed.
func ExampleSplit_Cut() {
	args := `{"q":"caf\u00e9 \"x\""}`
	fmt.Printf("%q\n", scripted.Split{Size: 8}.Cut(args, 0))
	fmt.Printf("%q\n", scripted.Split{By: scripted.Whole, Escapes: true}.Cut(args, 0))
	fmt.Printf("%q\n", scripted.Split{By: scripted.Random, Min: 2, Size: 6}.Cut(args, 42))
	fmt.Printf("%q\n", scripted.Split{By: scripted.Words}.Cut("Hello, wide world", 0))
	// Output:
	// ["{\"q\":\"ca" "f\\u00e9 " "\\\"x\\\"\"}"]
	// ["{\"q\":\"caf\\" "u00" "e9 \\" "\"x\\" "\"\"}"]
	// ["{\"q" "\":\"caf" "\\u" "00" "e9 \\\"" "x\\\"\"}"]
	// ["Hello" "," " wide" " world"]
}

// Parallel calls interleave as the order says; Plan.String names the plan
// and its seed for failure messages.
func ExamplePlan() {
	p := scripted.Plan{
		Split: scripted.Split{Size: 4},
		Order: scripted.Order{By: scripted.Scheduled, Schedule: "a b b a text"},
	}
	m := scripted.NewModel(scripted.Script{Turns: []scripted.Turn{{
		Text:  "Both.",
		Calls: []scripted.Call{{ID: "a", Name: "f", Args: `[1,2]`}, {ID: "b", Name: "g", Args: `[3]`}},
		Plan:  p,
	}}})
	stream, _ := m.Stream(context.Background(), scripted.Request{})
	var deltas []string
	for c := range stream {
		if c.Call != nil {
			deltas = append(deltas, fmt.Sprintf("%d:%s%q", c.Call.Index, c.Call.Name, c.Call.Args))
		} else if c.Text != "" {
			deltas = append(deltas, fmt.Sprintf("text%q", c.Text))
		}
	}
	fmt.Println(strings.Join(deltas, " "))
	fmt.Println(p)
	// Output:
	// 0:f"" 1:g"" 1:"[3]" 0:"[1,2" text"Both" text"." 0:"]"
	// split=bytes/4 order=schedule(a b b a text) ids=first seed=0
}
