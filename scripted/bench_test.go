package scripted

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func chunksPerTurn() int {
	t := benchTurn(0)
	return len(planChunks(&t, 0, t.Plan.over(Plan{}), &Usage{}, false))
}

func BenchmarkModelStream(b *testing.B) {
	m := NewModel(benchScript(b.N))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	chunks := 0
	for range b.N {
		seq, err := m.Stream(ctx, userRequest("x"))
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range seq {
			if err != nil {
				b.Fatal(err)
			}
			chunks++
		}
	}
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkServerStream reads streams raw over loopback HTTP.
func BenchmarkServerStream(b *testing.B) {
	srv := NewServer(benchScript(b.N))
	defer srv.Close()
	client := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		resp, err := client.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(streamBody))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
	b.ReportMetric(float64(b.N*chunksPerTurn())/b.Elapsed().Seconds(), "chunks/s")
}

func BenchmarkCut(b *testing.B) {
	s := strings.Repeat(`{"q":"caf\u00e9 wörld"} `, 40)
	for _, sp := range []Split{{}, {By: Runes}, {By: Words}, {By: Random}, {Escapes: true}} {
		b.Run(sp.String(), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				sp.Cut(s, 1)
			}
			b.SetBytes(int64(len(s)))
		})
	}
}
