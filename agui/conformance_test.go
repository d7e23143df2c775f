package agui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"reflect"
	"testing"

	"github.com/aguitest/aguitest/internal/oracle"
)

// The differential test: the reference client (@ag-ui/client 1.0.0 from npm,
// installed by .ci/run into internal/oracle) and this package judge the same
// generated streams, through both pipelines a client may use (verify alone;
// chunk expansion then verify). They must agree on every stream: accept or
// reject, the message of the first violation, the event it stops at, and
// the expanded events.

const corpusSeed = 20261129

// oracle runs the reference over streams and returns its results.
type oracleResult struct {
	Verify struct {
		OK     bool   `json:"ok"`
		Error  string `json:"error"`
		Passed int    `json:"passed"`
	} `json:"verify"`
	Chunks struct {
		OK     bool              `json:"ok"`
		Error  string            `json:"error"`
		Events []json.RawMessage `json:"events"`
	} `json:"chunks"`
	ChunksVerify struct {
		OK     bool   `json:"ok"`
		Error  string `json:"error"`
		Passed int    `json:"passed"`
	} `json:"chunksVerify"`
}

func needOracle(t testing.TB) string {
	t.Helper()
	return oracle.Dir(t, "the differential test against @ag-ui/client")
}

func runOracle(t testing.TB, dir string, streams [][]byte) []oracleResult {
	t.Helper()
	return oracle.Run[oracleResult](t, dir, "run.mjs", streams)
}

func parseStream(t testing.TB, raw []byte) []Event {
	t.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatal(err)
	}
	evs := make([]Event, len(items))
	for i, it := range items {
		e, err := ParseEvent(it)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		evs[i] = e
	}
	return evs
}

