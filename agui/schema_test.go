package agui

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestFastPathAgreesWithChecker: whenever the one-pass fast path calls an
// event valid, the full checker finds no issue and nothing to strip.
func TestFastPathAgreesWithChecker(t *testing.T) {
	var c checker
	fast, checked := 0, 0
	for i := range 3000 {
		body, _ := genBody(clientSeed+1, i)
		r := NewReader(bytes.NewReader(body), "b")
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			var fe *FrameError
			if errors.As(err, &fe) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			s, ok := eventSchemas[e.typ]
			if !ok {
				continue
			}
			checked++
			if !fastValid(&e) {
				continue
			}
			fast++
			c.checkEvent(e.raw, s)
			sp, _, _ := scanValue(e.raw, 0)
			if len(c.issues) > 0 || needsStrip(e.raw, sp, s) {
				t.Fatalf("fast path accepts %s; the checker says %v (strip %v)", e.raw, c.issues, needsStrip(e.raw, sp, s))
			}
		}
	}
	if fast < checked/2 {
		t.Errorf("the fast path took only %d of %d events", fast, checked)
	}
}
