package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/internal/longrun"
)

// BenchmarkLongRun runs the commands that read a stream on one long run
// (internal/longrun): the time per event must not grow with the run.
// bench/scale compares whole processes at up to a million events.
func BenchmarkLongRun(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		file := filepath.Join(b.TempDir(), "long.jsonl")
		f, err := os.Create(file)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := longrun.Write(f, n); err != nil {
			b.Fatal(err)
		}
		f.Close()
		html := filepath.Join(b.TempDir(), "long.html")
		for _, c := range []struct{ name, args string }{
			{"verify", "verify"}, {"show", "show"}, {"messages", "show --messages"},
			{"html", "show --html " + html}, {"diff", "diff " + file},
		} {
			argv := append(strings.Fields(c.args), file)
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				for b.Loop() {
					if code := run(argv, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
						b.Fatalf("%v: exit %d", argv, code)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/event")
			})
		}
	}
}
