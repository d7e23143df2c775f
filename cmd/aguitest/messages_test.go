package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/oracle"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
)

// shownRun is one line of "aguitest show --messages".
type shownRun struct {
	Run      string          `json:"run"`
	Messages json.RawMessage `json:"messages"`
	State    json.RawMessage `json:"state"`
	Stopped  string          `json:"stopped"`
}

// TestShowMessagesMatchesHTTPAgent holds "aguitest show --messages" against
// HttpAgent of @ag-ui/client: each sample stream served whole as one
// response to a client with no history; each recorded run served to a
// client holding its request's messages and state. Where the client
// accepts the response, the messages and state must be equal as JSON
// values; where it rejects it, show must say where it stopped.
func TestShowMessagesMatchesHTTPAgent(t *testing.T) {
	dir := oracle.Dir(t, "the comparison of show --messages with @ag-ui/client")
	inputs := []string{
		"../../agui/testdata/streams/simple.json",
		"../../agui/testdata/streams/simple.jsonl",
		"../../agui/testdata/streams/simple.sse",
		"../../agui/testdata/streams/parallel.sse",
		"../../recorder/testdata/weather.jsonl",
		"testdata/show/faults.jsonl",
		"testdata/show/reopened.jsonl",
		"testdata/show/rejected.jsonl",
		"testdata/show/binary.jsonl", // a history holding legacy binary parts
	}
	type check struct {
		file  string
		shown shownRun
		c     clientCase
	}
	var checks []check
	for _, in := range inputs {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"show", "--messages", in}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("aguitest show --messages %s: exit %d, stderr:\n%s", in, code, stderr.String())
		}
		var shown []shownRun
		for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			var r shownRun
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: a line of the output is not JSON: %v\n%s", in, err, line)
			}
			shown = append(shown, r)
		}
		for _, c := range clientCases(t, in) {
			got := shown[len(shown)-1] // a stream is one response: what the client holds at its end
			if c.run >= 0 {
				got = shown[c.run]
			}
			checks = append(checks, check{filepath.Base(in), got, c})
		}
	}
	cases := make([]clientCase, len(checks))
	for i, ch := range checks {
		cases[i] = ch.c
	}
	accepted := 0
	for i, res := range runClient(t, dir, cases) {
		ch := checks[i]
		if !res.OK {
			if ch.shown.Stopped == "" {
				t.Errorf("%s, run %d: the client rejects the response (%s); show does not say it stopped", ch.file, ch.c.run+1, res.Error)
			}
			continue
		}
		accepted++
		if ch.shown.Stopped != "" {
			t.Errorf("%s, run %d: the client accepts the response; show says it stopped: %s", ch.file, ch.c.run+1, ch.shown.Stopped)
		}
		if !sameJSON(ch.shown.Messages, res.Messages) {
			t.Errorf("%s, run %d: messages differ:\n  client: %s\n  show:   %s", ch.file, ch.c.run+1, res.Messages, ch.shown.Messages)
		}
		if !sameJSON(ch.shown.State, res.State) {
			t.Errorf("%s, run %d: state differs:\n  client: %s\n  show:   %s", ch.file, ch.c.run+1, res.State, ch.shown.State)
		}
	}
	t.Logf("%d responses, %d accepted by the client", len(checks), accepted)
}

// clientCase is one response to serve to the client: a recorded run
// (run is its line in show's output) or a whole stream (run -1).
type clientCase struct {
	run      int
	body     []byte
	messages json.RawMessage
	state    json.RawMessage
}

func clientCases(t *testing.T, name string) []clientCase {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(4096)
	if !recorder.IsRecording(head) {
		events, err := agui.ReadEvents(br)
		if err != nil {
			t.Fatal(err)
		}
		return []clientCase{{run: -1, body: sseOf(t, events), messages: json.RawMessage("[]")}}
	}
	var out []clientCase
	i := 0
	for r, err := range replay.Runs(recorder.NewReader(br, name)) {
		if err != nil {
			t.Fatal(err)
		}
		c := clientCase{run: i, body: sseOf(t, r.AGUIEvents()), messages: json.RawMessage("[]")}
		if r.Request != nil && len(r.Request.Input) > 0 {
			var in struct {
				Messages json.RawMessage `json:"messages"`
				State    json.RawMessage `json:"state"`
			}
			if err := json.Unmarshal(r.Request.Input, &in); err != nil {
				t.Fatal(err)
			}
			if len(in.Messages) > 0 {
				c.messages = in.Messages
			}
			c.state = in.State
		}
		out = append(out, c)
		i++
	}
	return out
}

func sseOf(t *testing.T, events []agui.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := agui.NewSSEEncoder(&b)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

type clientAnswer struct {
	OK       bool            `json:"ok"`
	Error    string          `json:"error"`
	Messages json.RawMessage `json:"messages"`
	State    json.RawMessage `json:"state"`
}

func runClient(t *testing.T, dir string, cases []clientCase) []clientAnswer {
	t.Helper()
	inputs := make([][]byte, len(cases))
	for i, c := range cases {
		line, err := json.Marshal(map[string]any{"body": base64.StdEncoding.EncodeToString(c.body), "messages": c.messages, "state": c.state})
		if err != nil {
			t.Fatal(err)
		}
		inputs[i] = line
	}
	return oracle.Run[clientAnswer](t, dir, "httpagent.mjs", inputs)
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
