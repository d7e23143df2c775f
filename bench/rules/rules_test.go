// Package rules measures what recognising credentials costs per MB on the
// recorder's path, two ways side by side: gitleaks as a Go dependency
// (its detector with its default config), and its rules as data, as the
// recorder uses them (recorder.Redact). It is a module of its own so that
// gitleaks and its dependencies stay out of aguitest's.
//
//	cd bench/rules && go test -bench . -count 6 | tee out.txt && benchstat out.txt
package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
)

// inputs are what the recorder searches: the events of a streamed answer
// (BenchmarkMiddleware's), prose and code (the README and the guides in
// docs/), and a provider's response chunks.
func inputs(b *testing.B) map[string][]string {
	events := make([]string, 10_000)
	for i := range events {
		events[i] = agui.NewTextMessageContent("msg-0123456789", fmt.Sprintf("token %d of a streamed answer, ", i)).String()
	}
	docs, _ := filepath.Glob("../../docs/*.md")
	var prose []string
	for _, f := range append([]string{"../../README.md"}, docs...) {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		prose = append(prose, string(text))
	}
	var sse strings.Builder
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&sse, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word%d \"}}]}\n\n", i)
	}
	return map[string][]string{"events": events, "prose": {strings.Join(prose, "\n")}, "provider": {sse.String()}}
}

func size(texts []string) int64 {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	return int64(n)
}

// BenchmarkGitleaksDependency runs gitleaks' detector (default config)
// on each text, as the recorder would call it per event.
func BenchmarkGitleaksDependency(b *testing.B) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	for name, texts := range inputs(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size(texts))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, t := range texts {
					d.DetectString(t)
				}
			}
		})
	}
}

// BenchmarkRulesAsData runs the recorder's redaction (gitleaks' rules as
// data and the recorder's own, names, userinfo, bearer tokens) on each
// text: the quick check an event takes on the recording path.
func BenchmarkRulesAsData(b *testing.B) {
	var rd recorder.Redact
	for name, texts := range inputs(b) {
		bs := make([][]byte, len(texts))
		for i, t := range texts {
			bs[i] = []byte(t)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size(texts))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, t := range bs {
					rd.Text(t)
				}
			}
		})
	}
}
