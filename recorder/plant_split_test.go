package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// TestPlantedKindsRecognised: every kind is redacted with the defaults,
// alone, glued to the text around it, in a JSON string and in JSON-escaped
// text.
func TestPlantedKindsRecognised(t *testing.T) {
	var rd Redact
	for _, p := range plantedFormats() {
		forms := map[string]string{
			"alone":         p.value,
			"in prose":      "use " + p.value + " now",
			"after a colon": "key:" + p.value,
			"in brackets":   "(" + p.value + ")",
			"in a tag":      "<code>" + p.value + "</code>",
			"sentence end":  "it is " + p.value + ".",
			"comma":         p.value + ", then",
			"quoted":        `"` + p.value + `"`,
		}
		if !p.context {
			forms["glued to a word"] = "mykey" + p.value
			forms["glued to a digit"] = "42" + p.value
		}
		for name, in := range forms {
			got := rd.Text([]byte(in))
			if l := leaks(got, []planted{p}); len(l) > 0 || !bytes.Contains(got, []byte(Redacted)) {
				t.Errorf("%s %s: Text(%q) = %q", p.kind, name, in, got)
			}
			doc, _ := json.Marshal(map[string]string{"note": in})
			red, err := rd.JSON(doc)
			if err != nil || len(leaks(red, []planted{p})) > 0 {
				t.Errorf("%s %s: JSON(%s) = %s (%v)", p.kind, name, doc, red, err)
			}
			if rd.clean(doc) {
				t.Errorf("%s %s: the quick check passes %s", p.kind, name, doc)
			}
		}
	}
}

