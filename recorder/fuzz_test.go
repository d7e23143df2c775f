package recorder

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/jsonx"
)

// FuzzReader feeds arbitrary bytes to the Reader: it must never panic,
// must end, must name a line in every error, and every record it returns
// must survive writing and reading back.
func FuzzReader(f *testing.F) {
	if b, err := os.ReadFile("testdata/weather.jsonl"); err == nil {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	const h = `{"kind":"header","format":"aguitest-recording","version":1}` + "\n"
	f.Add([]byte(h + `{"kind":"event","run":"r","us":1,"event":{"type":"X","a":[1,{"b":null}]}}` + "\n"))
	f.Add([]byte(h + `{"kind":"event","run":"r","data":"a\nb"}` + "\n" + `{"kind":"zz","run":"r"}` + "\n"))
	f.Add([]byte(h + `{"kind":"provider","run":"r","provider":{"method":"POST","url":"u","status":200,"chunks":[{"us":1,"b64":"/w=="}]}}` + "\n"))
	f.Add([]byte(h + `{"kind":"end","run":"r","end":{"outcome":"finished","bytes":1,"events":1}}` + "\r\n{"))
	f.Add([]byte(`{"kind":"header","format":"aguitest-recording","version":99}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "f")
		r.MaxLineSize = 1 << 16
		for i := 0; ; i++ {
			if i > len(data)+2 {
				t.Fatal("the reader does not end")
			}
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var re *Error
				if !errors.As(err, &re) || re.Line < 1 {
					t.Fatalf("error without a line: %v", err)
				}
				if r.Err() != nil {
					if _, again := r.Next(); again == nil || again.Error() != err.Error() {
						t.Fatalf("a fatal error is not kept: %v, then %v", err, again)
					}
					return
				}
				continue
			}
			b, err := appendRecord(nil, rec)
			if err != nil {
				t.Fatalf("line %d: a record read does not write: %v", rec.Line, err)
			}
			if bytes.Count(b, []byte("\n")) != 1 {
				t.Fatalf("line %d: written as %q", rec.Line, b)
			}
			back, err := parseRecord(b[:len(b)-1])
			if err != nil {
				t.Fatalf("line %d: %q does not read back: %v", rec.Line, b, err)
			}
			if back.Kind != rec.Kind || back.Run != rec.Run || !bytes.Equal(back.Event, rec.Event) || back.Data != rec.Data || back.Offset != rec.Offset {
				t.Fatalf("line %d: round trip changed the record:\n%+v\n%+v", rec.Line, rec, back)
			}
		}
	})
}

// FuzzMiddlewareRoundTrip serves arbitrary response bodies through the
// middleware, written in fuzzer-chosen pieces, and reads the recording
// back: whatever the middleware writes, its Reader reads (every line).
// With redaction off, an SSE body's recorded events and data are, in
// order, the data of the messages agui.SSEDecoder reads from the body (as
// a string when it is no event, invalid UTF-8 turned into U+FFFD), the end
// record counts them, and a gzip-compressed body is recorded alike.
func FuzzMiddlewareRoundTrip(f *testing.F) {
	f.Add([]byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"ping\":1}\n\n"), []byte{3, 9}, byte(0))
	f.Add([]byte("data: {\"type\":\"X\",\"s\":\"\xff\"}\r\n\r\n: c\ndata: [DONE]\n\n"), []byte{1}, byte(4))
	f.Add([]byte("\xEF\xBB\xBFdata: {\"type\":\"RUN_FINISHED\"}\n\ndata: a\ndata: b"), []byte{2, 2, 2}, byte(2))
	f.Add([]byte{0, 0, 0, 2, 10, 0}, []byte{1}, byte(1))
	f.Fuzz(func(t *testing.T, body, cuts []byte, flags byte) {
		if len(body) > 8<<10 {
			return
		}
		proto, redact, gz := flags&1 != 0, flags&2 != 0, flags&4 != 0
		sent := body
		if gz {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(body)
			zw.Close()
			sent = b.Bytes()
		}
		var file bytes.Buffer
		w, _ := NewWriter(&file, Header{})
		cfg := Config{Writer: w}
		if !redact {
			cfg.Redact.Off = Defaults()
		}
		h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if proto {
				w.Header().Set("Content-Type", agui.MediaTypeProto)
			} else {
				w.Header().Set("Content-Type", "text/event-stream")
			}
			if gz {
				w.Header().Set("Content-Encoding", "gzip")
			}
			rest := sent
			for i := 0; len(rest) > 0; i++ {
				n := len(rest)
				if i < len(cuts) {
					n = min(n, int(cuts[i])+1)
				}
				w.Write(rest[:n])
				rest = rest[n:]
			}
		}), cfg)
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"r"}`)))
		h.Wait()
		if !bytes.Equal(rr.Body.Bytes(), sent) {
			t.Fatal("the client did not get the body as sent")
		}
		r := NewReader(bytes.NewReader(file.Bytes()), "rec")
		var recs []Record
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("the middleware wrote what its reader rejects: %v\n%s", err, file.Bytes())
			}
			recs = append(recs, rec)
		}
		var recorded []Record
		var end *End
		for _, rec := range recs {
			switch rec.Kind {
			case KindEvent:
				// An event record holds an event, or data that is none
				// (empty data included: "data" alone dispatches an event
				// with no data, which the client cannot parse either).
				if _, err := rec.EventOf(); err != nil && rec.Event != nil {
					t.Fatalf("line %d: an event record that is no event: %v", rec.Line, err)
				}
				recorded = append(recorded, rec)
			case KindEnd:
				end = rec.End
			}
		}
		if end == nil {
			t.Fatal("no end record")
		}
		if int(end.Events) != len(recorded) && !end.Limited {
			t.Fatalf("the end record counts %d events, %d recorded", end.Events, len(recorded))
		}
		if proto || redact {
			return
		}
		var want []string
		d := agui.NewSSEDecoder(bytes.NewReader(body))
		for {
			m, err := d.Next()
			if err != nil {
				break
			}
			want = append(want, string(m.Data))
		}
		var got []string
		for _, rec := range recorded {
			if rec.Event != nil {
				got = append(got, string(rec.Event))
			} else {
				got = append(got, rec.Data)
			}
		}
		for i := range want {
			var s string
			b, _ := json.Marshal(want[i]) // invalid UTF-8 as a record holds it
			json.Unmarshal(b, &s)
			want[i] = s
		}
		if !slices.Equal(got, want) {
			t.Fatalf("recorded %q\nthe client's SSE reader gets %q\nbody %q", got, want, body)
		}
	})
}

