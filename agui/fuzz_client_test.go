package agui

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzClientBody reads arbitrary response bodies as the client does and
// verifies them. Nothing may panic; the verdict must not depend on how the
// body's bytes arrive; violations come in stream order; and Strict never
// accepts what Reference rejects.
func FuzzClientBody(f *testing.F) {
	for i := range 30 {
		b, _ := genBody(clientSeed, i)
		if len(b) > 1024 {
			b = b[:bytes.LastIndex(b[:1024], []byte("\n\n"))+2]
		}
		f.Add(b)
	}
	f.Add([]byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\r\n\r\ndata: x\n\n"))
	f.Add([]byte("\uFEFFdata:\n\ndata: {\"type\":\"THINKING_END\"}"))
	f.Add([]byte("\t\n data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxFuzzInput {
			return
		}
		judge := func(r io.Reader, p Profile) (string, []Violation) {
			v := NewVerifier(Options{Profile: p})
			if err := readInto(NewReader(r, "b"), v); err != nil {
				return err.Error(), v.Violations()
			}
			v.Finish()
			return "", v.Violations()
		}
		text := func(err string, vs []Violation) string {
			var b strings.Builder
			b.WriteString(err)
			for _, v := range vs {
				fmt.Fprintf(&b, "\n%v", v)
			}
			return b.String()
		}
		errWhole, whole := judge(bytes.NewReader(body), Reference)
		errBytes, bytewise := judge(iotest.OneByteReader(bytes.NewReader(body)), Reference)
		if a, b := text(errWhole, whole), text(errBytes, bytewise); a != b {
			t.Fatalf("the verdict depends on chunking:\nwhole:%s\nbyte by byte:%s", a, b)
		}
		last := 0
		for _, v := range whole {
			if v.Index < last {
				t.Fatalf("violations out of order: %v", whole)
			}
			last = v.Index
			if !v.Rule.Known() || v.Message == "" {
				t.Fatalf("violation without a known rule or message: %+v", v)
			}
		}
		if errWhole == "" {
			_, strict := judge(bytes.NewReader(body), Strict)
			if len(whole) > 0 && len(strict) == 0 {
				t.Fatalf("Reference rejects (%v) what Strict accepts", whole[0])
			}
		}
	})
}
