package agui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/internal/oracle"
)

// The differential test of the 0.0.59 client profile against HttpAgent of
// @ag-ui/client 0.0.59 (internal/oracle/v0.0.59, the version CopilotKit's
// react-core 1.74 and runtime 1.75 pin), on the same bodies as
// TestClientConformance: the same generators, framings and edge cases.

// runHTTPAgentOf runs HttpAgent of client c on each body, in two node
// processes at once.
func runHTTPAgentOf(t testing.TB, c Client, cases []httpCase) []httpAgentResult {
	t.Helper()
	dir := oracle.ClientDir(t, string(c), "the differential test against @ag-ui/client "+string(c))
	return runHTTPAgentParallel(t, dir, cases)
}

func TestClientConformance0059(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 200
	}
	seed := uint64(clientSeed)
	if s := os.Getenv("AGUI_CLIENT_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
		n, _ = strconv.Atoi(os.Getenv("AGUI_CLIENT_N"))
	}
	bodies := make([][]byte, n)
	descs := make([]string, n)
	cases := make([]httpCase, n)
	for i := range bodies {
		bodies[i], descs[i] = genBody(seed, i)
		cases[i] = httpCase{Body: base64.StdEncoding.EncodeToString(bodies[i])}
	}
	results := runHTTPAgentOf(t, ClientV0059, cases)
	failures, accepted, viewed := 0, 0, 0
	byRule := map[Rule]int{}
	for i, res := range results {
		ours, err := clientVerdictOf(ClientV0059, bodies[i])
		if err != nil {
			t.Errorf("body %d (%s): aguitest cannot read it: %v\nbody: %s", i, descs[i], err, clipBody(bodies[i]))
			continue
		}
		if res.OK {
			accepted++
		} else if ours != nil {
			byRule[ours.Rule]++
		}
		err = sameVerdict(res, ours)
		if err == nil && res.OK {
			err = sameView(res, NewClientView(ClientV0059, RunAgentInput{}), bodies[i])
			if err == nil {
				viewed++
			}
		}
		if err != nil {
			failures++
			if failures <= 15 {
				t.Errorf("body %d (seed %d; %s): %v\nbody: %s", i, seed, descs[i], err, clipBody(bodies[i]))
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d bodies disagree with HttpAgent 0.0.59", failures, n)
	}
	t.Logf("the view agrees with agent.messages and agent.state on %d accepted bodies", viewed)
	t.Logf("%d bodies: HttpAgent 0.0.59 accepts %d, rejects %d; first violations by rule: %v", n, accepted, n-accepted, byRule)
}

// sameView applies body to v and compares what it holds with the
// client's agent.messages and agent.state.
func sameView(res httpAgentResult, v *View, body []byte) error {
	r := NewReader(bytes.NewReader(body), "body")
	for i := 0; ; i++ {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var fe *FrameError
			if errors.As(err, &fe) {
				continue
			}
			return err
		}
		if err := v.Apply(e); err != nil {
			return fmt.Errorf("the view stops at event %d: %v", i+1, err)
		}
	}
	want, _ := json.Marshal(res.Messages)
	if len(res.Messages) == 0 {
		want = []byte("[]")
	}
	if got := v.MessagesJSON(); !sameJSONValue(got, want) {
		return fmt.Errorf("messages differ:\n  client: %s\n  view:   %s", want, got)
	}
	if got := v.State(); !sameJSONValue(got, res.State) {
		return fmt.Errorf("state differs:\n  client: %s\n  view:   %s", res.State, got)
	}
	return nil
}

// TestClientConformanceEdges0059 runs the edge-case bodies through
// HttpAgent 0.0.59 and the 0.0.59 profile, views included.
func TestClientConformanceEdges0059(t *testing.T) {
	bodies := edgeBodies()
	var names []string
	var cases []httpCase
	for name, b := range bodies {
		names = append(names, name)
		cases = append(cases, httpCase{Body: base64.StdEncoding.EncodeToString([]byte(b))})
	}
	results := runHTTPAgentOf(t, ClientV0059, cases)
	for i, res := range results {
		body := []byte(bodies[names[i]])
		ours, err := clientVerdictOf(ClientV0059, body)
		require.NoError(t, err, names[i])
		err = sameVerdict(res, ours)
		if err == nil && res.OK {
			err = sameView(res, NewClientView(ClientV0059, RunAgentInput{}), body)
		}
		if err != nil {
			t.Errorf("%s: %v\nbody: %q", names[i], err, body)
		}
	}
}
