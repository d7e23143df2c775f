package harness_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
	"github.com/aguitest/aguitest/scripted"
)

var locationTool = harness.Tool{
	Name:        "get_user_location",
	Description: "Where the user is.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
	Run: func(_ context.Context, args json.RawMessage) (string, error) {
		return `{"city":"Seoul"}`, nil
	},
}

var sensorsTool = harness.Tool{
	Name:        "read_climate_sensors",
	Description: "Temperature and humidity of a room.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"room":{"type":"string"}}}`),
	Run: func(_ context.Context, args json.RawMessage) (string, error) {
		return `{"tempC":21,"humidity":0.4}`, nil
	},
}

// The frontend-tool round trip: the agent calls a client tool, the harness
// runs it and posts the next run with the result, the agent answers.
func TestFrontendToolRoundTrip(t *testing.T) {
	script := scripted.Script{Turns: []scripted.Turn{
		{Expect: scripted.Expect{Tools: []string{"get_user_location"}}, Calls: []scripted.Call{{ID: "loc-1", Name: "get_user_location"}}},
		{Expect: scripted.Expect{ToolResults: []string{"loc-1"}}, Text: "You are in Seoul."},
	}}
	var got *harness.Result
	recDir := t.TempDir()
	harness.Run(t, harness.Func(chatAgent(false)), []harness.Case{{
		Name:     "location",
		Input:    harness.User("Where am I?"),
		Script:   script,
		Tools:    []harness.Tool{locationTool},
		NoGolden: true,
		Check:    func(t harness.T, r *harness.Result) { got = r },
	}}, harness.Options{Dir: t.TempDir(), RecordDir: recDir})
	require.NotNil(t, got)
	require.Len(t, got.Runs, 2)
	assert.Equal(t, "run-1", got.Runs[0].Input.RunID)
	assert.Equal(t, "run-2", got.Runs[1].Input.RunID)
	assert.Equal(t, got.Runs[0].Input.ThreadID, got.Runs[1].Input.ThreadID, "a new run keeps the thread")

	var roles []string
	for _, m := range got.Runs[1].Input.Messages {
		roles = append(roles, string(m.Role))
	}
	assert.Equal(t, []string{"user", "assistant", "tool"}, roles, "the second run carries the call and its result")
	assert.Equal(t, "You are in Seoul.", got.LastText())
	require.Len(t, got.Requests, 2)
	assert.Equal(t, "loc-1", got.Requests[1].Messages[2].ToolCallID)

	// The recording holds both runs, each with its request and all its
	// events, and they verify.
	rd, err := recorder.Open(filepath.Join(recDir, t.Name(), "location.jsonl"))
	require.NoError(t, err)
	defer rd.Close()
	var runs []string
	for run, err := range replay.Runs(rd) {
		require.NoError(t, err)
		runs = append(runs, run.ID)
		require.NotNil(t, run.Request)
		require.NotNil(t, run.End)
		var events []agui.Event
		for _, e := range run.Events {
			events = append(events, e.Event)
		}
		assert.Len(t, events, len(got.Runs[len(runs)-1].Events))
		assert.Empty(t, agui.Verify(events, agui.Options{}))
	}
	assert.Equal(t, []string{"run-1", "run-2"}, runs)
}

