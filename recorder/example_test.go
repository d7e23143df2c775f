package recorder_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/recorder"
)

func ExampleWriter() {
	var file bytes.Buffer
	w, err := recorder.NewWriter(&file, recorder.Header{Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		panic(err)
	}
	w.Write(
		recorder.EventRecord("run-1", 1500*time.Microsecond, agui.NewRunStarted("t", "run-1")),
		recorder.EventRecord("run-1", 2*time.Millisecond, agui.NewRunFinished("t", "run-1")),
		recorder.Record{Kind: recorder.KindEnd, Run: "run-1", Offset: 3 * time.Millisecond,
			End: &recorder.End{Outcome: recorder.OutcomeFinished, Events: 2}},
	)
	fmt.Print(file.String())

	r := recorder.NewReader(&file, "run.jsonl")
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err) // "run.jsonl:LINE: ..."
			continue
		}
		fmt.Println(rec.Line, rec.Kind, rec.Run, rec.Offset)
	}
	// Output:
	// {"kind":"header","format":"aguitest-recording","version":1,"created":"2026-01-01T00:00:00Z"}
	// {"kind":"event","run":"run-1","us":1500,"event":{"type":"RUN_STARTED","threadId":"t","runId":"run-1"}}
	// {"kind":"event","run":"run-1","us":2000,"event":{"type":"RUN_FINISHED","threadId":"t","runId":"run-1"}}
	// {"kind":"end","run":"run-1","us":3000,"end":{"outcome":"finished","bytes":0,"events":2}}
	// 1 header  0s
	// 2 event run-1 1.5ms
	// 3 event run-1 2ms
	// 4 end run-1 3ms
}

func ExampleReader_truncated() {
	// A crash cut the last line short.
	file := `{"kind":"header","format":"aguitest-recording","version":1}
{"kind":"event","run":"r","us":5,"event":{"type":"RUN_STARTED","threadId":"t","runId":"r"}}
{"kind":"event","run":"r","us":9,"event":{"type":"TEXT_MES`
	r := recorder.NewReader(strings.NewReader(file), "crash.jsonl")
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(rec.Kind)
	}
	fmt.Println("truncated:", r.Truncated())
	// Output:
	// header
	// event
	// crash.jsonl:3: recording is truncated: the last line is incomplete
	// truncated: true
}

func ExampleSink() {
	// A virtual clock makes the offsets deterministic: its time moves only
	// when something sleeps on it.
	clk := new(clock.Virtual)
	var file bytes.Buffer
	w, _ := recorder.NewWriter(&file, recorder.Header{})
	sink := &recorder.Sink{Writer: w, Clock: clk}

	// The agent emits its events into the sink, a millisecond apart.
	for _, e := range []agui.Event{
		agui.NewRunStarted("t", "run-7"),
		agui.NewTextMessageStart("m1"),
		agui.NewTextMessageContent("m1", "hello"),
		agui.NewTextMessageEnd("m1"),
		agui.NewRunFinished("t", "run-7"),
	} {
		sink.Emit(e)
		clk.Sleep(context.Background(), time.Millisecond)
	}
	sink.Close()

	for _, r := range sink.Records() {
		if r.Kind == recorder.KindEnd {
			fmt.Println(r.Offset, r.Run, r.End.Outcome, r.End.Events, "events")
			continue
		}
		fmt.Println(r.Offset, string(r.Event))
	}
	// Output:
	// 0s {"type":"RUN_STARTED","threadId":"t","runId":"run-7"}
	// 1ms {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
	// 2ms {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hello"}
	// 3ms {"type":"TEXT_MESSAGE_END","messageId":"m1"}
	// 4ms {"type":"RUN_FINISHED","threadId":"t","runId":"run-7"}
	// 5ms run-7 finished 5 events
}

