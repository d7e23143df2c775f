package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonx"
)

// addStreamSeeds adds the sample streams and a few edge cases to a corpus.
func addStreamSeeds(f *testing.F) {
	f.Helper()
	files, err := filepath.Glob("testdata/streams/*")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"\xEF\xBB\xBFdata: {\"type\":\"A\"}\r\n\r\n",
		"data: a\r\rdata:b\rid: 1\x00\rretry: 12\r\r",
		"event: e\nid\ndata\n\n: c\ndata: x",
		"[{\"type\":\"A\"},\n 1, \"s\", {\"type\":\"B\"}]  x",
		"{\"type\":\"A\"}\n\n{\"type\":",
		"[{\"type\":\"\\ud800\"}]",
	} {
		f.Add([]byte(s))
	}
}

// sseFuzzLimit is small so that the fuzzer reaches the line limit.
const sseFuzzLimit = 64

func decodeFuzz(t *testing.T, r io.Reader, limit int) ([]SSEMessage, error) {
	t.Helper()
	d := NewSSEDecoder(r)
	d.MaxLineSize = limit
	var out []SSEMessage
	for range 1 << 20 {
		m, err := d.Next()
		if err != nil {
			return out, err
		}
		if len(m.Data) > limit {
			t.Fatalf("message data is %d bytes, over the limit of %d", len(m.Data), limit)
		}
		m.Data = bytes.Clone(m.Data)
		out = append(out, m)
	}
	t.Fatal("the decoder does not reach the end of a short input")
	return nil, nil
}

// longestLine returns the length of the longest line of an event stream.
func longestLine(b []byte) int {
	b = bytes.TrimPrefix(b, bom)
	longest := 0
	for len(b) > 0 {
		i := indexEOL(b)
		if i < 0 {
			return max(longest, len(b))
		}
		longest = max(longest, i)
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i++
		}
		b = b[i+1:]
	}
	return longest
}

func FuzzSSEDecode(f *testing.F) {
	addStreamSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := decodeFuzz(t, bytes.NewReader(data), sseFuzzLimit)
		if err != io.EOF && !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("unexpected error %v", err)
		}
		tooLong := longestLine(data) > sseFuzzLimit
		if tooLong && !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("a line is longer than %d bytes, but got %v", sseFuzzLimit, err)
		}
		if !tooLong && errors.Is(err, ErrLineTooLong) && !strings.Contains(err.Error(), "data is over") {
			t.Fatalf("no line is longer than %d bytes, but got %v", sseFuzzLimit, err)
		}

		// Reading one byte at a time must not change anything: line ends
		// and the BOM may be split between reads.
		msgs1, err1 := decodeFuzz(t, iotest.OneByteReader(bytes.NewReader(data)), sseFuzzLimit)
		if diff := diffMessages(msgs, msgs1, true); diff != "" || errText(err) != errText(err1) {
			t.Fatalf("one byte at a time: %s; errors %v and %v", diff, err, err1)
		}

		// Pushed in pieces, the stream gives the same messages, up to
		// where the decoder stops at a line over the limit.
		var pushed []SSEMessage
		sp := SSEParser{MaxLineSize: sseFuzzLimit}
		keep := func(m SSEMessage) {
			m.Data = bytes.Clone(m.Data)
			pushed = append(pushed, m)
		}
		for rest, n := data, 1; len(rest) > 0; n = n%7 + 1 {
			k := min(n, len(rest))
			sp.Feed(rest[:k], keep)
			rest = rest[k:]
		}
		sp.End(keep)
		if err == io.EOF {
			if diff := diffMessages(msgs, pushed, true); diff != "" {
				t.Fatalf("pushed in pieces: %s", diff)
			}
		} else if len(pushed) < len(msgs) || diffMessages(msgs, pushed[:len(msgs)], true) != "" {
			t.Fatalf("pushed in pieces, up to the error: got %d messages, want the decoder's %d first", len(pushed), len(msgs))
		}

		// Encoding what was decoded and decoding it again gives the same
		// messages.
		var buf bytes.Buffer
		enc := NewSSEEncoder(&buf)
		for _, m := range msgs {
			if err := enc.EncodeMessage(m); err != nil {
				t.Fatalf("encoding %+v: %v", m, err)
			}
		}
		again, err := decodeFuzz(t, &buf, 1<<20)
		if err != io.EOF {
			t.Fatalf("decoding the re-encoded stream: %v", err)
		}
		if diff := diffMessages(msgs, again, false); diff != "" {
			t.Fatalf("round trip: %s", diff)
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// diffMessages describes the first difference between two message lists.
func diffMessages(a, b []SSEMessage, lines bool) string {
	if len(a) != len(b) {
		return "got " + strconv.Itoa(len(b)) + " messages, want " + strconv.Itoa(len(a))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Event != y.Event || x.ID != y.ID || !bytes.Equal(x.Data, y.Data) || x.Retry != y.Retry || (lines && x.Line != y.Line) {
			xj, _ := json.Marshal(x)
			yj, _ := json.Marshal(y)
			return "message " + strconv.Itoa(i) + ": got " + string(yj) + ", want " + string(xj)
		}
	}
	return ""
}

// depth returns the deepest nesting of arrays and objects, outside strings.
func depth(b []byte) int {
	d, _ := jsonx.Nesting(b)
	return d
}

func FuzzParseEvent(f *testing.F) {
	for _, l := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		` {"type":"A","type":"B"} `,
		`{"type":"\u0041\ud83d\ude00"}`,
		`{"type":1}`,
		`[1]`,
		`{"type":"A","x":[{"y":null,"z":-1.5e3}]}`,
		"{\"type\":\"\xff\"}",
	} {
		f.Add([]byte(l))
	}
	for _, name := range []string{"testdata/streams/simple.jsonl"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		e, err := ParseEvent(in)
		valid := json.Valid(data)
		if err == nil {
			if want := trimJSONSpace(data); !bytes.Equal(e.Raw(), want) {
				t.Fatalf("ParseEvent(%q) kept %q, want the input without JSON white space: %q", data, e.Raw(), want)
			}
			if !valid {
				t.Fatalf("ParseEvent(%q) succeeded, but encoding/json says it is not valid JSON", data)
			}
		}
		if !valid || depth(data) >= MaxDepth {
			return
		}
		// Valid JSON: an object with a string "type" must parse, unless it
		// holds invalid UTF-8, which encoding/json lets through.
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil || obj == nil {
			if err == nil {
				t.Fatalf("ParseEvent(%q) succeeded on a value that is not an object", data)
			}
			return
		}
		var typ string
		if json.Unmarshal(obj["type"], &typ) != nil || obj["type"] == nil {
			if err == nil {
				t.Fatalf("ParseEvent(%q) succeeded without a string type", data)
			}
			return
		}
		if !utf8.Valid(data) {
			return
		}
		if err != nil {
			t.Fatalf("ParseEvent(%q): %v; want success for a valid object with a string type", data, err)
		}
		if string(e.Type()) != typ {
			t.Fatalf("ParseEvent(%q).Type() = %q, want %q", data, e.Type(), typ)
		}
		// Field finds each member (the last of duplicates), indexed or
		// not, and no other.
		for k, want := range obj {
			if got, ok := e.Field(k); !ok || !bytes.Equal(got, want) {
				t.Fatalf("ParseEvent(%q).Field(%q) = %s, %v; want %s", data, k, got, ok, want)
			}
		}
		for _, k := range []string{"metadata", "content", "messageId", "delta", "x"} {
			if _, in := obj[k]; !in && e.Has(k) {
				t.Fatalf("ParseEvent(%q) has %q, which it does not hold", data, k)
			}
		}
	})
}

