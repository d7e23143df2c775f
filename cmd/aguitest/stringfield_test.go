package main

import (
	"bytes"
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

// writeMessageLine writes what encoding/json writes of the line's object
// without HTML escaping.
func TestMessageLineAsEncodingJSON(t *testing.T) {
	v := agui.NewView(agui.RunAgentInput{})
	for _, e := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m<1>","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m<1>","delta":"a & b \u2028 \ud800 \"q\" \\ é"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m<1>"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"k":[1,2.5,"x\u2029"],"n":null}}`,
	} {
		ev, err := agui.ParseEvent([]byte(e))
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	var full heldRun
	full.held(v)
	for _, tc := range []struct {
		run, thread string
		c           heldRun
	}{
		{"", "", heldRun{}},
		{"run <1>", "thread & \u2028", full},
		{"r", "", heldRun{messages: full.messages, state: full.state, stopped: "event 3 (X): <why>", warnings: []string{"a & b", "\xff bad"}}},
		{"r", "t", heldRun{messages: full.messages, state: full.state, earlier: true}},
	} {
		line := struct {
			Run      string          `json:"run,omitempty"`
			Thread   string          `json:"thread,omitempty"`
			Messages json.RawMessage `json:"messages"`
			State    json.RawMessage `json:"state"`
			Stopped  string          `json:"stopped,omitempty"`
			Warnings []string        `json:"warnings,omitempty"`
		}{tc.run, tc.thread, tc.c.messages, tc.c.state, tc.c.stopped, tc.c.warnings}
		if tc.c.earlier {
			line.Stopped = "the client stopped in an earlier run of this response"
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeMessageLine(&got, tc.run, tc.thread, &tc.c); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("writeMessageLine:\n got %s\nwant %s", got.String(), want.String())
		}
	}
}
