package replay

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/oracle"
	"github.com/aguitest/aguitest/recorder"
)

func needNodeClient(t *testing.T) string {
	t.Helper()
	return oracle.Dir(t, "the replay test with @ag-ui/client")
}

type clientResult struct {
	OK       bool              `json:"ok"`
	Error    string            `json:"error"`
	Messages []json.RawMessage `json:"messages"`
	Events   []string          `json:"events"`
}

// runNodeClient runs @ag-ui/client's HttpAgent against url.
func runNodeClient(t *testing.T, dir, url string) clientResult {
	t.Helper()
	cmd := exec.Command("node", filepath.Join(dir, "replay-client.mjs"), url)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var res clientResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("node output %q: %v", out, err)
	}
	return res
}

// message is what the comparison looks at in a client's message.
type message struct {
	ID        string     `json:"id"`
	Role      string     `json:"role"`
	Content   string     `json:"content,omitempty"`
	ToolCalls []toolCall `json:"toolCalls,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// impliedMessages builds the messages a client should hold after the
// recorded events: text messages with their content, tool calls with their
// whole arguments attached to their parent message.
func impliedMessages(evs []agui.Event) []message {
	var msgs []message
	index := map[string]int{}
	calls := map[string][2]int{}
	msg := func(id string) *message {
		if i, ok := index[id]; ok {
			return &msgs[i]
		}
		index[id] = len(msgs)
		msgs = append(msgs, message{ID: id, Role: "assistant"})
		return &msgs[len(msgs)-1]
	}
	for _, e := range evs {
		switch e.Type() {
		case agui.TextMessageStart:
			msg(e.MessageID())
		case agui.TextMessageContent:
			msg(e.MessageID()).Content += e.Delta()
		case agui.ToolCallStart:
			parent := e.ParentMessageID()
			if parent == "" {
				parent = e.ToolCallID()
			}
			m := msg(parent)
			var c toolCall
			c.ID, c.Function.Name = e.ToolCallID(), e.ToolCallName()
			m.ToolCalls = append(m.ToolCalls, c)
			calls[e.ToolCallID()] = [2]int{index[parent], len(m.ToolCalls) - 1}
		case agui.ToolCallArgs:
			if at, ok := calls[e.ToolCallID()]; ok {
				msgs[at[0]].ToolCalls[at[1]].Function.Arguments += e.Delta()
			}
		}
	}
	return msgs
}

// TestReferenceClientConsumesReplay serves recordings with Handler to the
// real @ag-ui/client HttpAgent: the run must finish without error and the
// client's messages must be those the recording implies.
func TestReferenceClientConsumesReplay(t *testing.T) {
	dir := needNodeClient(t)

	// A recording made live by the middleware, with text, a tool call and
	// reasoning, next to the hand-written example file.
	live := []agui.Event{
		agui.NewRunStarted("thread-1", "live"),
		agui.NewTextMessageStart("a1"),
		agui.NewTextMessageContent("a1", "Let me "),
		agui.NewTextMessageContent("a1", "check: \"quotes\", ünïcode, <html> & 😀"),
		agui.NewTextMessageEnd("a1"),
		agui.NewToolCallStart("call-1", "search", "a1"),
		agui.NewToolCallArgs("call-1", `{"query":`),
		agui.NewToolCallArgs("call-1", `"AG-UI", "limit": 3}`),
		agui.NewToolCallEnd("call-1"),
		agui.NewToolCallStart("call-2", "render", "a1"),
		agui.NewToolCallArgs("call-2", `{}`),
		agui.NewToolCallEnd("call-2"),
		agui.NewRunFinished("thread-1", "live"),
	}
	var buf bytes.Buffer
	w, _ := recorder.NewWriter(&buf, recorder.Header{})
	h := recorder.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		enc := agui.NewSSEEncoder(w)
		for _, e := range live {
			enc.Encode(e)
		}
	}), recorder.Config{Writer: w})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"live"}`)))
	h.Wait()
	liveRec, err := Read(recorder.NewReader(&buf, "live"))
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name string
		rec  *Recording
	}{
		{"example file", load(t, weather)},
		{"recorded by the middleware", liveRec},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := tt.rec.Runs[0]
			srv := httptest.NewServer(Handler([]*Run{run}, Options{}))
			defer srv.Close()
			res := runNodeClient(t, dir, srv.URL)
			if !res.OK {
				t.Fatalf("the client failed: %s", res.Error)
			}
			var got []message
			for _, m := range res.Messages {
				var mm message
				if err := json.Unmarshal(m, &mm); err != nil {
					t.Fatal(err)
				}
				got = append(got, mm)
			}
			want := impliedMessages(run.AGUIEvents())
			if len(want) == 0 {
				t.Fatal("the recording implies no messages")
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("the client's messages differ from the recording (-want +got):\n%s", d)
			}
			if n := len(res.Events); n != len(run.Events) {
				t.Errorf("the client saw %d events, want %d: %v", n, len(run.Events), res.Events)
			}
		})
	}
}