// Parallel calls streamed under every interleave plan give the same merged
// golden; the golden is written with -update semantics into a temp dir.
func TestMergedGoldenStableAcrossPlans(t *testing.T) {
	turn := func(order scripted.OrderKind) scripted.Script {
		return scripted.Script{Turns: []scripted.Turn{{
			Text: "Moving three tasks.",
			Calls: []scripted.Call{
				{Name: "add_task", Args: `{"title":"ship it","column":"todo"}`},
				{Name: "move_task", Args: `{"id":7,"to":"done"}`},
				{Name: "rename_task", Args: `{"id":3,"title":"caf\u00e9 \"ready\""}`},
			},
			Plan: scripted.Plan{Split: scripted.Split{Size: 3, Escapes: true}, Order: scripted.Order{By: order}, Seed: 9},
		}}}
	}
	dir := t.TempDir()
	var cases []harness.Case
	for _, o := range []scripted.OrderKind{scripted.Sequential, scripted.RoundRobin, scripted.Reverse, scripted.Shuffle} {
		cases = append(cases, harness.Case{Name: string(o), Input: harness.User("move them"), Script: turn(o)})
	}
	// Write the goldens as -update does, then check them.
	setUpdate(t, true)
	harness.Run(t, harness.Func(chatAgent(false)), cases, harness.Options{Dir: dir})
	setUpdate(t, false)
	t.Run("check", func(t *testing.T) {
		harness.Run(t, harness.Func(chatAgent(false)), cases, harness.Options{Dir: dir})
	})

	files, err := filepath.Glob(filepath.Join(dir, t.Name(), "*.golden"))
	require.NoError(t, err)
	require.Len(t, files, 4)
	first, err := os.ReadFile(files[0])
	require.NoError(t, err)
	for _, f := range files[1:] {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		if diff := cmp.Diff(string(first), string(b)); diff != "" {
			t.Errorf("%s differs from %s (-%s +%s):\n%s", f, files[0], filepath.Base(files[0]), filepath.Base(f), diff)
		}
	}
	assert.Contains(t, string(first), `"args":{"column":"todo","title":"ship it"}`)
}

// setUpdate sets the -update flag, as "go test -update" does.
func setUpdate(t *testing.T, on bool) {
	t.Helper()
	old := flag.Lookup("update").Value.String()
	require.NoError(t, flag.Set("update", fmt.Sprint(on)))
	t.Cleanup(func() { _ = flag.Set("update", old) })
}

// An http.Handler agent built per case gets the scripted server's URL.
func TestHandlerAgent(t *testing.T) {
	var baseURLs []string
	agent := harness.Handler(func(env harness.Env) http.Handler {
		baseURLs = append(baseURLs, env.BaseURL)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var in agui.RunAgentInput
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			enc := agui.NewSSEEncoder(w)
			err := chatAgent(false)(r.Context(), env, in, func(e agui.Event) error { return enc.Encode(e) })
			if err != nil {
				t.Errorf("agent: %v", err)
			}
		})
	})
	harness.Run(t, agent, []harness.Case{
		{Name: "hello", Input: harness.User("hi"), Script: scripted.Script{Turns: []scripted.Turn{{Text: "Hello!"}}}, NoGolden: true,
			Check: func(t harness.T, r *harness.Result) { assert.Equal(t, "Hello!", r.LastText()) }},
		{Name: "follow-up", Input: harness.Input{Messages: harness.User("hi").Messages, FollowUps: []string{"and again"}},
			Script:   scripted.Script{Turns: []scripted.Turn{{Text: "Hello!"}, {Expect: scripted.Expect{LastUser: "again"}, Text: "Hello again!"}}},
			NoGolden: true,
			Check: func(t harness.T, r *harness.Result) {
				assert.Len(t, r.Runs, 2)
				assert.Equal(t, "Hello again!", r.LastText())
			}},
	}, harness.Options{Dir: t.TempDir(), Explore: &harness.Explore{Off: true}})
	require.Len(t, baseURLs, 2)
	assert.NotEqual(t, baseURLs[0], baseURLs[1], "each case has its own scripted server")
	assert.True(t, strings.HasSuffix(baseURLs[0], "/v1"), baseURLs[0])
}