// emitLane streams text into a Sink as the deltas of one message, one
// reasoning message, one call's arguments (inside a JSON string), or
// message chunks, and returns the recording.
func emitLane(t *testing.T, kind string, frags []string) []byte {
	t.Helper()
	var file bytes.Buffer
	w, _ := NewWriter(&file, Header{})
	s := &Sink{Writer: w}
	emit := func(e agui.Event) {
		if err := s.Emit(e); err != nil {
			t.Fatal(err)
		}
	}
	emit(agui.NewRunStarted("t", "r"))
	switch kind {
	case "text":
		emit(agui.NewTextMessageStart("m"))
		for _, f := range frags {
			emit(agui.NewTextMessageContent("m", f))
		}
		emit(agui.NewTextMessageEnd("m"))
	case "reasoning":
		emit(agui.NewEvent(agui.ReasoningMessageStart, "messageId", "r1", "role", "reasoning"))
		for _, f := range frags {
			emit(agui.NewEvent(agui.ReasoningMessageContent, "messageId", "r1", "delta", f))
		}
		emit(agui.NewEvent(agui.ReasoningMessageEnd, "messageId", "r1"))
	case "chunk":
		for i, f := range frags {
			if i == 0 {
				emit(agui.NewEvent(agui.TextMessageChunk, "messageId", "m", "role", "assistant", "delta", f))
			} else {
				emit(agui.NewEvent(agui.TextMessageChunk, "delta", f))
			}
		}
	case "args":
		emit(agui.NewToolCallStart("c", "save", "m"))
		for _, f := range frags {
			emit(agui.NewToolCallArgs("c", f))
		}
		emit(agui.NewToolCallEnd("c"))
	}
	emit(agui.NewRunFinished("t", "r"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}

// plantedLane is what a lane of kind carries around a planted value.
func plantedLane(kind string, p planted) string {
	if kind == "args" {
		b, _ := json.Marshal(map[string]string{"note": "saved " + p.value + " here"})
		return string(b)
	}
	return "here it is: " + p.value + " (keep it safe)"
}

// TestPlantedKindsSplitEveryCut: a key cut in two at every place, in each
// kind of lane, never reaches the recording, and what is not the key does.
func TestPlantedKindsSplitEveryCut(t *testing.T) {
	kinds := []string{"text", "args", "reasoning", "chunk"}
	cuts := 0
	for _, p := range plantedFormats() {
		for _, kind := range kinds {
			text := plantedLane(kind, p)
			start := strings.Index(text, p.value)
			if kind == "args" {
				start = strings.Index(text, "saved ")
			}
			step := 1
			if testing.Short() && kind != "text" {
				step = 7
			}
			for k := start + 1; k < start+len(p.value) && k < len(text); k += step {
				rec := emitLane(t, kind, []string{text[:k], text[k:]})
				cuts++
				if l := leaks(rec, []planted{p}); len(l) > 0 {
					t.Errorf("%s in %s, cut at %d (%q | %q): leaked %v", p.kind, kind, k-start, text[:k], text[k:], l)
					break
				}
				if !p.context && !bytes.Contains(rec, []byte("here")) {
					t.Errorf("%s in %s, cut at %d: the text around the key is lost:\n%s", p.kind, kind, k-start, rec)
					break
				}
			}
		}
	}
	t.Logf("%d kinds, %d cuts", len(plantedFormats()), cuts)
}

// explorationSplits are the splits exploration streams a turn with: those
// of every variant scripted.Explore makes of a turn with text and a call.
func explorationSplits(t *testing.T, n int) []scripted.Split {
	t.Helper()
	s := scripted.Script{Turns: []scripted.Turn{{Text: "some text", Calls: []scripted.Call{{Name: "f", Args: `{"a":1}`}, {Name: "g", Args: `{"b":2}`}}}}}
	seen := map[string]bool{}
	var out []scripted.Split
	for _, v := range scripted.Explore(s, nil, 1, n) {
		sp := v.Script.Turns[0].Plan.Split
		if !seen[sp.String()] {
			seen[sp.String()] = true
			out = append(out, sp)
		}
	}
	if len(out) < 8 {
		t.Fatalf("only %d splits from exploration", len(out))
	}
	return out
}

// TestPlantedKindsExplorationSplits: every kind, in every lane, cut as
// exploration's plans cut a stream.
func TestPlantedKindsExplorationSplits(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	splits := explorationSplits(t, n)
	for _, p := range plantedFormats() {
		for _, kind := range []string{"text", "args", "reasoning", "chunk"} {
			text := plantedLane(kind, p)
			for seed, sp := range splits {
				frags := sp.Cut(text, uint64(seed+1))
				rec := emitLane(t, kind, frags)
				if l := leaks(rec, []planted{p}); len(l) > 0 {
					t.Errorf("%s in %s under split %s (%q): leaked %v", p.kind, kind, sp, frags, l)
				}
			}
		}
	}
	t.Logf("%d splits", len(splits))
}

// streamOfEverything is an agent's stream holding every planted kind in
// every place a stream has, whole and cut by each split.
func streamOfEverything(formats, named []planted, splits []scripted.Split) []agui.Event {
	fields := map[string]any{}
	for _, p := range named {
		fields[p.kind] = p.value
	}
	whole := plantedText(formats)
	evs := []agui.Event{agui.NewRunStarted("t", "r")}
	// Whole, in one delta each.
	evs = append(evs, agui.NewTextMessageStart("m0"), agui.NewTextMessageContent("m0", whole), agui.NewTextMessageEnd("m0"))
	args, _ := json.Marshal(map[string]any{"notes": whole, "auth": fields})
	evs = append(evs, agui.NewToolCallStart("c0", "save", "m0"), agui.NewToolCallArgs("c0", string(args)), agui.NewToolCallEnd("c0"),
		agui.NewEvent(agui.ToolCallResult, "messageId", "res0", "toolCallId", "c0", "content", whole+string(args)))
	// Cut, each kind in its own lanes, by a split of its own.
	for i, p := range formats {
		sp := splits[i%len(splits)]
		id := fmt.Sprint("m", i+1)
		call := fmt.Sprint("c", i+1)
		evs = append(evs, agui.NewTextMessageStart(id))
		for _, f := range sp.Cut(plantedLane("text", p), uint64(i)) {
			evs = append(evs, agui.NewTextMessageContent(id, f))
		}
		evs = append(evs, agui.NewTextMessageEnd(id))
		evs = append(evs, agui.NewToolCallStart(call, "save", id))
		for _, f := range sp.Cut(plantedLane("args", p), uint64(i)) {
			evs = append(evs, agui.NewToolCallArgs(call, f))
		}
		evs = append(evs, agui.NewToolCallEnd(call))
		rid := fmt.Sprint("r", i+1)
		evs = append(evs, agui.NewEvent(agui.ReasoningMessageStart, "messageId", rid, "role", "reasoning"))
		for _, f := range sp.Cut(plantedLane("reasoning", p), uint64(i)) {
			evs = append(evs, agui.NewEvent(agui.ReasoningMessageContent, "messageId", rid, "delta", f))
		}
		evs = append(evs, agui.NewEvent(agui.ReasoningMessageEnd, "messageId", rid))
	}
	// Two messages' deltas interleaved.
	a, b := formats[0], formats[len(formats)-1]
	fa, fb := splits[1].Cut(plantedLane("text", a), 1), splits[1].Cut(plantedLane("text", b), 2)
	evs = append(evs, agui.NewTextMessageStart("ia"), agui.NewTextMessageStart("ib"))
	for i := 0; i < max(len(fa), len(fb)); i++ {
		if i < len(fa) {
			evs = append(evs, agui.NewTextMessageContent("ia", fa[i]))
		}
		if i < len(fb) {
			evs = append(evs, agui.NewTextMessageContent("ib", fb[i]))
		}
	}
	evs = append(evs, agui.NewTextMessageEnd("ia"), agui.NewTextMessageEnd("ib"))
	// State: a snapshot, and deltas setting credential members by path.
	var ops []any
	for _, p := range named {
		ops = append(ops, map[string]any{"op": "add", "path": "/config/" + p.kind, "value": p.value})
	}
	ops = append(ops, map[string]any{"op": "replace", "path": "/notes", "value": whole},
		map[string]any{"op": "add", "path": "/auth", "value": fields},
		map[string]any{"value": named[13].value, "op": "add", "path": "/db/password"})
	evs = append(evs,
		agui.NewEvent(agui.StateSnapshot, "snapshot", map[string]any{"creds": fields, "notes": whole}),
		agui.NewEvent(agui.StateDelta, "delta", ops),
		agui.NewEvent(agui.MessagesSnapshot, "messages", []any{map[string]any{"id": "u", "role": "user", "content": whole}}),
		agui.NewEvent(agui.Custom, "name", "env", "value", map[string]any{"env": fields, "log": whole}),
		agui.NewRunFinished("t", "r"),
	)
	return evs
}

// TestNoPlantedCredentialInStreams plants every kind in every place of an
// agent's stream (whole, and cut by exploration's splits) and of its
// request, and finds none in the recordings of the middleware, the
// recording proxy, and the Sink, all at their zero configuration; the
// client gets every byte as sent.
func TestNoPlantedCredentialInStreams(t *testing.T) {
	formats, named := plantedFormats(), plantedNamed()
	all := append(append([]planted(nil), formats...), named...)
	evs := streamOfEverything(formats, named, explorationSplits(t, 40))
	var sent bytes.Buffer
	enc := agui.NewSSEEncoder(&sent)
	for _, e := range evs {
		enc.Encode(e)
	}
	agentH := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(sent.Bytes())
	})
	fields := map[string]any{}
	for _, p := range named {
		fields[p.kind] = p.value
	}
	input, _ := json.Marshal(map[string]any{
		"threadId": "t", "runId": "r",
		"messages":       []any{map[string]any{"id": "u", "role": "user", "content": plantedText(formats)}},
		"forwardedProps": fields,
		"state":          map[string]any{"nested": map[string]any{"credentials": fields}, "notes": plantedText(formats)},
	})
	hdr := http.Header{}
	for _, p := range named[:10] {
		hdr.Set(p.kind, p.value)
	}

	t.Run("middleware", func(t *testing.T) {
		dir := t.TempDir()
		rec := Middleware(agentH, Config{Dir: dir, OnError: func(error) {}})
		srv := httptest.NewServer(rec)
		got := post(t, srv.URL+"/agent?api_key="+url.QueryEscape(named[10].value), string(input), hdr)
		srv.Close()
		rec.Wait()
		if !bytes.Equal(got, sent.Bytes()) {
			t.Error("the client did not get the stream as sent")
		}
		checkRecordings(t, dir, all, evs)
	})
	t.Run("proxy", func(t *testing.T) {
		upstream := httptest.NewServer(agentH)
		defer upstream.Close()
		u, _ := url.Parse(upstream.URL + "/agent")
		dir := t.TempDir()
		rec := Proxy(u, Config{Dir: dir, OnError: func(error) {}})
		srv := httptest.NewServer(rec)
		got := post(t, srv.URL, string(input), hdr)
		srv.Close()
		rec.Wait()
		if !bytes.Equal(got, sent.Bytes()) {
			t.Error("the client did not get the stream as sent")
		}
		checkRecordings(t, dir, all, evs)
	})
	t.Run("sink", func(t *testing.T) {
		var file bytes.Buffer
		w, _ := NewWriter(&file, Header{})
		s := &Sink{Writer: w}
		var in agui.RunAgentInput
		if err := json.Unmarshal(input, &in); err != nil {
			t.Fatal(err)
		}
		if err := s.Request(in, hdr); err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if err := s.Emit(e); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		for _, l := range leaks(file.Bytes(), all) {
			t.Errorf("leaked: %s", l)
		}
		checkStream(t, file.Bytes(), evs)
	})
}

