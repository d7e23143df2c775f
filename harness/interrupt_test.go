package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/internal/oracle"
)

// approvalAgent asks the user before it deletes a file: its first run
// calls delete_file and finishes with an interrupt on that call, expiring
// at expires ("" for never); the run that resumes it deletes the file when
// the answer approves, and says so.
func approvalAgent(expires string) func(context.Context, harness.Env, agui.RunAgentInput, func(agui.Event) error) error {
	return func(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		interrupt := map[string]any{"id": "approve-1", "reason": "approval", "toolCallId": "del-1", "message": "Delete notes.txt?"}
		if expires != "" {
			interrupt["expiresAt"] = expires
		}
		events := []agui.Event{
			agui.NewRunStarted(in.ThreadID, in.RunID),
			agui.NewToolCallStart("del-1", "delete_file", "msg-1"),
			agui.NewToolCallArgs("del-1", `{"path":"notes.txt"}`),
			agui.NewToolCallEnd("del-1"),
			agui.NewEvent(agui.RunFinished, "threadId", in.ThreadID, "runId", in.RunID,
				"outcome", map[string]any{"type": "interrupt", "interrupts": []any{interrupt}}),
		}
		if len(in.Resume) > 0 {
			text := "Kept notes.txt."
			var answer struct{ Approved bool }
			if r := in.Resume[0]; r.InterruptID == "approve-1" && r.Status == "resolved" && json.Unmarshal(r.Payload, &answer) == nil && answer.Approved {
				text = "Deleted notes.txt."
			}
			events = []agui.Event{agui.NewRunStarted(in.ThreadID, in.RunID)}
			if text == "Deleted notes.txt." {
				events = append(events, agui.NewToolCallResult("res-1", "del-1", "deleted"))
			}
			events = append(events,
				agui.NewTextMessageStart("msg-2"),
				agui.NewTextMessageContent("msg-2", text),
				agui.NewTextMessageEnd("msg-2"),
				agui.NewRunFinished(in.ThreadID, in.RunID))
		}
		for _, e := range events {
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// A run that finishes with an interrupt is resumed from the case's
// answers: the next run carries a resume entry for the interrupt.
func TestInterruptAnswered(t *testing.T) {
	tests := []struct {
		name    string
		answers []harness.Answer
		expires string
		resume  string
		text    string
	}{
		{"approved", []harness.Answer{{Tool: "delete_file", Payload: json.RawMessage(`{"approved":true}`)}}, "",
			`[{"interruptId":"approve-1","status":"resolved","payload":{"approved":true}}]`, "Deleted notes.txt."},
		{"by reason", []harness.Answer{{Reason: "other", Payload: json.RawMessage(`1`)}, {Reason: "approval", Payload: json.RawMessage(`{"approved":false}`)}}, "",
			`[{"interruptId":"approve-1","status":"resolved","payload":{"approved":false}}]`, "Kept notes.txt."},
		{"cancelled", []harness.Answer{{Cancel: true}}, "",
			`[{"interruptId":"approve-1","status":"cancelled"}]`, "Kept notes.txt."},
		{"expired, cancelled", []harness.Answer{{Cancel: true}}, "2020-01-01T00:00:00Z",
			`[{"interruptId":"approve-1","status":"cancelled"}]`, "Kept notes.txt."},
		{"not yet expired", []harness.Answer{{Payload: json.RawMessage(`{"approved":true}`)}}, "2999-01-01T00:00:00Z",
			`[{"interruptId":"approve-1","status":"resolved","payload":{"approved":true}}]`, "Deleted notes.txt."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := harness.Options{}.Test(t.Context(), harness.Func(approvalAgent(tt.expires)), harness.Case{
				Name: "delete", Input: harness.User("Delete notes.txt."), NoGolden: true, Answers: tt.answers,
			})
			require.NoError(t, rep.Err())
			res := rep.Result
			require.Len(t, res.Runs, 2)
			require.Len(t, res.Runs[0].Interrupts, 1)
			assert.Equal(t, "approval", res.Runs[0].Interrupts[0].Reason)
			assert.Equal(t, "del-1", res.Runs[0].Interrupts[0].ToolCallID)
			resume, err := json.Marshal(res.Runs[1].Input.Resume)
			require.NoError(t, err)
			assert.JSONEq(t, tt.resume, string(resume))
			assert.Empty(t, res.Runs[1].Interrupts)
			assert.Equal(t, tt.text, res.LastText())
			assert.Equal(t, res.Runs[0].Input.ThreadID, res.Runs[1].Input.ThreadID, "the resumed run keeps the thread")
		})
	}
}

// An interrupt the case cannot answer ends the case: a client could not go
// on with the thread.
func TestInterruptUnanswered(t *testing.T) {
	tests := []struct {
		name    string
		answers []harness.Answer
		expires string
		want    string
	}{
		{"no answers", nil, "",
			`run 1 ended with outcome interrupt: no answer of the case (Case.Answers) matches interrupt "approve-1" (reason "approval", tool call "del-1" to delete_file); a client cannot go on with the thread before answering every interrupt`},
		{"other reason", []harness.Answer{{Reason: "payment"}}, "",
			`no answer of the case (Case.Answers) matches interrupt "approve-1"`},
		{"other tool", []harness.Answer{{Tool: "rename_file"}}, "",
			`no answer of the case (Case.Answers) matches interrupt "approve-1"`},
		{"expired", []harness.Answer{{Payload: json.RawMessage(`{"approved":true}`)}}, "2020-01-01T00:00:00Z",
			`run 1 ended with outcome interrupt: interrupt "approve-1" expired at 2020-01-01T00:00:00Z: a client can only cancel it (the case would resolve with {"approved":true})`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := harness.Options{}.Test(t.Context(), harness.Func(approvalAgent(tt.expires)), harness.Case{
				Name: "delete", Input: harness.User("Delete notes.txt."), NoGolden: true, Answers: tt.answers,
			})
			require.Len(t, rep.Problems, 1, "%v", rep.Err())
			p := rep.Problems[0]
			assert.Equal(t, harness.ProblemInterrupt, p.Kind)
			assert.Equal(t, 1, p.Run)
			assert.Contains(t, p.Text, tt.want)
			assert.Len(t, rep.Result.Runs, 1, "no run after an interrupt left unanswered")
		})
	}
}

// chattyAgent answers each run with a greeting; its first run sends
// RUN_STARTED and TEXT_MESSAGE_START and then waits for the client to
// go, telling gone when it notices.
func chattyAgent(gone chan<- struct{}) harness.Agent {
	return harness.Handler(func(harness.Env) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var in agui.RunAgentInput
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", agui.MediaTypeSSE)
			enc := agui.NewSSEEncoder(w)
			send := func(es ...agui.Event) {
				for _, e := range es {
					_ = enc.Encode(e)
				}
				http.NewResponseController(w).Flush()
			}
			if len(in.Messages) == 1 { // the first run
				send(agui.NewRunStarted(in.ThreadID, in.RunID), agui.NewTextMessageStart("m1"))
				<-r.Context().Done()
				gone <- struct{}{}
				return
			}
			last := in.Messages[len(in.Messages)-1]
			send(agui.NewRunStarted(in.ThreadID, in.RunID),
				agui.NewTextMessageStart("m2"),
				agui.NewTextMessageContent("m2", "Still here: "+last.Content.Text),
				agui.NewTextMessageEnd("m2"),
				agui.NewRunFinished(in.ThreadID, in.RunID))
		})
	})
}

