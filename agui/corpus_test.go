package agui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/internal/jsvalue"
)

// corpusFixture is a fixture of AG-UI's conformance corpus
// (testdata/conformance, vendored from ag-ui-protocol/ag-ui, spec/*/
// conformance/streams): a stream, what the run starts from, and what the
// specification requires of a client that consumes it. Only the keys the
// test reads are here.
type corpusFixture struct {
	Name   string `json:"name"`
	Client *struct {
		MaxProtocolVersion string `json:"maxProtocolVersion"`
	} `json:"client"`
	Input *struct {
		Messages json.RawMessage `json:"messages"`
	} `json:"input"`
	Stream []json.RawMessage `json:"stream"`
	Expect struct {
		Outcome       string `json:"outcome"`
		ErrorContains string `json:"errorContains"`
	} `json:"expect"`

	file string // the spec version's folder and the file's name
}

// corpusTimestamp is the timestamp the framing fills in, as the
// TypeScript lane's replay server does for an event with none or null.
const corpusTimestamp = 1767225600000

// loadCorpus reads every fixture of testdata/conformance.
func loadCorpus(t *testing.T) []corpusFixture {
	t.Helper()
	files, err := filepath.Glob("testdata/conformance/*/streams/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("testdata/conformance holds no fixture")
	}
	var out []corpusFixture
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx corpusFixture
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fx.file = strings.TrimPrefix(filepath.ToSlash(f), "testdata/conformance/")
		if want := strings.TrimSuffix(filepath.Base(f), ".json"); fx.Name != want {
			t.Errorf("%s: the fixture is named %q", f, fx.Name)
		}
		out = append(out, fx)
	}
	return out
}

