package agui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func rawStrings(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, string(e.Raw()))
	}
	return out
}

func TestReadSampleStreams(t *testing.T) {
	want, err := os.ReadFile("testdata/streams/simple.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	wantRaw := strings.Split(strings.TrimSpace(string(want)), "\n")
	seq := func(first, step int) []int {
		var out []int
		for i := range wantRaw {
			out = append(out, first+i*step)
		}
		return out
	}
	tests := []struct {
		file      string
		format    string
		wantLines []int
	}{
		{"simple.jsonl", FormatJSONL, seq(1, 1)},
		{"simple.json", FormatJSON, seq(2, 1)},
		{"simple.sse", FormatSSE, seq(1, 2)},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata/streams", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := NewReader(f, tc.file)
			var got []Event
			var lines []int
			for {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, e)
				lines = append(lines, r.Line())
			}
			if diff := cmp.Diff(wantRaw, rawStrings(got)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantLines, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if got := r.Format(); got != tc.format {
				t.Errorf("got format %q, want %q", got, tc.format)
			}
		})
	}
}

func TestReadParallelSample(t *testing.T) {
	f, err := os.Open("testdata/streams/parallel.sse")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := ReadEvents(f)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]string{}
	for _, e := range events {
		if e.Type() == ToolCallArgs {
			args[e.ToolCallID()] += e.Delta()
		}
	}
	want := map[string]string{"call_p": `{"city":"Paris"}`, "call_o": `{"city":"Oslo"}`}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
}