// firstViolation verifies with the Reference profile and returns the first
// violation's message and index ("" and -1 when it conforms).
func firstViolation(evs []Event, noChunks bool) (string, int) {
	v := NewVerifier(Options{Profile: Reference, NoChunkExpansion: noChunks, orderingOnly: true})
	for i := range evs {
		if vs := v.Push(evs[i]); len(vs) > 0 {
			return vs[0].Message, i
		}
	}
	return "", -1
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

type corpusStats struct{ accepted, rejected, chunkRejected int }

func TestConformanceWithReference(t *testing.T) {
	dir := needOracle(t)
	n := 6000
	if testing.Short() {
		n = 600
	}
	streams := make([][]byte, n)
	for i := range streams {
		b, err := json.Marshal(genStream(corpusSeed, i))
		if err != nil {
			t.Fatal(err)
		}
		streams[i] = b
	}
	results := runOracle(t, dir, streams)
	var st corpusStats
	failures := 0
	rules := map[string]int{}
	for i, res := range results {
		evs := parseStream(t, streams[i])
		for _, noChunks := range []bool{true, false} {
			v := NewVerifier(Options{Profile: Reference, NoChunkExpansion: noChunks, orderingOnly: true})
			for j := range evs {
				if vs := v.Push(evs[j]); len(vs) > 0 {
					rules[string(vs[0].Rule)]++
					break
				}
			}
		}
		errs := compareWithOracle(evs, res)
		if res.Verify.OK {
			st.accepted++
		} else {
			st.rejected++
		}
		if !res.ChunksVerify.OK {
			st.chunkRejected++
		}
		if err := errors.Join(errs...); err != nil {
			failures++
			if failures <= 10 {
				t.Errorf("stream %d (seed %d): %v\nstream: %s", i, corpusSeed, err, streams[i])
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d streams disagree with @ag-ui/client", failures, n)
	}
	t.Logf("%d streams: reference accepts %d, rejects %d; with chunk expansion rejects %d", n, st.accepted, st.rejected, st.chunkRejected)
	// Every reference rule must be exercised, each by at least one stream.
	for _, r := range []string{"first-event", "run-active", "after-run-error", "after-run-finished", "null-field",
		"message-open", "message-not-open", "tool-call-open", "tool-call-not-open", "reasoning-open", "reasoning-not-open",
		"step-active", "step-not-started", "step-owner", "subagent-attribution", "subagent-lifecycle", "subagent-outcome",
		"subagent-active", "subagent-not-active", "subagent-parent", "subagent-reused", "run-finished-open", "chunk"} {
		// The rarest rules are broken by a few streams of the whole
		// corpus: the sample of -short need not hold them.
		if rules[r] == 0 && !testing.Short() {
			t.Errorf("the corpus never breaks rule %q", r)
		}
	}
	t.Logf("first violations by rule: %v", rules)
	// A corpus that is all valid or all broken proves little.
	if st.accepted < n/5 || st.rejected < n/5 {
		t.Errorf("corpus is unbalanced: %d accepted, %d rejected", st.accepted, st.rejected)
	}
}

func compareWithOracle(evs []Event, res oracleResult) []error {
	var errs []error
	msg, at := firstViolation(evs, true)
	switch {
	case res.Verify.OK && msg != "":
		errs = append(errs, fmt.Errorf("verify: reference accepts, we reject at event %d: %s", at, msg))
	case !res.Verify.OK && msg == "":
		errs = append(errs, fmt.Errorf("verify: reference rejects at event %d (%s), we accept", res.Verify.Passed, res.Verify.Error))
	case !res.Verify.OK && (msg != res.Verify.Error || at != res.Verify.Passed):
		errs = append(errs, fmt.Errorf("verify: first violation differs:\n  reference at %d: %s\n  ours at %d:      %s", res.Verify.Passed, res.Verify.Error, at, msg))
	}

	msg, at = firstViolation(evs, false)
	switch {
	case res.ChunksVerify.OK && msg != "":
		errs = append(errs, fmt.Errorf("chunks+verify: reference accepts, we reject at event %d: %s", at, msg))
	case !res.ChunksVerify.OK && msg == "":
		errs = append(errs, fmt.Errorf("chunks+verify: reference rejects (%s), we accept", res.ChunksVerify.Error))
	case !res.ChunksVerify.OK && msg != res.ChunksVerify.Error:
		errs = append(errs, fmt.Errorf("chunks+verify: first violation differs:\n  reference: %s\n  ours:      %s", res.ChunksVerify.Error, msg))
	}

	var x Expander
	var got []Event
	var xerr error
	for i := range evs {
		out, err := x.Push(evs[i])
		got = append(got, out...)
		if err != nil {
			xerr = err
			break
		}
	}
	switch {
	case res.Chunks.OK && xerr != nil:
		errs = append(errs, fmt.Errorf("chunks: reference expands, we fail: %v", xerr))
	case !res.Chunks.OK && xerr == nil:
		errs = append(errs, fmt.Errorf("chunks: reference fails (%s), we expand", res.Chunks.Error))
	case !res.Chunks.OK && xerr.Error() != res.Chunks.Error:
		errs = append(errs, fmt.Errorf("chunks: error differs:\n  reference: %s\n  ours:      %s", res.Chunks.Error, xerr))
	}
	if len(got) != len(res.Chunks.Events) {
		errs = append(errs, fmt.Errorf("chunks: %d events expanded, reference %d", len(got), len(res.Chunks.Events)))
	} else {
		for i := range got {
			if !sameJSON(got[i].Raw(), res.Chunks.Events[i]) {
				errs = append(errs, fmt.Errorf("chunks: expanded event %d differs:\n  reference: %s\n  ours:      %s", i, res.Chunks.Events[i], got[i].Raw()))
				break
			}
		}
	}
	return errs
}

func TestEventTypesMatchCore(t *testing.T) {
	dir := needOracle(t)
	cmd := exec.Command("node", "--input-type=module", "-e",
		`import { EventType } from "@ag-ui/core"; console.log(JSON.stringify(Object.values(EventType)))`)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var core []EventType
	if err := json.Unmarshal(out, &core); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(core, EventTypes) {
		t.Errorf("EventTypes differ from @ag-ui/core's EventType:\n core: %v\n ours: %v", core, EventTypes)
	}
}
