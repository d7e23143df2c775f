package agui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sseMsg is an SSEMessage with its data as a string, for comparisons.
type sseMsg struct {
	Event, ID, Data string
	Retry, Line     int
}

func decodeAll(r io.Reader, maxLine int) ([]sseMsg, error) {
	d := NewSSEDecoder(r)
	d.MaxLineSize = maxLine
	var got []sseMsg
	for {
		m, err := d.Next()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, sseMsg{m.Event, m.ID, string(m.Data), m.Retry, m.Line})
	}
}

var sseCases = []struct {
	name string
	in   string
	want []sseMsg
}{
	{"lf", "data: a\n\ndata: b\n\n", []sseMsg{{"", "", "a", -1, 1}, {"", "", "b", -1, 3}}},
	{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []sseMsg{{"", "", "a", -1, 1}, {"", "", "b", -1, 3}}},
	{"cr", "data: a\r\rdata: b\r\r", []sseMsg{{"", "", "a", -1, 1}, {"", "", "b", -1, 3}}},
	{"mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", []sseMsg{{"", "", "a\nb\nc", -1, 1}}},
	{"bom", "\xEF\xBB\xBFdata: a\n\n", []sseMsg{{"", "", "a", -1, 1}}},
	{"bom only at start", "data: a\n\n\xEF\xBB\xBFdata: b\n\n", []sseMsg{{"", "", "a", -1, 1}}},
	{"no space", "data:a\n\n", []sseMsg{{"", "", "a", -1, 1}}},
	{"one space stripped", "data:  a \n\n", []sseMsg{{"", "", " a ", -1, 1}}},
	{"tab kept", "data:\ta\n\n", []sseMsg{{"", "", "\ta", -1, 1}}},
	{"lines joined", "data: a\ndata:\ndata: b\n\n", []sseMsg{{"", "", "a\n\nb", -1, 1}}},
	{"comments", ": hi\ndata: a\n: there\n\n:\n\n", []sseMsg{{"", "", "a", -1, 2}}},
	{"event name", "event: add\ndata: 1\n\ndata: 2\n\n", []sseMsg{{"add", "", "1", -1, 1}, {"", "", "2", -1, 4}}},
	{"id persists", "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n", []sseMsg{{"", "7", "a", -1, 1}, {"", "7", "b", -1, 4}, {"", "", "c", -1, 6}}},
	{"id with nul ignored", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", []sseMsg{{"", "1", "a", -1, 1}, {"", "1", "b", -1, 4}}},
	{"retry", "retry: 3000\ndata: a\n\ndata: b\n\n", []sseMsg{{"", "", "a", 3000, 1}, {"", "", "b", -1, 4}}},
	{"retry not digits", "retry: 30s\ndata: a\n\nretry: -1\ndata: b\n\nretry:\ndata: c\n\n", []sseMsg{{"", "", "a", -1, 1}, {"", "", "b", -1, 4}, {"", "", "c", -1, 7}}},
	{"field without colon", "data\n\n", []sseMsg{{"", "", "", -1, 1}}},
	{"empty data dispatches", "data:\n\n", []sseMsg{{"", "", "", -1, 1}}},
	{"unknown fields", "foo: bar\ndata: a\nDATA: b\n data: c\n\n", []sseMsg{{"", "", "a", -1, 1}}},
	{"no data no dispatch", "event: x\nid: 1\n\ndata: a\n\n", []sseMsg{{"", "1", "a", -1, 4}}},
	{"event name reset", "event: x\n\ndata: a\n\n", []sseMsg{{"", "", "a", -1, 3}}},
	{"final event without blank line", "data: a\n\ndata: b", []sseMsg{{"", "", "a", -1, 1}, {"", "", "b", -1, 3}}},
	{"final event with one line end", "data: a\n", []sseMsg{{"", "", "a", -1, 1}}},
	{"blank lines before", "\n\n\r\ndata: a\n\n", []sseMsg{{"", "", "a", -1, 4}}},
	{"colon in value", "data: a: b\n\n", []sseMsg{{"", "", "a: b", -1, 1}}},
	{"empty", "", nil},
	{"only comments", ": a\n: b", nil},
}

func TestSSEDecode(t *testing.T) {
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"data with EOF", iotest.DataErrReader},
	}
	for _, tc := range sseCases {
		for _, rd := range readers {
			t.Run(tc.name+"/"+rd.name, func(t *testing.T) {
				got, err := decodeAll(rd.wrap(strings.NewReader(tc.in)), 0)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// splitReader returns its chunks one per Read.
type splitReader struct{ chunks []string }

func (r *splitReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	if r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

func TestSSEDecodeCRLFAcrossReads(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []sseMsg
	}{
		{"crlf split", []string{"data: a\r", "\n\r", "\ndata: b\r\n\r\n"}, []sseMsg{{"", "", "a", -1, 1}, {"", "", "b", -1, 3}}},
		{"cr then cr", []string{"data: a\r", "\rdata: b\r", "\r"}, []sseMsg{{"", "", "a", -1, 1}, {"", "", "b", -1, 3}}},
		{"cr then data", []string{"data: a\r", "data: b\n\n"}, []sseMsg{{"", "", "a\nb", -1, 1}}},
		{"bom split", []string{"\xEF", "\xBB", "\xBFdata: a\n\n"}, []sseMsg{{"", "", "a", -1, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAll(&splitReader{chunks: tc.chunks}, 0)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSSEDecodeMaxLineSize(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		want    []sseMsg
		wantErr string
	}{
		{"at limit", "data: 12\n\n", 8, []sseMsg{{"", "", "12", -1, 1}}, ""},
		{"at limit unterminated", "data: 12", 8, []sseMsg{{"", "", "12", -1, 1}}, ""},
		{"over limit", "data: a\n\ndata: 123\n\n", 8, []sseMsg{{"", "", "a", -1, 1}}, "line 3: line too long: more than 8 bytes"},
		{"over limit unterminated", "data: a\n\n: comment", 8, []sseMsg{{"", "", "a", -1, 1}}, "line 3: line too long: more than 8 bytes"},
		{"over limit cr", "data: 123\r\r", 8, nil, "line 1: line too long: more than 8 bytes"},
		{"data over limit", "data:1234\ndata:1234\ndata:1234\n\n", 9, nil, "line 3: line too long: the event's data is over 9 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, wrap := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader} {
				got, err := decodeAll(wrap(strings.NewReader(tc.in)), tc.max)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
				if tc.wantErr == "" {
					if err != nil {
						t.Errorf("got error %v, want none", err)
					}
					continue
				}
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("got error %v, want %q", err, tc.wantErr)
				}
				if !errors.Is(err, ErrLineTooLong) {
					t.Errorf("error %v does not wrap ErrLineTooLong", err)
				}
			}
		})
	}
}

// A line far over the limit must fail without buffering it whole.
func TestSSEDecodeBoundedBuffer(t *testing.T) {
	d := NewSSEDecoder(io.MultiReader(strings.NewReader("data: "), infiniteReader{}))
	d.MaxLineSize = 1 << 16
	_, err := d.Next()
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("got error %v, want ErrLineTooLong", err)
	}
	if len(d.buf) > d.MaxLineSize+1 {
		t.Errorf("buffer grew to %d bytes, want at most %d", len(d.buf), d.MaxLineSize+1)
	}
}

type infiniteReader struct{}

func (infiniteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

type stuckReader struct{}

func (stuckReader) Read([]byte) (int, error) { return 0, nil }

func TestSSEDecodeNoProgress(t *testing.T) {
	_, err := NewSSEDecoder(stuckReader{}).Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("got error %v, want io.ErrNoProgress", err)
	}
}

func TestSSEDecodeReadError(t *testing.T) {
	boom := errors.New("boom")
	d := NewSSEDecoder(io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)))
	if m, err := d.Next(); err != nil || string(m.Data) != "a" {
		t.Fatalf("got %q, %v; want \"a\", nil", m.Data, err)
	}
	for range 2 {
		if _, err := d.Next(); !errors.Is(err, boom) {
			t.Errorf("got error %v, want boom", err)
		}
	}
}

func TestSSENextEvent(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []EventType
		wantErr string
	}{
		{"events", "data: {\"type\":\"RUN_STARTED\"}\n\nevent: x\ndata: {\"type\":\"RUN_FINISHED\"}\n\n", []EventType{RunStarted, RunFinished}, ""},
		{"multi-line json", "data: {\"type\":\ndata: \"RUN_STARTED\"}\n\n", []EventType{RunStarted}, ""},
		{"bad json", "data: {\"type\":\"RUN_STARTED\"}\n\n: note\n\ndata: {\"type\" 1}\n\n", []EventType{RunStarted}, "line 5: invalid JSON at byte 8: "},
		{"no type", "data: {\"a\":1}\n\n", nil, "line 1: " + ErrNoType.Error()},
		{"truncated", "data: {\"type\":\"RUN_STARTED\"}\n\ndata: {\"type\":\"RUN_", []EventType{RunStarted}, "line 3: truncated: the input ends inside this event: invalid JSON at byte 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewSSEDecoder(strings.NewReader(tc.in))
			var got []EventType
			var err error
			for {
				var e Event
				e, err = d.NextEvent()
				if err != nil {
					break
				}
				got = append(got, e.Type())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("types (-want +got):\n%s", diff)
			}
			if tc.wantErr == "" {
				if err != io.EOF {
					t.Errorf("got error %v, want io.EOF", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("got error %v, want prefix %q", err, tc.wantErr)
			}
		})
	}
}

// NextEvent's events must not share the decoder's reused buffer.
func TestSSENextEventOwnsBytes(t *testing.T) {
	d := NewSSEDecoder(strings.NewReader("data: {\"type\":\"RUN_STARTED\",\"runId\":\"r1\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"runId\":\"r2\"}\n\n"))
	e1, err := d.NextEvent()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.NextEvent(); err != nil {
		t.Fatal(err)
	}
	if got, want := string(e1.Raw()), `{"type":"RUN_STARTED","runId":"r1"}`; got != want {
		t.Errorf("first event is now %s, want %s", got, want)
	}
}

func TestSSEEncode(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string // on the wire
		back string // Raw after decoding
	}{
		{"one line", `{"type":"RUN_STARTED"}`, "data: {\"type\":\"RUN_STARTED\"}\n\n", `{"type":"RUN_STARTED"}`},
		{"lf", "{\"type\":\n\"RUN_STARTED\"}", "data: {\"type\":\ndata: \"RUN_STARTED\"}\n\n", "{\"type\":\n\"RUN_STARTED\"}"},
		{"crlf", "{\r\n\"type\":\"RUN_STARTED\"}", "data: {\ndata: \"type\":\"RUN_STARTED\"}\n\n", "{\n\"type\":\"RUN_STARTED\"}"},
		{"cr", "{\r\"type\":\"RUN_STARTED\"\r}", "data: {\ndata: \"type\":\"RUN_STARTED\"\ndata: }\n\n", "{\n\"type\":\"RUN_STARTED\"\n}"},
		{"spaces kept", `{ "type" : "RUN_STARTED" }`, "data: { \"type\" : \"RUN_STARTED\" }\n\n", `{ "type" : "RUN_STARTED" }`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := ParseEvent([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := NewSSEEncoder(&b).Encode(e); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("wire: got %q, want %q", got, tc.want)
			}
			back, err := NewSSEDecoder(&b).NextEvent()
			if err != nil {
				t.Fatal(err)
			}
			if got := string(back.Raw()); got != tc.back {
				t.Errorf("decoded: got %q, want %q", got, tc.back)
			}
		})
	}
}

func TestSSEEncodeMessage(t *testing.T) {
	tests := []struct {
		name    string
		m       SSEMessage
		want    string
		wantErr bool
	}{
		{"all fields", SSEMessage{Event: "ev", ID: "7", Retry: 100, Data: []byte("a\nb")}, "event: ev\nid: 7\nretry: 100\ndata: a\ndata: b\n\n", false},
		{"data only", SSEMessage{Retry: -1, Data: []byte(" x")}, "data:  x\n\n", false},
		{"empty data", SSEMessage{Retry: -1}, "data: \n\n", false},
		{"bad name", SSEMessage{Event: "a\nb", Retry: -1}, "", true},
		{"bad id", SSEMessage{ID: "a\x00", Retry: -1}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := NewSSEEncoder(&b).EncodeMessage(tc.m)
			if (err != nil) != tc.wantErr {
				t.Fatalf("got error %v, want error: %v", err, tc.wantErr)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSSEWriteComment(t *testing.T) {
	var b bytes.Buffer
	enc := NewSSEEncoder(&b)
	if err := enc.WriteComment("keep-alive\nping"); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(NewEvent(RunStarted)); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), ": keep-alive\n: ping\n\ndata: {\"type\":\"RUN_STARTED\"}\n\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got, err := decodeAll(&b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []sseMsg{{"", "", `{"type":"RUN_STARTED"}`, -1, 4}}; !cmp.Equal(want, got) {
		t.Errorf("decoded (-want +got):\n%s", cmp.Diff(want, got))
	}
}

type flushCounter struct {
	bytes.Buffer
	flushes int
}

func (f *flushCounter) Flush() error { f.flushes++; return nil }

func TestSSEEncoderFlushes(t *testing.T) {
	var w flushCounter
	enc := NewSSEEncoder(&w)
	for range 3 {
		if err := enc.Encode(NewEvent(RunStarted)); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.WriteComment(""); err != nil {
		t.Fatal(err)
	}
	if w.flushes != 4 {
		t.Errorf("got %d flushes, want 4", w.flushes)
	}
}

// Each event must reach the client before the handler writes the next: the
// handler waits for the client to acknowledge every event it reads.
func TestSSEEncoderHTTPFlush(t *testing.T) {
	const n = 5
	ack := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		enc := NewSSEEncoder(w)
		for i := range n {
			if err := enc.Encode(NewEvent(TextMessageContent, "messageId", "m", "delta", string(rune('a'+i)))); err != nil {
				t.Errorf("encode %d: %v", i, err)
				return
			}
			select {
			case <-ack:
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	// The deadline only turns a missing flush into a failure instead of a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	d := NewSSEDecoder(resp.Body)
	for i := range n {
		e, err := d.NextEvent()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if got, want := e.Delta(), string(rune('a'+i)); got != want {
			t.Errorf("event %d: got delta %q, want %q", i, got, want)
		}
		ack <- struct{}{}
	}
	if _, err := d.NextEvent(); err != io.EOF {
		t.Errorf("after the last event: got %v, want io.EOF", err)
	}
}

// benchStream is about 4 MiB of a sample event stream.
func benchStream(b *testing.B) []byte {
	b.Helper()
	sample, err := os.ReadFile("testdata/streams/parallel.sse")
	if err != nil {
		b.Fatal(err)
	}
	var stream []byte
	for len(stream) < 4<<20 {
		stream = append(stream, sample...)
	}
	return stream
}

func BenchmarkSSEDecode(b *testing.B) {
	stream := benchStream(b)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewSSEDecoder(bytes.NewReader(stream))
		for {
			if _, err := d.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

func TestSSEEncodeMessageIDs(t *testing.T) {
	var b bytes.Buffer
	enc := NewSSEEncoder(&b)
	for _, id := range []string{"", "1", "1", "", "2"} {
		if err := enc.EncodeMessage(SSEMessage{ID: id, Retry: -1, Data: []byte(id)}); err != nil {
			t.Fatal(err)
		}
	}
	want := "data: \n\nid: 1\ndata: 1\n\ndata: 1\n\nid: \ndata: \n\nid: 2\ndata: 2\n\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got, err := decodeAll(&b, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	if diff := cmp.Diff([]string{"", "1", "1", "", "2"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func BenchmarkSSEDecodeEvents(b *testing.B) {
	stream := benchStream(b)
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		d := NewSSEDecoder(bytes.NewReader(stream))
		for {
			if _, err := d.NextEvent(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

func ExampleSSEDecoder() {
	stream := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\n\n" +
		": keep-alive\n\n" +
		"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\n" // no blank line: still delivered
	d := NewSSEDecoder(strings.NewReader(stream))
	for {
		e, err := d.NextEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(e.Type(), e.RunID())
	}
	// Output:
	// RUN_STARTED r1
	// RUN_FINISHED r1
}

// A recorder or a proxy sees a stream in the pieces it was written in;
// an event cut between two writes comes out whole.
func ExampleSSEParser() {
	var p SSEParser
	emit := func(m SSEMessage) { fmt.Printf("line %d: %s\n", m.Line, m.Data) }
	for _, write := range []string{
		"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",",
		"\"runId\":\"r1\"}\r\n\r\n: keep-alive\n\n",
		"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t1\",\"runId\":\"r1\"}",
	} {
		p.Feed([]byte(write), emit)
	}
	p.End(emit) // the last event had no blank line after it
	// Output:
	// line 1: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	// line 5: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
}

func ExampleSSEEncoder() {
	var w strings.Builder
	enc := NewSSEEncoder(&w) // an http.ResponseWriter is flushed after each event
	enc.Encode(NewEvent(RunStarted, "threadId", "t1", "runId", "r1"))
	enc.WriteComment("keep-alive")
	fmt.Print(w.String())
	// Output:
	// data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	//
	// : keep-alive
}
