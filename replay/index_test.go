package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/replay"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// interleaved is a recording of two runs in progress at once, a run id
// reused without an end record, blank and corrupt lines, data that is not
// an event, a second header and a run with no end.
const interleaved = `{"kind":"header","format":"aguitest-recording","version":1,"created":"2026-11-29T10:00:00Z","source":"middleware"}
{"kind":"request","run":"a","request":{"time":"2026-11-29T10:00:00Z","method":"POST","path":"/","input":{"threadId":"t","runId":"ra","messages":[]}}}
{"kind":"request","run":"b","request":{"time":"2026-11-29T10:00:00Z","method":"POST","path":"/","input":{"threadId":"t","runId":"rb","messages":[]}}}
{"kind":"event","run":"a","us":10,"event":{"type":"RUN_STARTED","threadId":"t","runId":"ra"}}

{"kind":"event","run":"b","us":20,"event":{"type":"RUN_STARTED","threadId":"t","runId":"rb"}}
not json
{"kind":"event","run":"a","us":30,"data":"not an event"}
{"kind":"event","run":"b","us":40,"event":{"type":"RUN_FINISHED","threadId":"t","runId":"rb"}}
{"kind":"end","run":"b","us":50,"end":{"outcome":"finished"}}
{"kind":"header","format":"aguitest-recording","version":1,"created":"2026-11-29T10:00:01Z","source":"middleware"}
{"kind":"event","run":"a","us":60,"event":{"type":"RUN_FINISHED","threadId":"t","runId":"ra"}}
{"kind":"request","run":"a","request":{"time":"2026-11-29T10:00:02Z","method":"POST","path":"/","input":{"threadId":"t","runId":"ra2","messages":[]}}}
{"kind":"event","run":"a","us":70,"event":{"type":"RUN_STARTED","threadId":"t","runId":"ra2"}}
{"kind":"event","run":"c","us":80,"event":{"type":"RUN_STARTED","threadId":"t","runId":"rc"}}
{"kind":"event","run":"a","us":90,"event":{"type":"RUN_ERROR","message":"boom"}}
`

// TestIndexServesAsLoad: a run of an indexed recording is served, in
// both encodings, as the same run read whole, with the same losses at the
// same lines.
func TestIndexServesAsLoad(t *testing.T) {
	dir := t.TempDir()
	files := []string{"../recorder/testdata/weather.jsonl"}
	p := filepath.Join(dir, "interleaved.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(interleaved), 0o644))
	files = append(files, p)
	for _, file := range files {
		whole, err := replay.Load(file)
		require.NoError(t, err)
		idx, err := replay.Index(file)
		require.NoError(t, err)
		require.Len(t, idx.Runs, len(whole.Runs), file)
		if diff := cmp.Diff(fmt.Sprint(whole.Problems), fmt.Sprint(idx.Problems)); diff != "" {
			t.Errorf("%s: problems (-load +index):\n%s", file, diff)
		}
		for i, w := range whole.Runs {
			x := idx.Runs[i]
			if x.ID != w.ID || x.Line != w.Line || !cmp.Equal(x.Request, w.Request) || !cmp.Equal(x.End, w.End) {
				t.Errorf("%s: run %d: got %s line %d, want %s line %d (or the requests or ends differ)", file, i, x.ID, x.Line, w.ID, w.Line)
			}
			if len(x.Events) != 0 {
				t.Errorf("%s: run %d: an indexed run holds %d events, want none", file, i, len(x.Events))
			}
			for _, enc := range []agui.Encoding{agui.EncodingSSE, agui.EncodingProto} {
				served := func(run *replay.Run) (string, []string) {
					var b bytes.Buffer
					var losses []string
					opt := replay.Options{Speed: 0, Encoding: enc, OnLoss: func(run *replay.Run, i int, err error) {
						line := 0
						if at, ok := err.(*replay.LossAt); ok {
							line, err = at.Line, at.Err
						} else {
							line = run.Events[i].Line
						}
						losses = append(losses, fmt.Sprintf("event %d line %d: %v", i, line, err))
					}}
					require.NoError(t, replay.Stream(context.Background(), &b, run, opt))
					return b.String(), losses
				}
				wantBody, wantLoss := served(w)
				gotBody, gotLoss := served(x)
				if gotBody != wantBody {
					t.Errorf("%s: run %d, %s: got body %q, want %q", file, i, enc, gotBody, wantBody)
				}
				if diff := cmp.Diff(wantLoss, gotLoss); diff != "" {
					t.Errorf("%s: run %d, %s: losses (-load +index):\n%s", file, i, enc, diff)
				}
			}
		}
	}
}