// FuzzRedact feeds arbitrary text and JSON to the redaction rules: nothing
// panics, JSON stays JSON (the same bytes when the defaults are off), a
// key of a known shape next to the input is never kept, and text with the
// defaults off is kept as it is.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		`{"api_key":"hunter2","n":1}`, `{"a":[{"password":1e3},"\u0041IzaSy"]}`, `"x"`, `[]`,
		"user=ann&password=hunter2", "Authorization: Bearer abc123def456ghi", "postgres://app:s3cret@db/x",
		`{"args":"{\"token\":\"t\"}"}`, "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----",
	} {
		f.Add([]byte(s))
	}
	key := fakeKey("sk-proj-", "Ab3xY9", 48)
	f.Fuzz(func(t *testing.T, b []byte) {
		var rd Redact
		off := Redact{Off: Defaults()}
		_ = rd.Text(b)
		_ = rd.URL(string(b))
		if got := off.Text(b); !bytes.Equal(got, b) {
			t.Fatalf("Text with the defaults off changed %q to %q", b, got)
		}
		if jsonx.Check(b) != nil {
			if _, err := rd.JSON(b); err == nil {
				t.Fatalf("JSON(%q) accepted what is not JSON", b)
			}
			return
		}
		red, err := rd.JSON(b)
		if err != nil {
			t.Fatalf("JSON(%q): %v", b, err)
		}
		if err := jsonx.Check(red); err != nil {
			t.Fatalf("JSON(%q) = %q, not JSON: %v", b, red, err)
		}
		if got, err := off.JSON(b); err != nil || !bytes.Equal(got, b) {
			t.Fatalf("JSON with the defaults off changed %q to %q (%v)", b, got, err)
		}
		doc := append(append([]byte(`[`), b...), `,"`+key+`"]`...)
		red, err = rd.JSON(doc)
		if err != nil {
			t.Fatalf("JSON(%q): %v", doc, err)
		}
		if bytes.Contains(red, []byte(key[8:])) {
			t.Fatalf("JSON(%q) kept the key: %q", doc, red)
		}
	})
}