// The client leaves a run part way through, after some events or after a
// wait: the agent sees the connection close, the run's end is not held
// against it, and the case goes on with its follow-ups.
func TestLeave(t *testing.T) {
	tests := []struct {
		name   string
		leave  harness.Leave
		events int
	}{
		{"after events", harness.Leave{After: 1}, 1},
		{"after two events", harness.Leave{Run: 1, After: 2}, 2},
		{"after a wait", harness.Leave{After: 10, Wait: 10 * time.Millisecond}, 2},
		{"at the first text message", harness.Leave{At: agui.TextMessageStart}, 2},
		{"at the first text, after a wait", harness.Leave{At: agui.TextMessageContent, Wait: 10 * time.Millisecond}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gone := make(chan struct{}, 1)
			rep := harness.Options{}.Test(t.Context(), chattyAgent(gone), harness.Case{
				Name:     "leave",
				Input:    harness.Input{Messages: harness.User("Hello?").Messages, FollowUps: []string{"Are you there?"}},
				Leave:    &tt.leave,
				NoGolden: true,
			})
			require.NoError(t, rep.Err())
			select {
			case <-gone:
			case <-t.Context().Done():
				t.Fatal("the agent never saw the client go")
			}
			res := rep.Result
			require.Len(t, res.Runs, 2)
			assert.True(t, res.Runs[0].Left)
			assert.Len(t, res.Runs[0].Events, tt.events)
			assert.Empty(t, res.Runs[0].Violations, "a run the client left is not truncated by the agent")
			assert.False(t, res.Runs[1].Left)
			assert.Equal(t, "Still here: Are you there?", res.LastText())
			var roles []string
			for _, m := range res.Runs[1].Input.Messages {
				roles = append(roles, string(m.Role))
			}
			want := "user user"
			if tt.events > 1 {
				want = "user assistant user" // what the client applied stays
			}
			assert.Equal(t, want, strings.Join(roles, " "))
		})
	}
}

