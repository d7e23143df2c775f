package bytearena

import (
	"bytes"
	"testing"
)

func TestCopy(t *testing.T) {
	var a Arena
	var copies [][]byte
	var wants [][]byte
	for i := range 5000 {
		b := bytes.Repeat([]byte{byte(i)}, i%97)
		if i%1000 == 0 {
			b = bytes.Repeat([]byte{'x'}, Block) // its own allocation
		}
		c := a.Copy(b)
		if len(b) > 0 {
			b[0] = ^b[0]
		}
		if cap(c) != len(c) {
			t.Fatalf("copy %d: capacity %d, length %d", i, cap(c), len(c))
		}
		copies = append(copies, c)
		wants = append(wants, bytes.Repeat([]byte{byte(i)}, len(c)))
		if i%1000 == 0 {
			wants[i] = bytes.Repeat([]byte{'x'}, Block)
		}
	}
	// Appending to one copy never writes into the next.
	_ = append(copies[10], 0xff)
	for i := range copies {
		if !bytes.Equal(copies[i], wants[i]) {
			t.Fatalf("copy %d changed", i)
		}
	}
	if n := testing.AllocsPerRun(100, func() { a.Copy([]byte("a short event")) }); n > 0.01 {
		t.Errorf("%v allocations per short copy", n)
	}
}
