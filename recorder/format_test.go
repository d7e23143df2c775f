package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aguitest/aguitest/agui"
)

// readAll reads every record, collecting errors instead of stopping.
func readAll(t *testing.T, r *Reader) (recs []Record, errs []error) {
	t.Helper()
	for i := 0; i < 1_000_000; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, errs
		}
		if err != nil {
			errs = append(errs, err)
			if r.Err() != nil {
				return recs, errs
			}
			continue
		}
		recs = append(recs, rec)
	}
	t.Fatal("reader does not end")
	return nil, nil
}

func TestWriterReaderRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	// Bytes that encoding/json would change: spacing, HTML characters,
	// escapes, key order.
	ev := json.RawMessage(`{ "type":"TEXT_MESSAGE_CONTENT", "messageId":"m<1>","delta":"a\u0026b \"q\" é" }`)
	multi := "{\"type\":\"RUN_STARTED\",\n\"threadId\":\"t\",\"runId\":\"r\"}"
	recs := []Record{
		{Kind: KindRequest, Run: "r", Request: &Request{Method: "POST", Path: "/agent", Input: json.RawMessage(`{"threadId":"t","runId":"r"}`)}},
		{Kind: KindEvent, Run: "r", Offset: 1500 * time.Microsecond, Event: ev},
		{Kind: KindEvent, Run: "r", Offset: 2 * time.Millisecond, Data: multi},
		{Kind: KindEvent, Run: "r", Offset: 3 * time.Millisecond, Data: "not json"},
		{Kind: KindProvider, Run: "r", Offset: 4 * time.Millisecond, Exchange: &Exchange{Method: "POST", URL: "http://x/v1", Status: 200,
			Chunks: []Chunk{{Offset: time.Millisecond, Data: []byte("data: {}\n\n")}, {Offset: 2 * time.Millisecond, Data: []byte{0xff, 0}}}}},
		{Kind: KindEnd, Run: "r", Offset: 5 * time.Millisecond, End: &End{Outcome: OutcomeFinished, Status: 200, Bytes: 10, Events: 3}},
	}
	if err := w.Write(recs...); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(recs)+1 {
		t.Fatalf("got %d lines, want %d:\n%s", n, len(recs)+1, buf.String())
	}
	r := NewReader(bytes.NewReader(buf.Bytes()), "rec.jsonl")
	got, errs := readAll(t, r)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(got) != len(recs)+1 {
		t.Fatalf("got %d records, want %d", len(got), len(recs)+1)
	}
	if h := got[0].Header; h == nil || h.Version != Version || h.Format != Format || h.Source != "test" {
		t.Errorf("header = %+v", h)
	}
	if !bytes.Equal(got[2].Event, ev) {
		t.Errorf("event bytes changed:\ngot  %s\nwant %s", got[2].Event, ev)
	}
	if got[2].Offset != 1500*time.Microsecond || got[2].Line != 3 {
		t.Errorf("offset %v line %d, want 1.5ms line 3", got[2].Offset, got[2].Line)
	}
	if got[3].Data != multi {
		t.Errorf("multi-line event: got %q", got[3].Data)
	}
	if e, err := got[3].EventOf(); err != nil || e.Type() != agui.RunStarted {
		t.Errorf("EventOf = %v, %v", e, err)
	}
	if got[4].Data != "not json" {
		t.Errorf("data: got %q", got[4].Data)
	}
	ex := got[5].Exchange
	if ex == nil || len(ex.Chunks) != 2 || string(ex.Chunks[0].Data) != "data: {}\n\n" || !bytes.Equal(ex.Chunks[1].Data, []byte{0xff, 0}) || ex.Chunks[1].Offset != 2*time.Millisecond {
		t.Errorf("exchange = %+v", ex)
	}
	if e := got[6].End; e == nil || e.Outcome != OutcomeFinished || e.Events != 3 {
		t.Errorf("end = %+v", e)
	}
}

