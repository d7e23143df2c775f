package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// stringField reads a string as encoding/json decodes it, on its fast path
// and off it.
func TestStringFieldAsJSON(t *testing.T) {
	for _, raw := range []string{
		`""`, `"plain text"`, `"tab\there"`, `"quote \" inside"`, `"back\\slash"`, `"\u00e9t\u00e9"`,
		`"été"`, `"\ud800 lone"`, `"emoji 🙂"`, `"ctl \u0001"`,
	} {
		e, err := agui.ParseEvent([]byte(`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":` + raw + `}`))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := stringField(e, "content"); got != want {
			t.Errorf("stringField(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestEventNumberAsFmt(t *testing.T) {
	for _, n := range []int{1, 9, 10, 999, 1000, 9999, 10000, 1234567} {
		if got, want := eventNumber(n), fmt.Sprintf("#%-4d ", n); got != want {
			t.Errorf("eventNumber(%d) = %q, want %q", n, got, want)
		}
	}
}