// checkRecordings reads the one recording in dir and checks it for leaks
// and for the stream's shape.
func checkRecordings(t *testing.T, dir string, all []planted, sent []agui.Event) {
	t.Helper()
	runs := readDir(t, dir)
	if len(runs) != 1 {
		t.Fatalf("%d recordings, want 1", len(runs))
	}
	for name := range runs {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range leaks(b, all) {
			t.Errorf("leaked: %s", l)
		}
		checkStream(t, b, sent)
	}
}

// checkStream checks that a recording's events still verify, in the
// stream's order, none lost but the pieces of keys.
func checkStream(t *testing.T, b []byte, sent []agui.Event) {
	t.Helper()
	recs, errs := readAll(t, NewReader(bytes.NewReader(b), "rec"))
	if len(errs) > 0 {
		t.Fatalf("reading the recording: %v", errs)
	}
	var got []agui.Event
	for _, r := range recs {
		if r.Kind == KindEvent {
			e, err := r.EventOf()
			if err != nil {
				t.Fatalf("event record: %v", err)
			}
			got = append(got, e)
		}
	}
	// Only pieces of keys may be missing: every other event is there.
	count := func(evs []agui.Event) map[agui.EventType]int {
		m := map[agui.EventType]int{}
		for _, e := range evs {
			switch e.Type() {
			case agui.TextMessageContent, agui.ToolCallArgs, agui.ReasoningMessageContent, agui.TextMessageChunk:
			default:
				m[e.Type()]++
			}
		}
		return m
	}
	if diff := cmp.Diff(count(sent), count(got)); diff != "" {
		t.Errorf("events recorded by type (-sent +recorded):\n%s", diff)
	}
	v := agui.NewVerifier(agui.Options{})
	var problems []agui.Violation
	for _, e := range got {
		problems = append(problems, v.Push(e)...)
	}
	problems = append(problems, v.Finish()...)
	for _, p := range problems {
		t.Errorf("the recorded stream does not verify: %v", p)
	}
}