// body frames the fixture's stream as the TypeScript lane serves it: each
// event in a data: frame of its own, as JSON.stringify writes it, with a
// timestamp where the event has none or null.
func (fx corpusFixture) body(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	for i, raw := range fx.Stream {
		e, err := withTimestamp(raw)
		if err != nil {
			t.Fatalf("%s: event %d: %v", fx.file, i+1, err)
		}
		b.WriteString("data: ")
		b.Write(e)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// withTimestamp returns an event as the lane's replay server writes it:
// JSON.stringify of the parsed event, with a timestamp where the event
// has none or null.
func withTimestamp(raw json.RawMessage) ([]byte, error) {
	v, err := jsvalue.Parse(raw)
	if err != nil {
		return nil, err
	}
	if o, ok := v.(*jsvalue.Object); ok {
		if ts, _ := jsvalue.Get(o, "timestamp"); jsvalue.Nullish(ts) {
			if err := jsvalue.Set(o, "timestamp", float64(corpusTimestamp)); err != nil {
				return nil, err
			}
		}
	}
	return jsvalue.Stringify(v), nil
}

// input is what the run starts from: the fixture's input, on the thread
// and run its first RUN_STARTED names, as the lane's client runs it.
func (fx corpusFixture) input() RunAgentInput {
	in := RunAgentInput{ThreadID: "thread-1", RunID: "run-1"}
	for _, raw := range fx.Stream {
		var e struct{ Type, ThreadID, RunID string }
		if json.Unmarshal(raw, &e) == nil && e.Type == string(RunStarted) {
			in.ThreadID, in.RunID = e.ThreadID, e.RunID
			break
		}
	}
	if fx.Input != nil {
		if len(fx.Input.Messages) > 0 {
			_ = json.Unmarshal(fx.Input.Messages, &in.Messages)
		}
	}
	return in
}

// TestOfficialCorpus runs AG-UI's conformance corpus (testdata/conformance:
// spec/1.0, spec/1.1 and spec/draft, vendored unchanged with its license
// and the commit each was read at, SOURCE.md): each fixture's stream,
// framed as the TypeScript lane frames it, is served over HTTP to HttpAgent
// of @ag-ui/client 1.0.0 holding the fixture's input messages and state.
// aguitest's verdict under the Reference profile is the client's (accept,
// or the same rejection), and where the client accepts, the view holds the
// client's messages and state and Strict's unknown-event and unknown-field
// findings are what the client drops and strips. Where a fixture requires
// a rejection that 1.0.0 does not make (a rule of a later client or of the
// draft), the Strict profile, the harness's default, makes it.
//
// A fixture that pins an older peer (client.maxProtocolVersion) runs as a
// client built with no pin does, which is the client aguitest models; its
// era shims are the pinned client's, not tested here.
func TestOfficialCorpus(t *testing.T) {
	dir := needOracle(t)
	fixtures := loadCorpus(t)
	cases := make([]httpCase, len(fixtures))
	bodies := make([][]byte, len(fixtures))
	inputs := make([]RunAgentInput, len(fixtures))
	for i, fx := range fixtures {
		bodies[i] = fx.body(t)
		inputs[i] = fx.input()
		msgs, _ := json.Marshal(inputs[i].Messages)
		if inputs[i].Messages == nil {
			msgs = []byte("[]")
		}
		c := httpCase{Body: base64.StdEncoding.EncodeToString(bodies[i]), Messages: msgs, State: inputs[i].State,
			ThreadID: inputs[i].ThreadID, RunID: inputs[i].RunID}
		cases[i] = c
	}
	results := runHTTPAgent(t, dir, cases)
	var pinned, stricter, laxer []string
	accepted := 0
	for i, res := range results {
		fx, body, in := fixtures[i], bodies[i], inputs[i]
		if fx.Client != nil && fx.Client.MaxProtocolVersion != "" {
			pinned = append(pinned, fx.Name)
		}
		if !sameAsClient(t, ClientV100, fx, body, in, res) {
			continue
		}
		if res.OK {
			accepted++
			if _, err := sameRemovals(res, body); err != nil {
				t.Errorf("%s: %v", fx.file, err)
			}
		}
		switch {
		case fx.Expect.Outcome == "failed" && res.OK:
			// A rule 1.0.0 lacks: Strict holds it.
			stricter = append(stricter, fx.Name)
			s := NewVerifier(Options{Input: &in})
			_ = readInto(NewReader(bytes.NewReader(body), fx.file), s)
			s.Finish()
			if len(s.Violations()) == 0 {
				t.Errorf("%s: the fixture requires a rejection (%q) that @ag-ui/client 1.0.0 does not make, and Strict accepts the stream too", fx.file, fx.Expect.ErrorContains)
			} else {
				t.Logf("%s: requires %q; Strict: %s: %s", fx.Name, fx.Expect.ErrorContains, s.Violations()[0].Rule, s.Violations()[0].Message)
			}
		case fx.Expect.Outcome == "completed" && !res.OK:
			laxer = append(laxer, fx.Name+" ("+res.Error+")")
		}
	}
	// The same streams to the client CopilotKit pins.
	old, differ := 0, 0
	for i, res := range runHTTPAgentOf(t, ClientV0059, cases) {
		if res.OK {
			old++
		}
		if !sameAsClient(t, ClientV0059, fixtures[i], bodies[i], inputs[i], res) {
			differ++
		}
	}
	t.Logf("@ag-ui/client 0.0.59 accepts %d of the %d fixtures; aguitest's 0.0.59 profile differs on %d", old, len(fixtures), differ)
	t.Logf("%d fixtures: @ag-ui/client 1.0.0 accepts %d; pinned to an older peer, run unpinned: %v", len(fixtures), accepted, pinned)
	t.Logf("required rejections 1.0.0 does not make, held by Strict: %v", stricter)
	t.Logf("fixtures 1.0.0 rejects where the corpus expects the run to complete: %v", laxer)
	if !slices.ContainsFunc(fixtures, func(f corpusFixture) bool { return strings.HasPrefix(f.file, "draft/") }) {
		t.Error("the corpus holds no draft fixture")
	}
}

// sameAsClient reports whether aguitest under the Reference profile of
// client c gives the client's verdict on the fixture's stream and, where
// the client accepts it, holds the client's messages and state; it
// reports on t where not.
func sameAsClient(t *testing.T, c Client, fx corpusFixture, body []byte, in RunAgentInput, res httpAgentResult) bool {
	t.Helper()
	v := NewVerifier(Options{Profile: Reference, Client: c, Input: &in})
	if err := readInto(NewReader(bytes.NewReader(body), fx.file), v); err != nil {
		t.Errorf("%s: aguitest cannot read it: %v", fx.file, err)
		return false
	}
	v.Finish()
	ours := clientViolation(v)
	if err := sameVerdict(res, ours); err != nil {
		t.Errorf("%s (@ag-ui/client %s): %v", fx.file, c, err)
		return false
	}
	if !res.OK {
		return true
	}
	view := NewClientView(c, in)
	r := NewReader(bytes.NewReader(body), fx.file)
	for {
		e, err := r.Next()
		if err != nil {
			break
		}
		if err := view.Apply(e); err != nil {
			t.Errorf("%s (@ag-ui/client %s): the client accepts the run; the view stops at %v", fx.file, c, err)
			return false
		}
	}
	ok := true
	// Ids the client mints (a reasoning message for THINKING_*) are
	// UUIDs; the view's are its own.
	want, _ := json.Marshal(res.Messages)
	want = uuidRE.ReplaceAll(want, []byte("<minted>"))
	if got := mintedRE.ReplaceAll(view.MessagesJSON(), []byte("<minted>")); !sameJSONValue(got, want) {
		t.Errorf("%s (@ag-ui/client %s): messages differ:\n  client: %s\n  view:   %s", fx.file, c, want, got)
		ok = false
	}
	if got := view.State(); !sameJSONValue(got, res.State) {
		t.Errorf("%s (@ag-ui/client %s): state differs:\n  client: %s\n  view:   %s", fx.file, c, res.State, got)
		ok = false
	}
	return ok
}
