package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// A table-driven agent test. In a _test.go file it reads
//
//	func TestAgent(t *testing.T) {
//		harness.Run(t, agent, cases)
//	}
//
// and "go test" reports each problem at that line, in the subtest of its
// case. Here the same table runs through Options.TestAll, the core under
// Run, and its reports are printed as Run reports them. The agent is
// examples/parallel's MixedUp, which puts every argument fragment under
// the call that started last: a lone call survives it, interleaved
// parallel calls do not.
func ExampleRun() {
	agent := harness.Func(chatAgent(true))
	cases := []harness.Case{
		{
			// A frontend-tool round trip: the agent calls get_user_location,
			// the harness runs it as a client would and posts the next run,
			// the agent answers.
			Name:  "location",
			Input: harness.User("Where am I?"),
			Tools: []harness.Tool{{
				Name: "get_user_location",
				Run:  func(context.Context, json.RawMessage) (string, error) { return `{"city":"Seoul"}`, nil },
			}},
			Script: scripted.Script{Turns: []scripted.Turn{
				{Calls: []scripted.Call{{Name: "get_user_location"}}},
				{Expect: scripted.Expect{LastUser: "Where am I?"}, Text: "You are in Seoul."},
			}},
			NoGolden: true,
		},
		{
			Name:  "parallel calls, round-robin",
			Input: harness.User("Add two tasks."),
			Script: scripted.Script{Turns: []scripted.Turn{{
				Calls: []scripted.Call{{Name: "add_task", Args: `{"title":"a"}`}, {Name: "add_task", Args: `{"title":"b"}`}},
				Plan:  scripted.Plan{Split: scripted.Split{Size: 5}, Order: scripted.Order{By: scripted.RoundRobin}},
			}}},
			NoGolden: true,
		},
	}
	for _, r := range (harness.Options{}).TestAll(context.Background(), agent, cases) {
		if !r.Failed() {
			fmt.Printf("--- PASS: %s (%q)\n", r.Case, r.Result.LastText())
			continue
		}
		fmt.Printf("--- FAIL: %s\n", r.Case)
		for _, p := range r.Problems {
			fmt.Println("    " + p.Text)
		}
	}
	// Output:
	// --- PASS: location ("You are in Seoul.")
	// --- FAIL: parallel calls, round-robin
	//     run 1: event 11 (TOOL_CALL_END) [toolCallId=59e7addc-6cda-4ac4-a0ef-dfa5b6153a37-call-2]: args-not-json: the arguments of tool call '59e7addc-6cda-4ac4-a0ef-dfa5b6153a37-call-2' are not JSON at TOOL_CALL_END (invalid JSON at byte 7: ':' expected after object key): "{\"tit{\"title\":\"le\":\"a\"}b\"}"
	//     fidelity: in turn 1 the model called add_task with {"title":"a"} (call 1) and add_task with {"title":"b"} (call 2); the client got add_task with no arguments (id 59e7addc-6cda-4ac4-a0ef-dfa5b6153a37-call-1) and add_task with {"tit{"title":"le":"a"}b"} (id 59e7addc-6cda-4ac4-a0ef-dfa5b6153a37-call-2) instead
	//     explore: the case's own plan fails (above), and 14 of the 33 other plans fail as it does; no other failure
}

// Test returns a case's result and problems as values, for a driver of
// one's own: a command, a report, a search over plans. Here the script
// holds a second turn the agent never asks for.
func ExampleOptions_Test() {
	r := harness.Options{}.Test(context.Background(), harness.Func(chatAgent(false)), harness.Case{
		Name:     "hello",
		Input:    harness.User("hi"),
		Script:   scripted.Script{Turns: []scripted.Turn{{Text: "Hello!"}, {Text: "Bye."}}},
		NoGolden: true,
	})
	fmt.Println(r.Result.LastText())
	for _, p := range r.Problems {
		fmt.Printf("%s: %s\n", p.Kind, p.Text)
	}
	// Output:
	// Hello!
	// model: scripted LLM: turn 2 was never used: 1 request for 2 turns
	// explore: explore: the case's own plan fails (above), and 30 of the 30 other plans fail as it does; no other failure
}