// State events are applied as a client applies them.
func TestStateIsApplied(t *testing.T) {
	agent := harness.Func(func(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		for _, e := range []agui.Event{
			agui.NewRunStarted(in.ThreadID, in.RunID),
			agui.NewStateSnapshot(map[string]any{"tasks": []string{"a"}}),
			agui.NewStateDelta([]map[string]any{{"op": "add", "path": "/tasks/-", "value": "b"}}),
			agui.NewRunFinished(in.ThreadID, in.RunID),
		} {
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	})
	harness.Run(t, agent, []harness.Case{{
		Name: "state", Input: harness.User("add b"), NoGolden: true,
		Check: func(t harness.T, r *harness.Result) { assert.JSONEq(t, `{"tasks":["a","b"]}`, string(r.State)) },
	}}, harness.Options{Dir: t.TempDir()})
}

// pong answers every run with the text "pong".
var pong = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	var in agui.RunAgentInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	enc := agui.NewSSEEncoder(w)
	for _, e := range []agui.Event{
		agui.NewRunStarted(in.ThreadID, in.RunID),
		agui.NewTextMessageStart("m1"),
		agui.NewTextMessageContent("m1", "pong"),
		agui.NewTextMessageEnd("m1"),
		agui.NewRunFinished(in.ThreadID, in.RunID),
	} {
		if err := enc.Encode(e); err != nil {
			return
		}
	}
})

// An agent already running at a URL is posted to as it is.
func TestURLAgent(t *testing.T) {
	srv := httptest.NewServer(pong)
	defer srv.Close()
	harness.Run(t, harness.URL(srv.URL), []harness.Case{{
		Name: "ping", Input: harness.User("ping"), NoGolden: true,
		Check: func(t harness.T, r *harness.Result) { assert.Equal(t, "pong", r.LastText()) },
	}}, harness.Options{Dir: t.TempDir()})
}

// A CommandAgent's zero StartTimeout and Path wait the default time for
// the program to listen on "/". The program is this test binary, serving
// in TestChildAgent.
func TestCommandAgentZeroValue(t *testing.T) {
	agent := &harness.CommandAgent{Name: os.Args[0], Args: []string{"-test.run", "^TestChildAgent$"}, Env: []string{"AGUITEST_HARNESS_AGENT=1"}}
	r := harness.Options{}.Test(t.Context(), agent, harness.Case{Name: "ping", Input: harness.User("ping"), NoGolden: true})
	require.NoError(t, r.Err())
	assert.Equal(t, "pong", r.Result.LastText())
}

// TestChildAgent serves pong on $PORT for TestCommandAgentZeroValue until
// the harness stops it.
func TestChildAgent(t *testing.T) {
	if os.Getenv("AGUITEST_HARNESS_AGENT") == "" {
		t.Skip("runs only as TestCommandAgentZeroValue's agent")
	}
	if f := os.Getenv("PIDFILE"); f != "" {
		if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal(http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), pong))
}

// failingAgent ends every run with RUN_ERROR before asking the model.
func failingAgent(message, code string) func(context.Context, harness.Env, agui.RunAgentInput, func(agui.Event) error) error {
	return func(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
			return err
		}
		return emit(agui.NewRunError(message, code))
	}
}

// A run ending with the RUN_ERROR a case expects passes; a provider error
// the agent turns into RUN_ERROR is such a case.
func TestWantError(t *testing.T) {
	ran := false
	harness.Run(t, harness.Func(chatAgent(false)), []harness.Case{{
		Name:  "provider-down",
		Input: harness.User("hi"),
		Script: scripted.Script{Turns: []scripted.Turn{{
			Fault: &scripted.Fault{Kind: scripted.FaultStatus, Status: 503, Message: "overloaded"},
		}}},
		NoGolden:  true,
		WantError: &harness.WantError{Message: `HTTP status 503\b.*overloaded`},
		Check: func(t harness.T, r *harness.Result) {
			ran = true
			require.Len(t, r.Runs, 1)
			assert.Empty(t, r.Runs[0].Violations)
		},
	}}, harness.Options{Dir: t.TempDir()})
	harness.Run(t, harness.Func(failingAgent("no", "")), []harness.Case{{
		Name:      "any-error",
		Input:     harness.User("hi"),
		NoGolden:  true,
		WantError: &harness.WantError{},
	}}, harness.Options{Dir: t.TempDir()})
	assert.True(t, ran, "the case's Check ran")
}
