package agui

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// firstRejection returns the index of the first event a Reference
// verifier of client c rejects, or -1.
func firstRejection(evs []Event, c Client) int {
	v := NewVerifier(Options{Profile: Reference, Client: c})
	for i, e := range evs {
		if len(v.Push(e)) > 0 {
			return i
		}
	}
	return -1
}

// firstStop returns the index of the first event at which a Strict
// verifier following client (every client when "") reports a violation
// that Stops c, or -1.
func firstStop(evs []Event, client, c Client) int {
	v := NewVerifier(Options{Profile: Strict, Client: client})
	for i, e := range evs {
		for _, vi := range v.Push(e) {
			if vi.Stops(c) {
				return i
			}
		}
	}
	return -1
}

// checkStops holds Violation.Stops to a Reference verifier of each
// client: a Strict pass that follows the client (or every client) finds
// the event where the client stops, so that show needs one verifier, not
// two.
func checkStops(t *testing.T, name string, evs []Event) {
	t.Helper()
	for _, cfg := range []struct{ strict, c Client }{
		{"", ClientV100}, {"", ClientV0059}, {ClientV100, ClientV100}, {ClientV0059, ClientV0059},
	} {
		want := firstRejection(evs, cfg.c)
		if got := firstStop(evs, cfg.strict, cfg.c); got != want {
			t.Fatalf("%s: Strict (client %q) stops %s at event %d; its Reference verifier at %d", name, cfg.strict, cfg.c, got, want)
		}
	}
}

func TestViolationStopsAsReference(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 400
	}
	stopped := map[Client]int{}
	for i := range n {
		// Half the streams break the ordering rules (genStream's
		// mutations), and half of each half the schema too.
		s := genStream(corpusSeed^0x570b, i)
		if i%4 >= 2 {
			g := &gen{r: rand.New(rand.NewPCG(corpusSeed, uint64(i)))}
			s, _ = g.schemaMutate(s)
		}
		var evs []Event
		for _, o := range s {
			raw, _ := json.Marshal(o)
			if e, err := ParseEvent(raw); err == nil { // the Reader reports the rest
				evs = append(evs, e)
			}
		}
		checkStops(t, fmt.Sprintf("stream %d", i), evs)
		for _, c := range Clients() {
			if firstRejection(evs, c) >= 0 {
				stopped[c]++
			}
		}
	}
	t.Logf("streams each client stops in, of %d: %v", n, stopped)
	// The corpus must hold streams each client stops in, and streams it
	// reads to the end, or the comparison says little.
	for _, c := range Clients() {
		if stopped[c] < n/10 || stopped[c] > n-n/10 {
			t.Errorf("client %s stops in %d of %d streams", c, stopped[c], n)
		}
	}
}

func TestViolationStops(t *testing.T) {
	for _, tc := range []struct {
		v    Violation
		c    Client
		want bool
	}{
		{Violation{Rule: RuleMessageOpen}, "", true},
		{Violation{Rule: RuleMessageOpen}, ClientV0059, true},
		{Violation{Rule: RuleMessageOpen, Client: ClientV0059}, ClientV100, false},
		{Violation{Rule: RuleMessageOpen, Client: ClientV0059}, ClientV0059, true},
		{Violation{Rule: RuleMessageOpen, Client: ClientV100}, "", true},
		{Violation{Rule: RuleReopenedID}, "", false},
		{Violation{Rule: RuleUnknownField}, "", false},
		{Violation{Rule: RuleFinishedAfterError}, "", true},
		{Violation{Rule: RuleEmptyDelta}, "", false},
		{Violation{Rule: RuleHTTPStatus}, "", false},
	} {
		if got := tc.v.Stops(tc.c); got != tc.want {
			t.Errorf("%+v.Stops(%q) = %v, want %v", tc.v, tc.c, got, tc.want)
		}
	}
}
