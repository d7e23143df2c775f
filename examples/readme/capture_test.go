package readme_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
)

// capture is docs/capturing-and-replaying.md's snippet for recording
// production traffic; it is compiled here so that the snippet stays true.
func capture(mux *http.ServeMux, agent http.Handler) {
	h := recorder.Middleware(agent, recorder.Config{
		Dir:    "recordings",                 // one file per run
		Sample: recorder.Fraction(0.05, nil), // 5% of the requests
		Redact: recorder.Redact{Pointers: []string{"/forwardedProps/user/email"}},
	})
	mux.Handle("/agent", h)
}

// check is docs/capturing-and-replaying.md's snippet for checking recorded
// runs offline.
func check(w io.Writer, path string) error {
	rec, err := replay.Load(path)
	if err != nil {
		return err
	}
	for _, run := range rec.Runs {
		for _, v := range agui.Verify(run.AGUIEvents(), agui.Options{}) {
			fmt.Fprintf(w, "%s: run %s: %v\n", path, run.ID, v)
		}
	}
	return nil
}

func TestCheckRecording(t *testing.T) {
	var _, _ = capture, verify
	var out strings.Builder
	if err := check(&out, "../../recorder/testdata/weather.jsonl"); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("got violations in a recording that conforms:\n%s", out.String())
	}
}

// verify is the Go snippet of docs/conformance.md's "Checking a stream": it
// judges an agent's response as the reference client reads it.
func verify(resp *http.Response, input agui.RunAgentInput) ([]agui.Violation, error) {
	v := agui.NewVerifier(agui.Options{Input: &input}) // Strict; calls of the input's history are known
	v.Response(resp.StatusCode, resp.Header.Get("Content-Type"))
	r := agui.NewReader(resp.Body, "agent")
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		var fe *agui.FrameError
		if errors.As(err, &fe) {
			v.PushFrame(fe) // a frame the client cannot read; read on
			continue
		}
		if err != nil {
			return nil, err
		}
		v.Push(e)
	}
	v.Finish() // no events, a cut stream, what is left open
	return v.Violations(), nil
}

func TestVerifySnippet(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ctype string
		body  string
		want  []agui.Rule
	}{
		{"conforms", "text/event-stream", "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
			"data: {\"type\":\"TOOL_CALL_RESULT\",\"messageId\":\"m\",\"toolCallId\":\"c1\",\"content\":\"Seoul\"}\n\n" +
			"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n", nil},
		{"an error page", "text/html", "<html>502</html>", []agui.Rule{agui.RuleContentType, agui.RuleNoEvents}},
		{"a bad frame", "text/event-stream", "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {oops\n\n" +
			"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n", []agui.Rule{agui.RuleFrameJSON}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			// The call c1 came back in the history: its result is known.
			input := agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []agui.Message{
				agui.AssistantMessage("a1", "", agui.ToolCall{ID: "c1", Function: agui.FunctionCall{Name: "get_user_location"}}),
			}}
			vs, err := verify(resp, input)
			if err != nil {
				t.Fatal(err)
			}
			var got []agui.Rule
			for _, v := range vs {
				got = append(got, v.Rule)
			}
			assert.Equal(t, tc.want, got, "violations: %v", vs)
		})
	}
}

// redaction is docs/security.md's snippet for changing what is redacted;
// rules are the user's own, read with recorder.ParseRules.
func redaction(rules []recorder.Rule) recorder.Redact {
	rd := recorder.Redact{
		Off:      []recorder.Default{recorder.DefaultJWT},             // --redact-off jwt (or all)
		Keep:     []string{"session"},                                 // --keep session
		Pointers: []string{"/forwardedProps/user/email"},              // --redact /forwardedProps/user/email
		Patterns: []*regexp.Regexp{regexp.MustCompile(`acct-[0-9]+`)}, // --redact-pattern 'acct-[0-9]+'
		Headers:  []string{"X-Tenant"},                                // --redact-header X-Tenant
		Rules:    rules,                                               // --redact-rules my-rules.toml (recorder.ParseRules)
	}
	return rd
}

func TestRedactionSnippet(t *testing.T) {
	rules, err := recorder.ParseRules("my-rules.toml", []byte(`
[[rules]]
id = "acme-key"
regex = 'acme_[0-9a-f]{16}'
keywords = ["acme_"]
`))
	if err != nil {
		t.Fatal(err)
	}
	rd := redaction(rules)
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig"
	in := `{"forwardedProps":{"session":"s1","user":{"email":"ann@example.com"},"password":"p"},"note":"acct-42 ` + jwt + ` acme_0123456789abcdef"}`
	out, err := rd.JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"forwardedProps":{"session":"s1","user":{"email":"[REDACTED]"},"password":"[REDACTED]"},"note":"[REDACTED] ` + jwt + ` [REDACTED]"}`
	assert.Equal(t, want, string(out))
}
