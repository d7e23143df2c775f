package harness

import (
	"math/rand/v2"
	"testing"
)

// TestFreePortHonoursClaims: a port claimed by another aguitest process
// (here, a claim made on a file of its own, as another process makes
// it) is never handed out, and a port handed out is claimed until it is
// released.
func TestFreePortHonoursClaims(t *testing.T) {
	claimed := map[int]bool{}
	for len(claimed) < 1000 { // one port in twelve of the range
		port := 20000 + rand.IntN(12000)
		if claimed[port] {
			continue
		}
		release, ok := lockPort(port)
		if !ok {
			continue // held by a test running beside this one
		}
		t.Cleanup(release)
		claimed[port] = true
	}
	var got []int
	for range 100 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, port)
		if claimed[port] {
			t.Errorf("freePort handed out %d, claimed by another", port)
		}
		if _, ok := lockPort(port); ok {
			t.Errorf("port %d handed out but not claimed", port)
		}
	}
	for _, port := range got {
		releasePort(port)
		release, ok := lockPort(port)
		if !ok {
			t.Errorf("port %d still claimed after its release", port)
			continue
		}
		release()
	}
}
