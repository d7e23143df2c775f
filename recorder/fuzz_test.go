package recorder

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
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
