package agui

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// sameRemovals holds Strict's unknown-event and unknown-field findings on
// body to what HttpAgent of @ag-ui/client 1.0.0 itself warns that it drops
// or strips (its enforcement stage's console.warn texts): the same events,
// the same paths, in the same order. TestClientConformance calls it on
// every body the client accepts. CUSTOM and RAW events are the one
// deliberate difference (the protocol's extension points). It reports
// whether Strict found anything.
func sameRemovals(res httpAgentResult, body []byte) (bool, error) {
	want := enforceWarnings(res.Warnings)
	v := NewVerifier(Options{Client: ClientV100})
	if err := readInto(NewReader(bytes.NewReader(body), "body"), v); err != nil {
		return false, err
	}
	var got []string
	for _, vi := range v.Violations() {
		switch vi.Rule {
		case RuleUnknownEvent:
			got = append(got, "drop "+string(vi.Type))
		case RuleUnknownField:
			got = append(got, "strip "+clientPath(vi.Field)+" on "+string(vi.Type))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return len(got) > 0, fmt.Errorf("the client's warnings of what it drops and strips differ from Strict's findings (-client +aguitest):\n%s", diff)
	}
	return len(got) > 0, nil
}

// enforceWarnings returns the client's enforcement warnings as
// "drop TYPE" and "strip PATH on TYPE", leaving out CUSTOM and RAW.
func enforceWarnings(ws []string) []string {
	const (
		drop  = "[ag-ui][enforce] Dropping unrecognised event '"
		strip = "[ag-ui][enforce] Removed unrecognised material at '"
	)
	var out []string
	for _, w := range ws {
		switch {
		case strings.HasPrefix(w, drop):
			typ, _, _ := strings.Cut(w[len(drop):], "': no middleware")
			out = append(out, "drop "+typ)
		case strings.HasPrefix(w, strip):
			path, rest, _ := strings.Cut(w[len(strip):], "' on ")
			typ, _, _ := strings.Cut(rest, ". Nothing handled it")
			if unknownPassThrough(EventType(typ)) {
				continue
			}
			out = append(out, "strip "+path+" on "+typ)
		}
	}
	return out
}

// clientPath writes a JSON Pointer as the client's warnings do: keys
// unescaped.
func clientPath(p string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
}