// TestNoPlantedCredentialProviderWires: the model streams every kind, in
// text and in a call's arguments, on every wire the scripted server
// speaks, under exploration's plans; what recorder.Transport records holds
// none of them, and the client reads every byte.
func TestNoPlantedCredentialProviderWires(t *testing.T) {
	formats, named := plantedFormats(), plantedNamed()
	all := append(append([]planted(nil), formats...), named...)
	fields := map[string]any{}
	for _, p := range named {
		fields[p.kind] = p.value
	}
	n := 10
	if testing.Short() {
		n = 3
	}
	for i, p := range formats {
		// A subtest a kind, run in parallel: most of an exchange is the
		// wait for the loopback server's stream.
		t.Run(p.kind, func(t *testing.T) {
			t.Parallel()
			plantedProviderWires(t, i, p, n, fields, all)
		})
	}
}

// plantedProviderWires streams the planted credential p, the i-th format,
// on every wire that can carry each of n explored variants of its turn (one
// under -short) and checks that no recording holds a planted value.
func plantedProviderWires(t *testing.T, i int, p planted, n int, fields map[string]any, all []planted) {
	args, _ := json.Marshal(map[string]any{"note": "saved " + p.value})
	turn := scripted.Turn{Text: plantedLane("text", p), Reasoning: "thinking of " + p.value, Calls: []scripted.Call{{Name: "save", Args: string(args)}}}
	if i == 0 {
		fa, _ := json.Marshal(fields)
		turn.Calls = append(turn.Calls, scripted.Call{Name: "login", Args: string(fa)})
	}
	script := scripted.Script{Turns: []scripted.Turn{turn}}
	variants := scripted.Explore(script, scripted.Wires, uint64(i+1), n)
	variants = append(variants, scripted.Variant{Name: "as written", Script: script})
	for vi, v := range variants {
		if testing.Short() && vi != i%len(variants) {
			// One variant a kind, a different one for the next.
			continue
		}
		for _, wire := range scripted.Wires {
			if v.Script.ValidateWire(wire, true) != nil {
				continue
			}
			rec, body := providerExchange(t, v.Script, wire)
			if l := leaks(rec, all); len(l) > 0 {
				t.Errorf("%s on %s under %s: leaked %v", p.kind, wire, v, l)
			}
			if len(body) == 0 {
				t.Errorf("%s on %s: the client read nothing", p.kind, wire)
			}
		}
	}
}