// A run that does not end within the timeout is reported as such.
func TestRunTimeout(t *testing.T) {
	gone := make(chan struct{}, 1)
	rep := harness.Options{Timeout: 20 * time.Millisecond}.Test(t.Context(), chattyAgent(gone), harness.Case{
		Name: "hang", Input: harness.User("Hello?"), NoGolden: true,
	})
	<-gone
	require.NotEmpty(t, rep.Problems)
	assert.Equal(t, harness.ProblemRun, rep.Problems[0].Kind)
	// It says how far the run came: a hung agent, not a hung model client
	// (this agent never asks its model).
	assert.Contains(t, rep.Problems[0].Text, "run 1: the run did not end within 20ms (Options.Timeout; ")
	assert.Regexp(t, `(no event came|[12] events? came, the last (RUN_STARTED|TEXT_MESSAGE_START)); the model was asked 0 times in all, for the script's 0 turns\): `, rep.Problems[0].Text)
}

// serveFunc serves a Func agent's events over HTTP as server-sent events.
func serveFunc(fn func(context.Context, harness.Env, agui.RunAgentInput, func(agui.Event) error) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in agui.RunAgentInput
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", agui.MediaTypeSSE)
		enc := agui.NewSSEEncoder(w)
		_ = fn(r.Context(), harness.Env{}, in, enc.Encode)
	})
}

// The harness resumes an interrupted thread as HttpAgent of @ag-ui/client
// does: the reference client holds the same pending interrupts, refuses
// to go on without a resume, and posts the same messages and resume
// entries as the harness when given the harness's answers.
func TestInterruptResumeAgainstHttpAgent(t *testing.T) {
	dir := oracle.Dir(t, "the comparison with @ag-ui/client's resume")
	h := serveFunc(approvalAgent(""))
	rep := harness.Options{}.Test(t.Context(), harness.Handler(func(harness.Env) http.Handler { return h }), harness.Case{
		// resume.mjs starts its HttpAgent with this message.
		Name: "delete", Input: harness.Input{Messages: []agui.Message{agui.UserMessage("user-1", "Delete notes.txt.")}}, NoGolden: true,
		Answers: []harness.Answer{{Tool: "delete_file", Payload: json.RawMessage(`{"approved":true}`)}},
	})
	require.NoError(t, rep.Err())
	require.Len(t, rep.Result.Runs, 2)
	second := rep.Result.Runs[1].Input

	srv := httptest.NewServer(h)
	defer srv.Close()
	resume, err := json.Marshal(second.Resume)
	require.NoError(t, err)
	cmd := exec.Command("node", filepath.Join(dir, "resume.mjs"), srv.URL, string(resume))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.Bytes())
	var client struct {
		Pending []harness.Interrupt `json:"pending"`
		Refused string              `json:"refused"`
		OK      bool                `json:"ok"`
		Error   string              `json:"error"`
		Posted  agui.RunAgentInput  `json:"posted"`
	}
	require.NoError(t, json.Unmarshal(out, &client), "%s", out)
	assert.Equal(t, rep.Result.Runs[0].Interrupts, client.Pending, "the pending interrupts")
	assert.Equal(t, "Thread has 1 pending interrupt(s) not addressed by resume: approve-1", client.Refused)
	require.True(t, client.OK, client.Error)

	want, err := json.Marshal(struct {
		Messages []agui.Message     `json:"messages"`
		Resume   []agui.ResumeEntry `json:"resume"`
	}{client.Posted.Messages, client.Posted.Resume})
	require.NoError(t, err)
	got, err := json.Marshal(struct {
		Messages []agui.Message     `json:"messages"`
		Resume   []agui.ResumeEntry `json:"resume"`
	}{second.Messages, second.Resume})
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got), "the resuming run's messages and resume entries, against @ag-ui/client's")
}

// An agent that asks the user only in a CUSTOM on_interrupt event, with a
// plain RUN_FINISHED (@ag-ui/langgraph's default), gives the client
// nothing to answer: a case that answers interrupts says what the agent
// sent and the setting that sends the outcome; a case that answers none
// has no such problem.
func TestCustomOnInterruptNamed(t *testing.T) {
	agent := harness.Func(func(_ context.Context, _ harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		for _, e := range []agui.Event{
			agui.NewRunStarted(in.ThreadID, in.RunID),
			agui.NewCustom("on_interrupt", `{"question":"Delete notes.txt?"}`),
			agui.NewRunFinished(in.ThreadID, in.RunID),
		} {
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	})
	c := harness.Case{Name: "asks", Input: harness.User("Delete notes.txt."), NoGolden: true,
		Answers: []harness.Answer{{Payload: json.RawMessage(`{"approved":true}`)}}}
	r := harness.Options{}.Test(t.Context(), agent, c)
	require.NotEmpty(t, r.Problems)
	p := r.Problems[0]
	assert.Equal(t, harness.ProblemInterrupt, p.Kind)
	assert.Contains(t, p.Text, "run 1 finished without an interrupt outcome")
	assert.Contains(t, p.Text, "CUSTOM event named on_interrupt")
	assert.Contains(t, p.Text, "emitInterruptOutcome: true")

	c.Answers = nil
	r = harness.Options{}.Test(t.Context(), agent, c)
	for _, p := range r.Problems {
		assert.NotContains(t, p.Text, "on_interrupt")
	}
}