func FuzzReadEvents(f *testing.F) {
	addStreamSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(r io.Reader) ([]string, error) {
			rd := NewReader(r, "f")
			rd.MaxLineSize = 256
			var raws []string
			for range 1 << 20 {
				e, err := rd.Next()
				var fe *FrameError
				if errors.As(err, &fe) {
					// A frame the client cannot read: the stream goes on.
					if fe.Line < 1 && rd.Format() != FormatProto || fe.Frame < 1 || !fe.Rule.Known() {
						t.Fatalf("frame error %v: bad position or rule", fe)
					}
					raws = append(raws, fe.Error())
					continue
				}
				if err != nil {
					return raws, err
				}
				if rd.Line() < 1 && rd.Format() != FormatProto {
					t.Fatalf("event %d: line %d", len(raws), rd.Line())
				}
				if !json.Valid(e.Raw()) {
					t.Fatalf("event %d is not valid JSON: %q", len(raws), e.Raw())
				}
				raws = append(raws, string(e.Raw()))
			}
			t.Fatal("the reader does not reach the end of a short input")
			return nil, nil
		}
		events, err := read(bytes.NewReader(data))
		if err != io.EOF {
			var re *ReadError
			if !errors.As(err, &re) {
				t.Fatalf("error %v (%T) is not a *ReadError", err, err)
			}
			if lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1; re.Format != FormatProto && (re.Line < 1 || re.Line > lines) {
				t.Fatalf("error %v names line %d of %d", err, re.Line, lines)
			}
		}
		events1, err1 := read(iotest.OneByteReader(bytes.NewReader(data)))
		if strings.Join(events, "\n") != strings.Join(events1, "\n") || errText(err) != errText(err1) {
			t.Fatalf("one byte at a time: got %q, %v; want %q, %v", events1, err1, events, err)
		}
		if _, err := ReadEvents(bytes.NewReader(data)); err == io.EOF {
			t.Fatal("ReadEvents returned io.EOF")
		}
	})
}
