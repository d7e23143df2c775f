package golden

import (
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// parallel is a run with history in its input, two calls streamed
// interleaved in the given order, their results and a snapshot.
func parallel(t *testing.T, first, second string) []agui.Event {
	t.Helper()
	in := agui.RunAgentInput{
		ThreadID: "th_8c1", RunID: "run_2f0",
		Messages: []agui.Message{
			agui.UserMessage("u_1", "Weather in Paris?"),
			agui.AssistantMessage("a_1", "", agui.NewToolCall("call_old", "weather", `{"city":"Paris"}`)),
			agui.ToolMessage("t_1", "call_old", "18C"),
			agui.UserMessage("u_2", "And in Rome and Oslo?"),
		},
	}
	started := agui.NewEvent(agui.RunStarted, "threadId", "th_8c1", "runId", "run_2f0", "input", in, "timestamp", 1764445504000)
	args := map[string][]string{"Rome": {`{"ci`, `ty":"Rome"}`}, "Oslo": {`{"city":`, `"Oslo"}`}}
	weather := map[string]string{"Rome": "sunny", "Oslo": "rain"}
	ids := map[string]string{first: "call_" + first, second: "call_" + second}
	events := []agui.Event{started,
		agui.NewTextMessageStart("a_2"),
		agui.NewTextMessageContent("a_2", "Checking both."),
		agui.NewTextMessageEnd("a_2"),
		agui.NewToolCallStart(ids[first], "weather", "a_2"),
		agui.NewToolCallStart(ids[second], "weather", "a_2"),
	}
	for i := range 2 {
		for _, city := range []string{first, second} {
			events = append(events, agui.NewToolCallArgs(ids[city], args[city][i]))
		}
	}
	events = append(events,
		agui.NewToolCallEnd(ids[first]), agui.NewToolCallEnd(ids[second]),
		agui.NewToolCallResult("t_"+first, ids[first], weather[first]),
		agui.NewToolCallResult("t_"+second, ids[second], weather[second]),
		agui.NewStateSnapshot(map[string]any{"asked": 3, "updatedAt": "2026-11-29T19:45:04Z"}),
		agui.NewRunFinished("th_8c1", "run_2f0"),
	)
	return events
}

// TestGoldenFiles keeps testdata/*.golden: run with -update to rewrite
// them. The merged golden is the same file whichever call streamed first.
func TestGoldenFiles(t *testing.T) {
	n := Normalizer{Scrubs: []Scrub{{Pointer: "/snapshot/updatedAt", Replace: "<time>"}}}
	tests := []struct {
		name   string
		view   View
		first  string
		update bool
	}{
		{"parallel-wire", Wire, "Rome", Update()},
		{"parallel-merged", Merged, "Rome", Update()},
		{"parallel-merged", Merged, "Oslo", false},
	}
	for _, tt := range tests {
		t.Run(tt.name+"-"+tt.first, func(t *testing.T) {
			second := map[string]string{"Rome": "Oslo", "Oslo": "Rome"}[tt.first]
			text := Marshal(n.Normalize(parallel(t, tt.first, second), tt.view))
			if err := Check("testdata", tt.name, text, tt.update); err != nil {
				t.Error(err)
			}
		})
	}
}
