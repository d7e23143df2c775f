package harness_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// frontendCase is a three-run conversation: the agent calls a frontend
// tool, then another with the first one's result, then answers.
func frontendCase(i int) harness.Case {
	return harness.Case{
		Name:  fmt.Sprintf("case-%d", i),
		Input: harness.User("Where am I, and how warm is it?"),
		Tools: []harness.Tool{locationTool, sensorsTool},
		Script: scripted.Script{Turns: []scripted.Turn{
			{Calls: []scripted.Call{{ID: "loc", Name: "get_user_location"}}},
			{Expect: scripted.Expect{ToolResults: []string{"loc"}}, Calls: []scripted.Call{{ID: "temp", Name: "read_climate_sensors", Args: `{"room":"office"}`}}},
			{Expect: scripted.Expect{ToolResults: []string{"temp"}}, Text: "You are in Seoul and it is 21°C in the office."},
		}},
		NoGolden: true,
	}
}

// BenchmarkConversations runs 1,000 cases of a three-run frontend-tool
// conversation through the harness, in-process, per iteration.
func BenchmarkConversations(b *testing.B) {
	const n = 1000
	cases := make([]harness.Case, n)
	for i := range cases {
		cases[i] = frontendCase(i)
	}
	agent := harness.Func(chatAgent(false))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cases {
			r := harness.Options{}.RunCase(b, agent, c)
			if r == nil || len(r.Runs) != 3 {
				b.Fatalf("%s: got %v", c.Name, r)
			}
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "cases/s")
	b.ReportMetric(float64(b.N*n), "cases")
}

// BenchmarkExplore explores one case (text and two parallel frontend
// calls, then an answer) under 200 plans besides its own, in-process,
// per iteration: plans/s counts every run, the plain plans that other
// layouts are compared with included.
func BenchmarkExplore(b *testing.B) {
	c := showBoth()
	c.Explore = &harness.Explore{Plans: 200}
	agent := harness.Func(chatAgent(false))
	runs := 0
	for b.Loop() {
		r := harness.Options{}.Test(b.Context(), agent, c)
		if r.Failed() || r.Exploration == nil {
			b.Fatalf("got %v", r.Err())
		}
		runs += 1 + r.Exploration.Plans + r.Exploration.References
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "plans/s")
}

// BenchmarkExploreShrink explores the same case against an agent that
// puts arguments under the call that started last (ag-ui #1016), and
// shrinks the first failing plan: shrink-ms is the time shrinking took,
// shrink-runs the runs it made.
func BenchmarkExploreShrink(b *testing.B) {
	c := showBoth()
	c.Explore = &harness.Explore{Plans: 200}
	agent := harness.Func(chatAgent(true))
	var shrink time.Duration
	runs := 0
	for b.Loop() {
		r := harness.Options{}.Test(b.Context(), agent, c)
		if r.Exploration == nil || r.Exploration.Failure == nil {
			b.Fatalf("the bug was not caught: %v", r.Err())
		}
		shrink += r.Exploration.Shrinking
		runs = r.Exploration.Failure.Runs
	}
	b.ReportMetric(float64(shrink.Milliseconds())/float64(b.N), "shrink-ms")
	b.ReportMetric(float64(runs), "shrink-runs")
}
