package longrun_test

import (
	"bytes"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/longrun"
	"github.com/stretchr/testify/require"
)

// TestStreamVerifies: the stream is one run the reference client accepts.
func TestStreamVerifies(t *testing.T) {
	var b bytes.Buffer
	n, err := longrun.Write(&b, 1000)
	require.NoError(t, err)
	evs, err := agui.ReadEvents(&b)
	require.NoError(t, err)
	if len(evs) != n || n < 1000 {
		t.Errorf("got %d events (%d said), want %d, at least 1000", len(evs), n, n)
	}
	for _, p := range []agui.Profile{agui.Reference, agui.Strict} {
		if vs := agui.Verify(evs, agui.Options{Profile: p}); vs != nil {
			t.Errorf("%v: got %v, want no violation", p, vs)
		}
	}
}