func TestReaderBadInput(t *testing.T) {
	const header = `{"kind":"header","format":"aguitest-recording","version":1}` + "\n"
	const ev = `{"kind":"event","run":"r","us":5,"event":{"type":"RUN_STARTED","threadId":"t","runId":"r"}}`
	tests := []struct {
		name      string
		in        string
		wantRecs  int
		wantErrs  []string
		truncated bool
		unknown   int
	}{
		{name: "ok", in: header + ev + "\n", wantRecs: 2},
		{name: "cut last line", in: header + ev + "\n" + ev[:30], wantRecs: 2, wantErrs: []string{"f:3: recording is truncated"}, truncated: true},
		{name: "complete last line without newline", in: header + ev, wantRecs: 2},
		{name: "corrupt line is reported and skipped", in: header + "{nope\n" + ev + "\n", wantRecs: 2, wantErrs: []string{"f:2: invalid record"}},
		{name: "event that is not an event", in: header + `{"kind":"event","run":"r","event":[1]}` + "\n", wantRecs: 1, wantErrs: []string{"f:2: invalid record"}},
		{name: "record without kind", in: header + `{"run":"r"}` + "\n", wantRecs: 1, wantErrs: []string{`f:2: invalid record: record has no "kind" field`}},
		{name: "unknown kind kept", in: header + `{"kind":"annotation","run":"r","note":"hi"}` + "\n" + ev + "\n", wantRecs: 3, unknown: 1},
		{name: "future version", in: `{"kind":"header","format":"aguitest-recording","version":7}` + "\n" + ev + "\n",
			wantErrs: []string{"f:1: recording format version 7 is newer than this aguitest (supports 1)"}},
		{name: "not a recording", in: ev + "\n", wantErrs: []string{"f:1: not an aguitest recording"}},
		{name: "empty", in: "", wantErrs: []string{"f:1: not an aguitest recording"}},
		{name: "cut header", in: header[:20], wantErrs: []string{"f:1: recording is truncated"}, truncated: true},
		{name: "blank lines skipped", in: header + "\n\n" + ev + "\n", wantRecs: 2},
		{name: "CRLF", in: strings.ReplaceAll(header+ev+"\n", "\n", "\r\n"), wantRecs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in), "f")
			recs, errs := readAll(t, r)
			if len(recs) != tt.wantRecs {
				t.Errorf("got %d records, want %d", len(recs), tt.wantRecs)
			}
			if len(errs) != len(tt.wantErrs) {
				t.Fatalf("got errors %v, want %q", errs, tt.wantErrs)
			}
			for i, want := range tt.wantErrs {
				if !strings.HasPrefix(errs[i].Error(), want) {
					t.Errorf("error %d = %q, want prefix %q", i, errs[i], want)
				}
			}
			if r.Truncated() != tt.truncated {
				t.Errorf("Truncated() = %v, want %v", r.Truncated(), tt.truncated)
			}
			if r.Unknown() != tt.unknown {
				t.Errorf("Unknown() = %d, want %d", r.Unknown(), tt.unknown)
			}
		})
	}
}

func TestReaderLineTooLong(t *testing.T) {
	const header = `{"kind":"header","format":"aguitest-recording","version":1}` + "\n"
	long := `{"kind":"event","run":"r","data":"` + strings.Repeat("x", 300) + `"}` + "\n"
	ev := `{"kind":"end","run":"r","end":{"outcome":"finished","bytes":0,"events":0}}` + "\n"
	r := NewReader(strings.NewReader(header+long+ev), "f")
	r.MaxLineSize = 200
	recs, errs := readAll(t, r)
	if len(recs) != 2 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "f:2: record longer than 200 bytes") {
		t.Errorf("got %d records, errors %v", len(recs), errs)
	}
}

func TestUnknownKindWrittenBack(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{})
	raw := json.RawMessage(`{"kind":"note","run":"r","text":"x"}`)
	if err := w.Write(Record{Kind: "note", Raw: raw}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(buf.String(), string(raw)+"\n") {
		t.Errorf("got %q", buf.String())
	}
}

func TestIsRecording(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{"kind":"header","format":"aguitest-recording","version":1}` + "\n{", true},
		{`{"kind":"header","format":"aguitest-recording","version":9}`, true},
		{`{"type":"RUN_STARTED"}`, false},
		{"data: {}\n\n", false},
	} {
		if got := IsRecording([]byte(tt.in)); got != tt.want {
			t.Errorf("IsRecording(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestReaderAllocs: reading a long recording costs no allocation per event
// record in steady state (the events' bytes are cut from blocks, a run's
// records share its id).
func TestReaderAllocs(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{})
	if err != nil {
		t.Fatal(err)
	}
	const records = 3000
	for i := range records {
		run := fmt.Sprintf("run-%d", i/100)
		e := agui.NewTextMessageContent("m", fmt.Sprintf("word %d ", i))
		if err := w.Write(Record{Kind: KindEvent, Run: run, Event: e.Raw()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	allocs := testing.AllocsPerRun(3, func() {
		r := NewReader(bytes.NewReader(data), "r")
		n := 0
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Kind == KindEvent {
				n++
			}
		}
		if n != records {
			t.Fatalf("%d event records, want %d", n, records)
		}
	})
	if perRecord := allocs / records; perRecord > 0.1 {
		t.Errorf("%.0f allocations for %d records (%.2f per record), want well under 1", allocs, records, perRecord)
	}
}