func ExampleMiddleware() {
	agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w) // flushes after each event
		enc.Encode(agui.NewRunStarted("t", "run-1"))
		enc.Encode(agui.NewRunFinished("t", "run-1"))
	})
	var file bytes.Buffer
	w, _ := recorder.NewWriter(&file, recorder.Header{})
	h := recorder.Middleware(agent, recorder.Config{Writer: w})

	srv := httptest.NewServer(h)
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"threadId":"t","runId":"run-1"}`))
	req.Header.Set("Authorization", "Bearer secret") // never recorded
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.Close()
	h.Wait() // the recording is complete

	fmt.Print(string(body))
	r := recorder.NewReader(&file, "rec")
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		switch rec.Kind {
		case recorder.KindRequest:
			fmt.Println("request", rec.Run, string(rec.Request.Input), "authorization:", rec.Request.Header.Get("Authorization") != "")
		case recorder.KindEvent:
			fmt.Println("event", string(rec.Event))
		case recorder.KindEnd:
			fmt.Println("end", rec.End.Outcome, rec.End.Events, "events,", rec.End.Bytes, "bytes")
		}
	}
	// Output:
	// data: {"type":"RUN_STARTED","threadId":"t","runId":"run-1"}
	//
	// data: {"type":"RUN_FINISHED","threadId":"t","runId":"run-1"}
	//
	// request run-1 {"threadId":"t","runId":"run-1"} authorization: false
	// event {"type":"RUN_STARTED","threadId":"t","runId":"run-1"}
	// event {"type":"RUN_FINISHED","threadId":"t","runId":"run-1"}
	// end finished 2 events, 123 bytes
}

// The zero Redact removes credentials by their names and by their shapes;
// Off turns a default off by name, Keep spares a name, Pointers add rules.
func ExampleRedact() {
	body := []byte(`{"forwardedProps":{"apiKey":"k-123","session":"s-9","user":{"email":"ann@example.com"}},` +
		`"messages":[{"role":"user","content":"my token is ghp_` + strings.Repeat("a1B2", 9) + `"}]}`)
	var rd recorder.Redact
	out, _ := rd.JSON(body)
	fmt.Println(string(out))
	fmt.Println(rd.URL("/agent?key=abc&page=2"))

	rd = recorder.Redact{
		Off:      []recorder.Default{recorder.DefaultGitHub},
		Keep:     []string{"session"},
		Pointers: []string{"/forwardedProps/user/email"},
	}
	out, _ = rd.JSON(body)
	fmt.Println(string(out))
	// Output:
	// {"forwardedProps":{"apiKey":"[REDACTED]","session":"[REDACTED]","user":{"email":"ann@example.com"}},"messages":[{"role":"user","content":"my token is [REDACTED]"}]}
	// /agent?key=[REDACTED]&page=2
	// {"forwardedProps":{"apiKey":"[REDACTED]","session":"s-9","user":{"email":"[REDACTED]"}},"messages":[{"role":"user","content":"my token is ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2"}]}
}

// ParseRules reads a user's own credential formats, written as a gitleaks
// configuration; Redact.Rules applies them with the defaults, to a key
// whole or streamed in pieces.
func ExampleParseRules() {
	rules, err := recorder.ParseRules("my-rules.toml", []byte(`
[[rules]]
id = "acme-key"
regex = '''acme_[0-9a-f]{16}'''
keywords = ["acme_"]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	rd := recorder.Redact{Rules: rules}
	fmt.Println(rd.String("the key is acme_0123456789abcdef, ok"))

	var file strings.Builder
	w, _ := recorder.NewWriter(&file, recorder.Header{})
	s := &recorder.Sink{Run: "r", Writer: w, Redact: rd}
	s.Emit(agui.NewTextMessageStart("m"))
	s.Emit(agui.NewTextMessageContent("m", "the key is acme_0123"))
	s.Emit(agui.NewTextMessageContent("m", "456789abcdef, ok"))
	s.Emit(agui.NewTextMessageEnd("m"))
	s.Close()
	for _, e := range s.Events() {
		fmt.Println(string(e.Raw()))
	}
	_, err = recorder.ParseRules("bad.toml", []byte("[[rules]]\nid = \"x\"\nregex = '('\n"))
	fmt.Println(err)
	// Output:
	// the key is [REDACTED], ok
	// {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"the key is [REDACTED]"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":", ok"}
	// {"type":"TEXT_MESSAGE_END","messageId":"m"}
	// bad.toml: rule "x": error parsing regexp: missing closing ): `(`
}
