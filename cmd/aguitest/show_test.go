package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/golden"
)

// TestShowTranscripts compares the transcripts of the shipped sample
// streams and recordings with testdata/show/*.txt; -update rewrites them.
func TestShowTranscripts(t *testing.T) {
	inputs := []string{
		"../../agui/testdata/streams/simple.json",
		"../../agui/testdata/streams/simple.jsonl",
		"../../agui/testdata/streams/simple.sse",
		"../../agui/testdata/streams/parallel.sse",
		"../../recorder/testdata/weather.jsonl",
		"testdata/show/faults.jsonl",
		"testdata/show/reopened.jsonl",
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"show", in}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("aguitest show %s: exit %d, stderr:\n%s", in, code, stderr.String())
			}
			// The file names differ between the repository and the
			// golden; keep the base name only.
			got := strings.ReplaceAll(stdout.String(), in, name)
			want := filepath.Join("testdata", "show", name+".txt")
			if golden.Update() {
				if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if d := cmp.Diff(string(b), got); d != "" {
				t.Errorf("aguitest show %s: transcript differs from %s (-want +got):\n%s", in, want, d)
			}
		})
	}
}

func TestMarkParallel(t *testing.T) {
	tests := []struct {
		name  string
		spans [][2]int // start, end (-1 open) of calls, in start order
		want  [][]string
	}{
		{"one after another", [][2]int{{0, 2}, {3, 5}}, [][]string{nil, nil}},
		{"overlapping", [][2]int{{0, 4}, {1, 3}, {6, 7}}, [][]string{{"c0", "c1"}, {"c0", "c1"}, nil}},
		{"chain", [][2]int{{0, 2}, {1, 4}, {3, 6}}, [][]string{{"c0", "c1", "c2"}, {"c0", "c1", "c2"}, {"c0", "c1", "c2"}}},
		{"never ended", [][2]int{{0, -1}, {5, 6}}, [][]string{{"c0", "c1"}, {"c0", "c1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lanes []*lane
			for i, s := range tt.spans {
				lanes = append(lanes, &lane{kind: "call", id: "c" + string(rune('0'+i)), start: s[0], end: s[1]})
			}
			markParallel(lanes, 10)
			var got [][]string
			for _, l := range lanes {
				got = append(got, l.parallel)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("parallel groups (-want +got):\n%s", d)
			}
		})
	}
}

// TestShowHelpTiming: the help says that HttpAgent's end state on a
// rejected run depends on timing, and which of the two --messages prints.
func TestShowHelpTiming(t *testing.T) {
	var stdout bytes.Buffer
	require.Equal(t, 0, run([]string{"show", "--help"}, strings.NewReader(""), &stdout, io.Discard))
	for _, want := range []string{"depends on", "all at once", "frame by frame", "--messages prints the latter"} {
		if !strings.Contains(strings.Join(strings.Fields(stdout.String()), " "), want) {
			t.Errorf("show --help does not say %q", want)
		}
	}
}
