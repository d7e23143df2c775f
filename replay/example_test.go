package replay_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
)

func ExampleNewServer() {
	rec, err := replay.Load("../recorder/testdata/weather.jsonl")
	if err != nil {
		panic(err)
	}
	// Speed 0 sends the events at once; 1 keeps the recorded timing.
	srv := replay.NewServer(rec.Runs, replay.Options{Speed: 0})
	defer srv.Close()

	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"threadId":"thread-1","runId":"run-1"}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	r := agui.NewReader(resp.Body, "replay")
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		if d := e.Delta(); d != "" {
			fmt.Printf("%s %q\n", e.Type(), d)
			continue
		}
		fmt.Println(e.Type())
	}

	// A request too many is refused, and Check says so.
	again, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"threadId":"thread-1","runId":"run-2"}`))
	if err != nil {
		panic(err)
	}
	again.Body.Close()
	fmt.Println(again.Status)
	fmt.Println(srv.Check())
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT "Sunny, "
	// TEXT_MESSAGE_CONTENT "21 C."
	// TEXT_MESSAGE_END
	// TOOL_CALL_START
	// TOOL_CALL_ARGS "{\"city\":"
	// TOOL_CALL_ARGS "\"Paris\"}"
	// TOOL_CALL_END
	// RUN_FINISHED
	// 409 Conflict
	// 1 request was refused: no run was left to serve (1 run, Loop off)
}

func ExampleRuns() {
	r, err := recorder.Open("../recorder/testdata/weather.jsonl")
	if err != nil {
		panic(err)
	}
	defer r.Close()
	for run, err := range replay.Runs(r) {
		if err != nil {
			fmt.Println(err)
			continue
		}
		v := agui.Verify(run.AGUIEvents(), agui.Options{})
		fmt.Printf("%s: %s, %d events from line %d, %d provider exchange, %d violations\n",
			run.ID, run.Outcome(), len(run.Events), run.Events[0].Line, len(run.Exchanges), len(v))
	}
	// Output:
	// run-1: finished, 10 events from line 4, 1 provider exchange, 0 violations
}

func ExampleProvider() {
	rec, _ := replay.Load("../recorder/testdata/weather.jsonl")
	llm := replay.NewProvider(rec.Exchanges(), replay.ProviderOptions{})
	defer llm.Close()

	// The agent's request differs from the recorded one in its model.
	resp, _ := http.Post(llm.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"other","stream":true,"messages":[{"role":"user","content":"Weather in Paris?"}]}`))
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	fmt.Println(strings.SplitN(llm.Check().Error(), "\n", 2)[0])
	// Output:
	// 500
	// request 1 does not match exchange 1 (line 3): body differs (-want +got):
}
