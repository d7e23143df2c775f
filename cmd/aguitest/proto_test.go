package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/oracle"
	"github.com/aguitest/aguitest/recorder"
)

// richRun is a valid run touching everything a client assembles: text
// (streamed and chunked), reasoning, tool calls and results, state
// snapshots and every patch operation, activity, a messages snapshot, and
// events the client only passes on.
func richRun(r *rand.Rand, i int) []agui.Event {
	run := fmt.Sprintf("run-%d", i)
	words := []string{"Hello ", "wörld ", "日本 ", "😀 ", `"quoted" `, "back\\slash ", "line\nbreak ", "<b>&</b> "}
	text := func() string {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	evs := []agui.Event{
		agui.NewEvent(agui.RunStarted, "threadId", "thread-1", "runId", run, "timestamp", 1700000000000+i),
		agui.NewStateSnapshot(map[string]any{"tasks": []any{"a", "b"}, "n": i, "nested": map[string]any{"x": 1.5, "2": nil}}),
	}
	msg := fmt.Sprintf("m-%d", i)
	evs = append(evs, agui.NewTextMessageStart(msg))
	for range 1 + r.IntN(5) {
		evs = append(evs, agui.NewTextMessageContent(msg, text()))
	}
	evs = append(evs, agui.NewTextMessageEnd(msg))
	if r.IntN(2) == 0 {
		rid := fmt.Sprintf("r-%d", i)
		evs = append(evs, agui.NewEvent(agui.ReasoningStart, "messageId", rid),
			agui.NewEvent(agui.ReasoningMessageStart, "messageId", rid, "role", "reasoning"),
			agui.NewEvent(agui.ReasoningMessageContent, "messageId", rid, "delta", text()),
			agui.NewEvent(agui.ReasoningMessageEnd, "messageId", rid),
			agui.NewEvent(agui.ReasoningEnd, "messageId", rid))
	}
	for c := range 1 + r.IntN(3) {
		id := fmt.Sprintf("call-%d-%d", i, c)
		evs = append(evs, agui.NewToolCallStart(id, "move_task", msg),
			agui.NewToolCallArgs(id, `{"task":`), agui.NewToolCallArgs(id, fmt.Sprintf(`%q}`, text())),
			agui.NewToolCallEnd(id))
		if r.IntN(2) == 0 {
			evs = append(evs, agui.NewToolCallResult(fmt.Sprintf("res-%d-%d", i, c), id, `{"ok":true}`))
		}
	}
	evs = append(evs, agui.NewStateDelta([]any{
		map[string]any{"op": "add", "path": "/tasks/-", "value": text()},
		map[string]any{"op": "replace", "path": "/n", "value": i * 2},
		map[string]any{"op": "copy", "from": "/n", "path": "/m"},
		map[string]any{"op": "move", "from": "/m", "path": "/k"},
		map[string]any{"op": "test", "path": "/k", "value": i * 2},
		map[string]any{"op": "remove", "path": "/tasks/0"},
	}))
	act := fmt.Sprintf("act-%d", i)
	evs = append(evs,
		agui.NewEvent(agui.ActivitySnapshot, "messageId", act, "activityType", "progress", "content", map[string]any{"p": 0}),
		agui.NewEvent(agui.ActivityDelta, "messageId", act, "activityType", "progress", "patch", []any{map[string]any{"op": "replace", "path": "/p", "value": 1}}))
	chunk := fmt.Sprintf("chunk-%d", i)
	evs = append(evs, agui.NewEvent(agui.TextMessageChunk, "messageId", chunk, "role", "assistant", "delta", text()),
		agui.NewEvent(agui.TextMessageChunk, "delta", text()))
	if r.IntN(3) == 0 {
		evs = append(evs, agui.NewEvent(agui.MessagesSnapshot, "messages", []any{
			map[string]any{"id": "u-1", "role": "user", "content": []any{map[string]any{"type": "text", "text": "hi"}, map[string]any{"type": "image", "source": map[string]any{"type": "url", "value": "https://example.com/a.png"}}}},
			map[string]any{"id": msg, "role": "assistant", "content": "snap"},
		}))
	}
	evs = append(evs, agui.NewCustom("note", map[string]any{"k": []any{1, "x"}}),
		agui.NewEvent(agui.Raw, "event", map[string]any{"provider": "x"}, "metadata", map[string]any{"m": true}))
	if r.IntN(2) == 0 {
		evs = append(evs, agui.NewEvent(agui.RunFinished, "threadId", "thread-1", "runId", run, "outcome", map[string]any{"type": "success"}))
	} else {
		evs = append(evs, agui.NewRunFinished("thread-1", run))
	}
	return evs
}

type clientRun struct {
	OK          bool              `json:"ok"`
	Error       string            `json:"error"`
	ContentType string            `json:"contentType"`
	Messages    []json.RawMessage `json:"messages"`
	State       json.RawMessage   `json:"state"`
	Events      []string          `json:"events"`
}

func runClients(t *testing.T, dir, url string, n int, accept string) []clientRun {
	t.Helper()
	args := []string{filepath.Join(dir, "replay-runs.mjs"), url, fmt.Sprint(n)}
	if accept != "" {
		args = append(args, accept)
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var res []clientRun
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c clientRun
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		res = append(res, c)
	}
	if len(res) != n {
		t.Fatalf("%d client runs, want %d", len(res), n)
	}
	return res
}

// TestServeProtobufToReferenceClient serves one recording with "aguitest
// serve" to @ag-ui/client's HttpAgent twice, once asking for server-sent
// events and once for protobuf: every run must succeed and assemble the
// same messages and state, from the same events.
func TestServeProtobufToReferenceClient(t *testing.T) {
	t.Parallel() // node starts while other tests run
	dir := oracle.Dir(t, "the protobuf replay test with @ag-ui/client")
	const n = 40
	path := filepath.Join(t.TempDir(), "rich.jsonl")
	w, err := recorder.Create(path, recorder.Header{Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(13, 0))
	for i := range n {
		run := fmt.Sprintf("run-%d", i)
		w.Write(recorder.Record{Kind: recorder.KindRequest, Run: run, Request: &recorder.Request{Method: "POST", Path: "/"}})
		for j, e := range richRun(r, i) {
			w.Write(recorder.EventRecord(run, time.Duration(j)*time.Millisecond, e))
		}
		w.Write(recorder.Record{Kind: recorder.KindEnd, Run: run, End: &recorder.End{Outcome: recorder.OutcomeFinished}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	results := map[string][]clientRun{}
	for _, accept := range []string{"", agui.MediaTypeProto} {
		url, stop, stderr := startServing(t, runServe, "--speed", "0", path)
		results[accept] = runClients(t, dir, url, n, accept)
		if code := stop(); code != 0 || strings.Contains(stderr.String(), "warning") {
			t.Errorf("serve: exit %d; stderr: %s", code, stderr)
		}
	}
	sse, proto := results[""], results[agui.MediaTypeProto]
	for i := range n {
		if !sse[i].OK || !proto[i].OK {
			t.Fatalf("run %d: the client failed: SSE %q, protobuf %q", i, sse[i].Error, proto[i].Error)
		}
		if sse[i].ContentType != "text/event-stream" || proto[i].ContentType != agui.MediaTypeProto {
			t.Fatalf("run %d: content types %q and %q", i, sse[i].ContentType, proto[i].ContentType)
		}
		if len(sse[i].Messages) < 2 || len(sse[i].State) < 10 {
			t.Fatalf("run %d: the client assembled little: %d messages, state %s", i, len(sse[i].Messages), sse[i].State)
		}
		if d := cmp.Diff(sse[i], proto[i], cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }),
			cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ContentType" }, cmp.Ignore())); d != "" {
			t.Errorf("run %d: the client assembles differently from protobuf (-sse +protobuf):\n%s", i, d)
		}
	}
}

func TestServeNegotiates(t *testing.T) {
	url, stop, stderr := startServing(t, runServe, "--speed", "0", "--loop", "../../recorder/testdata/weather.jsonl")
	defer stop()
	for _, tt := range []struct{ accept, want string }{
		{"", "text/event-stream"},
		{"*/*", "text/event-stream"},
		{agui.MediaTypeProto, agui.MediaTypeProto},
		{"text/event-stream;q=0.5, " + agui.MediaTypeProto, agui.MediaTypeProto},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rd := agui.NewReader(resp.Body, "serve")
		rd.ContentType = resp.Header.Get("Content-Type")
		var evs []agui.Event
		for {
			e, err := rd.Next()
			if err != nil {
				break
			}
			evs = append(evs, e)
		}
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != tt.want || len(evs) != 10 {
			t.Errorf("Accept %q: Content-Type %q, %d events; want %q and 10", tt.accept, ct, len(evs), tt.want)
		}
	}
	_ = stderr
}

// TestCommandsReadProtobuf: verify, show and diff read a stream of
// protobuf frames as they read the same events in JSON.
func TestCommandsReadProtobuf(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"simple.jsonl", "parallel.sse"} {
		src := filepath.Join("../../agui/testdata/streams", name)
		f, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := agui.ReadEvents(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var pb bytes.Buffer
		enc := agui.NewProtoEncoder(&pb)
		for _, e := range evs {
			if err := enc.Encode(e); err != nil || enc.Losses() != nil {
				t.Fatalf("%s: %v %v", name, err, enc.Losses())
			}
		}
		path := filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".pb")
		if err := os.WriteFile(path, pb.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd(t, "", "verify", path)
		wantCode, wantOut, _ := runCmd(t, "", "verify", src)
		if code != wantCode || strings.ReplaceAll(out, path, "F") != strings.ReplaceAll(wantOut, src, "F") {
			t.Errorf("%s: verify: %d %s %s\nwant %d %s", name, code, out, errOut, wantCode, wantOut)
		}
		code, out, errOut = runCmd(t, "", "show", path)
		_, wantOut, _ = runCmd(t, "", "show", src)
		// The same transcript, but for the format and the lines.
		norm := func(s, name string) string {
			s = strings.NewReplacer(name+":1\n", "F\n", name+":3\n", "F\n", name, "F", ": proto\n", ":\n", ": jsonl\n", ":\n", ": sse\n", ":\n").Replace(s)
			return s
		}
		if code != 0 || norm(out, path) != norm(wantOut, src) {
			t.Errorf("%s: show: %d %s\n%s\nwant\n%s", name, code, errOut, out, wantOut)
		}
		if code, out, errOut := runCmd(t, "", "diff", "--view", "wire", src, path); code != 0 {
			t.Errorf("%s: diff: %d %s %s", name, code, out, errOut)
		}
	}
	if code, _, errOut := runCmd(t, "\x1f\x8b\x08\x00", "verify", "-"); code != 2 || !strings.Contains(errOut, "not an AG-UI stream: it starts with byte 0x1f") {
		t.Errorf("a gzip body: %d %s", code, errOut)
	}
}

// TestVerifyProtobufFrames: a frame the client cannot decode breaks the
// reference profile; one whose JSON form drops part of it breaks the
// strict profile (proto-loss), which the reference client never notices.
func TestVerifyProtobufFrames(t *testing.T) {
	dir := t.TempDir()
	var pb bytes.Buffer
	enc := agui.NewProtoEncoder(&pb)
	enc.Encode(agui.NewRunStarted("t", "r"))
	// TEXT_MESSAGE_START with an unknown field 63.
	enc.EncodeFrame([]byte{0x0a, 0x0a, 0x0a, 0x02, 0x08, 0x00, 0x12, 0x01, 0x6d, 0xf8, 0x03, 0x01})
	enc.Encode(agui.NewTextMessageEnd("m"))
	enc.Encode(agui.NewRunFinished("t", "r"))
	lossy := filepath.Join(dir, "lossy.pb")
	os.WriteFile(lossy, pb.Bytes(), 0o644)
	enc.EncodeFrame([]byte{0x0a, 0x00}) // no base event
	broken := filepath.Join(dir, "broken.pb")
	os.WriteFile(broken, pb.Bytes(), 0o644)

	for _, tt := range []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"verify", lossy}, 1, "lossy.pb: event 2 TEXT_MESSAGE_START [messageId=m]: proto-loss: the client's decoder drops /#63: unknown field 63 of TextMessageStartEvent (wire type 0) dropped"},
		{[]string{"verify", "--profile", "reference", lossy}, 0, "ok: 4 events"},
		{[]string{"verify", "--allow", "proto-loss", lossy}, 0, "ok: 4 events"},
		{[]string{"verify", "--profile", "reference", broken}, 1, "frame-proto: Failed to decode protocol buffer message: the TEXT_MESSAGE_START event has no base event"},
	} {
		code, out, errOut := runCmd(t, "", tt.args...)
		if code != tt.wantCode || !strings.Contains(out, tt.want) {
			t.Errorf("%v: %d\n%s%s\nwant %d and %q", tt.args, code, out, errOut, tt.wantCode, tt.want)
		}
	}
}