func TestReadFormats(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		format    string
		want      []string
		wantLines []int
	}{
		{"empty", "", "", nil, nil},
		{"white space only", " \n\t\n", "", nil, nil},
		{"jsonl blank lines and crlf", "\n{\"type\":\"A\"}\r\n\r\n  {\"type\":\"B\"} \n", FormatJSONL, []string{`{"type":"A"}`, `{"type":"B"}`}, []int{2, 4}},
		{"jsonl no final newline", `{"type":"A"}`, FormatJSONL, []string{`{"type":"A"}`}, []int{1}},
		{"jsonl bom", "\xEF\xBB\xBF{\"type\":\"A\"}\n", FormatJSONL, []string{`{"type":"A"}`}, []int{1}},
		{"json empty array", " [ ] \n", FormatJSON, nil, nil},
		{"json compact", `[{"type":"A"},{"type":"B"}]`, FormatJSON, []string{`{"type":"A"}`, `{"type":"B"}`}, []int{1, 1}},
		{"json pretty", "\n[\n  {\n    \"type\": \"A\",\n    \"s\": \"]},\\\"[{\"\n  },\n  {\"type\":\"B\"}\n]\n", FormatJSON,
			[]string{"{\n    \"type\": \"A\",\n    \"s\": \"]},\\\"[{\"\n  }", `{"type":"B"}`}, []int{3, 7}},
		{"json bom", "\xEF\xBB\xBF[{\"type\":\"A\"}]", FormatJSON, []string{`{"type":"A"}`}, []int{1}},
		{"sse", ": hi\n\ndata: {\"type\":\"A\"}\n\ndata: {\"type\":\"B\"}", FormatSSE, []string{`{"type":"A"}`, `{"type":"B"}`}, []int{3, 5}},
		{"sse leading blank lines", "\n\n\nevent: x\ndata: {\"type\":\"A\"}\n\n", FormatSSE, []string{`{"type":"A"}`}, []int{4}},
		{"sse bom", "\xEF\xBB\xBFdata: {\"type\":\"A\"}\n\n", FormatSSE, []string{`{"type":"A"}`}, []int{1}},
	}
	for _, tc := range tests {
		for _, oneByte := range []bool{false, true} {
			name := tc.name
			var src io.Reader = strings.NewReader(tc.in)
			if oneByte {
				name += "/one byte"
				src = iotest.OneByteReader(src)
			}
			t.Run(name, func(t *testing.T) {
				r := NewReader(src, "s")
				var got []string
				var lines []int
				for {
					e, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(e.Raw()))
					lines = append(lines, r.Line())
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantLines, lines); diff != "" {
					t.Errorf("lines (-want +got):\n%s", diff)
				}
				if got := r.Format(); got != tc.format {
					t.Errorf("got format %q, want %q", got, tc.format)
				}
			})
		}
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		events  int    // events read before the error
		wantErr string // prefix of the error text
	}{
		{"jsonl bad json", "{\"type\":\"A\"}\n\n{\"type\" 1}\n", 0, 1, "s:3: invalid JSON at byte 8"},
		{"jsonl truncated", "{\"type\":\"A\"}\n{\"type\":\"RU", 0, 1, "s:2: truncated: the input ends inside this event: invalid JSON"},
		{"jsonl not an object", "{\"type\":\"A\"}\n[1]\n", 0, 1, "s:2: frame 2: frame-object: Invalid event: the frame is not a JSON object"},
		{"jsonl no type", "{\"type\":\"A\"}\n{\"type\":1}\n", 0, 1, `s:2: frame 2: frame-type: Invalid event: the frame carries no event type`},
		{"jsonl bad utf-8", "{\"type\":\"A\xff\"}\n", 0, 0, "s:1: invalid JSON at byte"},
		{"jsonl line too long", "{\"type\":\"A\"}\n{\"type\":\"ABCDEFGH\"}\n", 16, 1, "s:2: line too long: more than 16 bytes"},
		{"json not an object", "[\n{\"type\":\"A\"},\n 1\n]", 0, 1, "s:3: frame 2: frame-object: Invalid event: the frame is not a JSON object"},
		{"json string element", `[{"type":"A"},"x"]`, 0, 1, "s:1: frame 2: frame-object: Invalid event: the frame is not a JSON object"},
		{"json no type", "[\n{\"type\":\"A\"},\n{\"t\":1}]", 0, 1, `s:3: frame 2: frame-type: Invalid event: the frame carries no event type`},
		{"json error line inside element", "[{\"type\":\"A\"},\n{\n\"type\":\"B\",\n\"x\": tru\n}]", 0, 1, "s:4: element 1: invalid JSON"},
		{"json truncated element", "[{\"type\":\"A\"},\n{\"type\":\"B", 0, 1, "s:2: element 1: truncated: the input ends inside this element"},
		{"json truncated before ]", "[{\"type\":\"A\"},\n{\"type\":\"B\"}\n", 0, 2, "s:3: element 2: truncated: the input ends before the array's closing ]"},
		{"json truncated after [", "[", 0, 0, "s:1: element 0: truncated"},
		{"json truncated after comma", "[{\"type\":\"A\"},", 0, 1, "s:1: element 1: truncated"},
		{"json trailing comma", "[{\"type\":\"A\"},\n]", 0, 1, "s:2: element 1: trailing comma before ]"},
		{"json missing comma", "[{\"type\":\"A\"} {\"type\":\"B\"}]", 0, 1, "s:1: element 1: expected , or ] after element 0, found '{'"},
		{"json leading comma", "[,{\"type\":\"A\"}]", 0, 0, "s:1: element 0: unexpected ','"},
		{"json data after array", "[{\"type\":\"A\"}]\n\n{}", 0, 1, "s:3: element 1: unexpected '{' after the array's closing ]"},
		{"json bad utf-8", "[{\"type\":\"\xff\"}]", 0, 0, "s:1: element 0: invalid JSON"},
		{"json element too long", "[{\"type\":\"A\"},{\"type\":\"ABCDEFGHIJ\"}]", 16, 1, "s:1: element 1: element longer than 16 bytes"},
		{"sse bad json", "data: {\"type\":\"A\"}\n\n: c\n\ndata: {\"type\":}\n\n", 0, 1, "s:5: frame 2: frame-json: the frame's data is not JSON (invalid JSON at byte"},
		{"sse truncated", "data: {\"type\":\"A\"}\n\ndata: {\"ty", 0, 1, "s:3: frame 2: frame-json: truncated: the input ends inside this event: the frame's data is not JSON (invalid JSON"},
		{"sse line too long", "data: {\"type\":\"A\"}\n\ndata: {\"type\":\"ABCDEFGHIJ\"}\n\n", 20, 1, "s:3: line too long: more than 20 bytes"},
		{"sse not json", "event: ping\ndata: hello\n\n", 0, 0, "s:1: frame 1: frame-json: the frame's data is not JSON (invalid JSON at byte 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in), "s")
			r.MaxLineSize = tc.max
			n := 0
			var err error
			for {
				if _, err = r.Next(); err != nil {
					break
				}
				n++
			}
			if n != tc.events {
				t.Errorf("got %d events before the error, want %d", n, tc.events)
			}
			if err == io.EOF || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Fatalf("got error %v, want prefix %q", err, tc.wantErr)
			}
			var fe *FrameError
			if errors.As(err, &fe) {
				// The client cannot read this frame; the stream goes on.
				if _, again := r.Next(); again == err {
					t.Errorf("second call: got the same frame error again")
				}
				return
			}
			var re *ReadError
			if !errors.As(err, &re) {
				t.Errorf("error %T is not a *ReadError", err)
			}
			if _, again := r.Next(); again != err {
				t.Errorf("second call: got %v, want the same error", again)
			}
		})
	}
}

