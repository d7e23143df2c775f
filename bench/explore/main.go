// Command explore-bench measures how fast a case explores against a
// program (harness.Command) and against the same agent in-process
// (harness.Handler), in one run, and prints plans per second and their
// ratio; and, for comparison, the same number of runs each with a program
// of its own, as exploration paid before one program served every plan.
//
// The agent is examples/bugs' correct agent on the Chat Completions wire,
// the case two parallel calls to a client tool, text before them and an
// answer after. The program is this command itself, run with
// AGUITEST_BENCH_AGENT=1.
//
// Usage (from the repository root):
//
//	go run ./bench/explore [-plans 60] [-parallel 0]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/aguitest/aguitest/examples/bugs"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

func main() {
	if os.Getenv("AGUITEST_BENCH_AGENT") == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if err := bugs.Main(ctx, bugs.None); err != nil {
			log.Fatal(err)
		}
		return
	}
	plans := flag.Int("plans", 60, "plans to explore besides the case's own")
	parallel := flag.Int("parallel", 0, "plans at once (0: GOMAXPROCS)")
	flag.Parse()
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	command := &harness.CommandAgent{Name: self, Env: []string{"AGUITEST_BENCH_AGENT=1"}, Path: "/"}
	handler := harness.Handler(func(env harness.Env) http.Handler {
		return bugs.Agent{Model: bugs.NewChatModel(env.BaseURL, env.APIKey), Tools: bugs.Weather()}
	})
	ctx := context.Background()

	explore := func(agent harness.Agent) (runs int, took time.Duration) {
		c := showBoth()
		c.Explore = &harness.Explore{Plans: *plans, Parallel: *parallel}
		start := time.Now()
		r := harness.Options{}.Test(ctx, agent, c)
		took = time.Since(start)
		if r.Failed() || r.Exploration == nil {
			log.Fatalf("the case fails: %v", r.Err())
		}
		return 1 + r.Exploration.Plans + r.Exploration.References, took
	}
	hRuns, hTook := explore(handler)
	cRuns, cTook := explore(command)

	// The same number of runs, a program started for each.
	start := time.Now()
	for range cRuns {
		c := showBoth()
		c.Explore = &harness.Explore{Off: true}
		if r := (harness.Options{}).Test(ctx, command, c); r.Failed() {
			log.Fatalf("the case fails: %v", r.Err())
		}
	}
	eachTook := time.Since(start)

	rate := func(n int, d time.Duration) float64 { return float64(n) / d.Seconds() }
	fmt.Printf("Handler (in-process):             %4d plans in %6.2fs: %7.1f plans/s\n", hRuns, hTook.Seconds(), rate(hRuns, hTook))
	fmt.Printf("Command (one program, every plan): %4d plans in %6.2fs: %7.1f plans/s\n", cRuns, cTook.Seconds(), rate(cRuns, cTook))
	fmt.Printf("Command, a program per plan:       %4d plans in %6.2fs: %7.1f plans/s\n", cRuns, eachTook.Seconds(), rate(cRuns, eachTook))
	fmt.Printf("ratio Command/Handler: %.2f; one program against a program per plan: %.1fx faster\n",
		rate(cRuns, cTook)/rate(hRuns, hTook), rate(cRuns, cTook)/rate(cRuns, eachTook))
}

// showBoth is the case explored.
func showBoth() harness.Case {
	return harness.Case{
		Name:  "show-both",
		Input: harness.User("Show Paris and Rome on my map."),
		Tools: []harness.Tool{{
			Name: "show_on_map",
			Run:  func(context.Context, json.RawMessage) (string, error) { return "shown", nil },
		}},
		Script: scripted.Script{Turns: []scripted.Turn{
			{Text: "Showing both.", Calls: []scripted.Call{
				{Name: "show_on_map", Args: `{"city":"Paris"}`},
				{Name: "show_on_map", Args: `{"city":"Rome"}`},
			}},
			{Text: "Both are on your map."},
		}},
		NoGolden: true,
	}
}
