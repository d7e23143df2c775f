package agui

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzVerify feeds arbitrary event sequences (one JSON object per line) to
// every verifier configuration and to the chunk expander. Nothing may panic,
// violations must point at real events in order, and the Reference
// profile's verdict must not depend on the Strict rules.
func FuzzVerify(f *testing.F) {
	// Seeds stay small: the fuzzer minimizes every new input it finds, for
	// up to -fuzzminimizetime (a minute by default), and minimizing takes
	// time in proportion to the input's size. Seeds of whole generated
	// streams (10 KB) stalled the fuzzer a minute at a time.
	for i := range 40 {
		var b bytes.Buffer
		for _, e := range genStream(corpusSeed, i) {
			j, _ := json.Marshal(e)
			if b.Len()+len(j) > 1024 {
				break
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"type":"RUN_STARTED","subagentRunId":{}}` + "\n" + `{"type":"TEXT_MESSAGE_START","messageId":[1,null,{}]}`))
	f.Add([]byte(`{"type":"TOOL_CALL_CHUNK","toolCallId":1e400,"toolCallName":null,"delta":"\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		var evs []Event
		for _, line := range bytes.Split(data, []byte("\n")) {
			if e, err := ParseEvent(line); err == nil {
				evs = append(evs, e)
			}
		}
		for _, opt := range []Options{{}, {Profile: Reference}, {NoChunkExpansion: true}, {Profile: Reference, NoChunkExpansion: true}} {
			vs := Verify(evs, opt)
			last := 0
			for _, v := range vs {
				if v.Index < last || v.Index > len(evs) {
					t.Fatalf("%+v: violation index %d out of order or range (%d events)", opt, v.Index, len(evs))
				}
				last = v.Index
				if v.Rule == "" || v.Message == "" {
					t.Fatalf("%+v: violation without rule or message: %+v", opt, v)
				}
			}
		}
		// Enabling unknown-event and unknown-field under Reference adds
		// those and changes nothing else: show --messages reads them as
		// the client's warnings and every other violation as its stop.
		ref := Verify(evs, Options{Profile: Reference})
		var rest []Violation
		for _, v := range Verify(evs, Options{Profile: Reference, Enable: []Rule{RuleUnknownEvent, RuleUnknownField}}) {
			if v.Rule != RuleUnknownEvent && v.Rule != RuleUnknownField {
				rest = append(rest, v)
			}
		}
		if (len(ref) > 0 || len(rest) > 0) && !reflect.DeepEqual(ref, rest) {
			t.Fatalf("Enable of unknown-event and unknown-field changed Reference's other violations:\n%v\n%v", ref, rest)
		}
		// Strict never accepts what Reference rejects.
		for _, noChunks := range []bool{false, true} {
			ref := Verify(evs, Options{Profile: Reference, NoChunkExpansion: noChunks})
			strict := Verify(evs, Options{Profile: Strict, NoChunkExpansion: noChunks})
			if len(ref) > 0 && len(strict) == 0 {
				t.Fatalf("Reference rejects (%v) what Strict accepts", ref[0])
			}
		}
		// A Strict pass finds where each client stops, as a Reference
		// pass does (Violation.Stops): show runs one verifier, not two.
		checkStops(t, "input", evs)
		if _, err := ExpandChunks(evs); err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}

// maxFuzzInput bounds what the fuzz targets look at: larger inputs add no
// coverage and make minimizing slow.
const maxFuzzInput = 16 << 10