// providerExchange makes one streaming request on wire to a scripted
// server running s, through a Transport, and returns the recording and
// what the client read.
func providerExchange(t *testing.T, s scripted.Script, wire scripted.Wire) (rec, body []byte) {
	t.Helper()
	srv := scripted.NewServer(s)
	defer srv.Close()
	base := strings.TrimSuffix(srv.URL, "/v1")
	var path, req string
	switch wire {
	case scripted.WireChat:
		path, req = "/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	case scripted.WireResponses:
		path, req = "/v1/responses", `{"model":"m","stream":true,"input":"hi"}`
	case scripted.WireAnthropic:
		path, req = "/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	case scripted.WireGemini:
		path, req = "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	case scripted.WireAzureChat:
		path, req = "/openai/deployments/d/chat/completions?api-version=2024-10-21", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	case scripted.WireAzureResponses:
		path, req = "/openai/v1/responses", `{"model":"d","stream":true,"input":"hi"}`
	case scripted.WireVertex:
		path, req = "/v1/projects/p/locations/us-central1/publishers/google/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	case scripted.WireBedrock:
		path, req = "/model/m/converse-stream", `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`
	case scripted.WireOllama:
		path, req = "/api/chat", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	default:
		t.Fatalf("no request for the %s wire", wire)
	}
	var file bytes.Buffer
	w, _ := NewWriter(&file, Header{})
	c := &http.Client{Transport: &Transport{Writer: w}}
	hr, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	// Azure takes a key, Vertex AI a token: the recording holds neither.
	hr.Header.Set("api-key", "planted-azure-key")
	hr.Header.Set("Authorization", "Bearer planted-token")
	resp, err := c.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s: status %d: %s", wire, resp.StatusCode, body)
	}
	for _, h := range []string{"planted-azure-key", "planted-token"} {
		if bytes.Contains(file.Bytes(), []byte(h)) {
			t.Errorf("%s: the recording holds the request's credential header %q", wire, h)
		}
	}
	return file.Bytes(), body
}