func TestReadEventsErrorWithoutName(t *testing.T) {
	events, err := ReadEvents(strings.NewReader("{\"type\":\"A\"}\n{\"type\"\n"))
	if len(events) != 1 {
		t.Errorf("got %d events, want 1", len(events))
	}
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: ") {
		t.Errorf("got error %v, want prefix %q", err, "line 2: ")
	}
}

func TestReadUnderlyingError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("{\"type\":\"A\"}\n"), iotest.ErrReader(boom)), "s")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	if !errors.Is(err, boom) {
		t.Errorf("got error %v, want boom", err)
	}
}

func BenchmarkReadJSON(b *testing.B) {
	sample, err := os.ReadFile("testdata/streams/simple.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(sample)), "\n")
	var sb strings.Builder
	sb.WriteString("[\n")
	for sb.Len() < 4<<20 {
		for _, l := range lines {
			sb.WriteString(l)
			sb.WriteString(",\n")
		}
	}
	sb.WriteString(lines[0] + "\n]\n")
	stream := sb.String()
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		r := NewReader(strings.NewReader(stream), "bench")
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

func ExampleReader() {
	in := "[\n  {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\"},\n  42,\n  {\"type\":\"RUN_FINISHED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\n]\n"
	r := NewReader(strings.NewReader(in), "run.json")
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		var fe *FrameError
		if errors.As(err, &fe) {
			fmt.Println(fe) // no event the client can read: the stream goes on
			continue
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Printf("run.json:%d: %s (format %s)\n", r.Line(), e.Type(), r.Format())
	}
	// Output:
	// run.json:2: RUN_STARTED (format json)
	// run.json:3: frame 2: frame-object: Invalid event: the frame is not a JSON object: "42"
	// run.json:4: RUN_FINISHED (format json)
}

// TestReaderChunkingIndependent: the same bytes give the same events and
// errors however the reads are cut (a whole-buffer read once gave 0 events
// and a byte-by-byte read 1 for the stream below).
func TestReaderChunkingIndependent(t *testing.T) {
	for _, in := range []string{
		"\t\n data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}",
		"\t\ndata: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}",
		"   \n\n  {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n",
		" \t [{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}]",
		strings.Repeat(" ", 70000) + "\ndata: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
	} {
		read := func(r io.Reader) string {
			rd := NewReader(r, "s")
			var out []string
			for {
				e, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					out = append(out, "error: "+err.Error())
					var fe *FrameError
					if errors.As(err, &fe) {
						continue
					}
					break
				}
				out = append(out, fmt.Sprintf("%d: %s", rd.Line(), e.Type()))
			}
			return strings.Join(out, "; ")
		}
		whole := read(strings.NewReader(in))
		bytewise := read(iotest.OneByteReader(strings.NewReader(in)))
		halves := read(iotest.HalfReader(strings.NewReader(in)))
		if whole != bytewise || whole != halves {
			t.Errorf("%.40q: whole %q, byte by byte %q, halves %q", in, whole, bytewise, halves)
		}
	}
}