// Explore runs a case under many plans of its script besides its own,
// and shrinks the first under which it fails to the smallest failing
// script, printed to paste into the case or a script file. This agent
// puts every argument fragment under the id of the call that started
// last (ag-ui #1016): the case's own plan, each call whole one after the
// other, passes; streamed otherwise, the calls' arguments merge.
func ExampleExplore() {
	c := harness.Case{
		Name:  "two tasks",
		Input: harness.User("Add two tasks."),
		Script: scripted.Script{Turns: []scripted.Turn{{
			Calls: []scripted.Call{{Name: "add_task", Args: `{"title":"a"}`}, {Name: "add_task", Args: `{"title":"b"}`}},
		}}},
		NoGolden: true,
		Explore:  &harness.Explore{Plans: 50},
	}
	agent := harness.Func(chatAgent(true))
	r := harness.Options{}.Test(context.Background(), agent, c)
	for _, p := range r.Problems {
		fmt.Println(p.Text)
	}
	fmt.Println("shrunk from", r.Exploration.Failure.Found)

	// The shrunk script, pasted into the case, fails on its own.
	c.Script, c.Explore = r.Exploration.Failure.Script, nil
	fmt.Println("as the case's own plan, it fails:", harness.Options{}.Test(context.Background(), agent, c).Problems != nil)
	// Output:
	// explore: 27 of the 53 other plans (23 from the matrix, 27 random from seed 1, 3 references for other layouts; wire: Go-native) fail the verifier's rule args-not-json and the fidelity check calls:
	// 	matrix plan 3 (4-byte fragments, each call's arguments starting in its first chunk; calls interleaved)
	// 	matrix plan 5 (1-byte fragments; calls interleaved)
	// 	matrix plan 14 (4-byte fragments; calls interleaved)
	// 	matrix plan 20 (4-byte fragments; calls shuffled (seed 1))
	// 	matrix plan 25 (2-byte fragments; calls shuffled (seed 2))
	// 	... and 22 more
	// the first, matrix plan 3 (4-byte fragments, each call's arguments starting in its first chunk; calls interleaved), shrunk in 13 runs:
	// 	turn 1: without with_name
	// 	turn 1: split whole
	// fails so, under split=whole order=round-robin ids=first:
	// 	run 1: event 7 (TOOL_CALL_END) [toolCallId=793cade0-e9d8-4d8b-8cc0-fcb7a30734d1-call-2]: args-not-json: the arguments of tool call '793cade0-e9d8-4d8b-8cc0-fcb7a30734d1-call-2' are not JSON at TOOL_CALL_END (invalid JSON at byte 13: unexpected data after the value): "{\"title\":\"a\"}{\"title\":\"b\"}"
	// 	fidelity: in turn 1 the model called add_task with {"title":"a"} (call 1) and add_task with {"title":"b"} (call 2); the client got add_task with no arguments (id 793cade0-e9d8-4d8b-8cc0-fcb7a30734d1-call-1) and add_task with {"title":"a"}{"title":"b"} (id 793cade0-e9d8-4d8b-8cc0-fcb7a30734d1-call-2) instead
	// the smallest failing script, to paste into the case:
	// 	scripted.Script{
	// 		Turns: []scripted.Turn{
	// 			{
	// 				Calls: []scripted.Call{
	// 					{Name: "add_task", Args: `{"title":"a"}`},
	// 					{Name: "add_task", Args: `{"title":"b"}`},
	// 				},
	// 				Plan: scripted.Plan{
	// 					Split: scripted.Split{By: scripted.Whole},
	// 					Order: scripted.Order{By: scripted.RoundRobin},
	// 				},
	// 			},
	// 		},
	// 	}
	// or into a script file:
	// 	turns:
	// 	  - calls:
	// 	      - name: add_task
	// 	        args: '{"title":"a"}'
	// 	      - name: add_task
	// 	        args: '{"title":"b"}'
	// 	    plan:
	// 	      split:
	// 	        by: whole
	// 	      order:
	// 	        by: round-robin
	// the same plans again: seed 1, 50 plans (go test -args -aguitest.seed=1 -aguitest.explore=50; aguitest explore --seed 1 --plans 50)
	// shrunk from matrix plan 3 (4-byte fragments, each call's arguments starting in its first chunk; calls interleaved)
	// as the case's own plan, it fails: true
}

// Pool keeps a slow program from case to case when cases run one by one
// through Test: it starts once for the three cases below, and stop ends
// it. (Run and TestAll do this by themselves.) The program here is this
// test binary serving "pong" on $PORT.
func ExamplePool() {
	program := &harness.CommandAgent{Name: os.Args[0], Args: []string{"-test.run", "^TestChildAgent$"}, Env: []string{"AGUITEST_HARNESS_AGENT=1"}}
	agent, stop := harness.Pool(program, 1)
	defer stop()
	for _, name := range []string{"first", "second", "third"} {
		r := harness.Options{}.Test(context.Background(), agent, harness.Case{Name: name, Input: harness.User("ping"), NoGolden: true})
		fmt.Println(name, r.Result.LastText(), r.Err())
	}
	// Output:
	// first pong <nil>
	// second pong <nil>
	// third pong <nil>
}
