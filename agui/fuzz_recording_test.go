package agui_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
)

// FuzzVerdictRecordingRoundTrip: the verdict on a grammar-built stream
// survives a recording round trip. The events are written to a recording
// (as a Sink writes them), read back record by record and run by run, and
// verified again: the same events, byte for byte, and the same violations.
func FuzzVerdictRecordingRoundTrip(f *testing.F) {
	for i := range 20 {
		r := rand.New(rand.NewPCG(7, uint64(i)))
		seed := make([]byte, 64+i*24)
		for j := range seed {
			seed[j] = byte(r.Uint64())
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		evs := agui.GrammarEvents(data)
		var file bytes.Buffer
		w, err := recorder.NewWriter(&file, recorder.Header{Created: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range evs {
			if err := w.Write(recorder.EventRecord("run", time.Duration(i)*time.Millisecond, e)); err != nil {
				t.Fatal(err)
			}
		}
		w.Write(recorder.Record{Kind: recorder.KindEnd, Run: "run", End: &recorder.End{Outcome: recorder.OutcomeFinished, Events: int64(len(evs))}})
		rd := recorder.NewReader(bytes.NewReader(file.Bytes()), "rec")
		var runs []*replay.Run
		for run, err := range replay.Runs(rd) {
			if err != nil {
				t.Fatalf("reading the recording back: %v\n%s", err, file.Bytes())
			}
			runs = append(runs, run)
		}
		if len(runs) != 1 {
			t.Fatalf("%d runs read back", len(runs))
		}
		back := runs[0].AGUIEvents()
		if len(back) != len(evs) {
			t.Fatalf("%d events read back, %d written", len(back), len(evs))
		}
		for i := range evs {
			if !bytes.Equal(back[i].Raw(), evs[i].Raw()) {
				t.Fatalf("event %d: read %s, wrote %s", i+1, back[i].Raw(), evs[i].Raw())
			}
		}
		for _, opt := range agui.GrammarOptions {
			if d := cmp.Diff(agui.Verify(evs, opt), agui.Verify(back, opt)); d != "" {
				t.Fatalf("options %+v: the verdict changed over a recording (-written +read back):\n%s", opt, d)
			}
		}
		_ = io.EOF
	})
}
