package scripted

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	openai "github.com/openai/openai-go/v3"
)

// benchTurn is a turn with three parallel calls of about 200 bytes of
// arguments each, cut in 8-byte fragments.
func benchTurn(i int) Turn {
	var calls []Call
	for n := range 3 {
		calls = append(calls, Call{Name: "tool", Args: fmt.Sprintf(`{"turn":%d,"call":%d,"text":%q}`, i, n, strings.Repeat("lorem ipsum ", 15))})
	}
	return Turn{Text: "Calling three tools.", Calls: calls, Plan: Plan{Split: Split{Size: 8}, Order: Order{By: RoundRobin}}}
}

func benchScript(n int) Script {
	s := Script{Turns: make([]Turn, n)}
	for i := range s.Turns {
		s.Turns[i] = benchTurn(i)
	}
	return s
}

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

// BenchmarkServerOpenAIGo reads streams with the openai-go client and its
// accumulator, as an agent does.
func BenchmarkServerOpenAIGo(b *testing.B) {
	srv := NewServer(benchScript(b.N))
	defer srv.Close()
	c := openAIGoClient(srv.URL)
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:         "m",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	b.ReportAllocs()
	b.ResetTimer()
	chunks := 0
	for range b.N {
		stream := c.Chat.Completions.NewStreaming(ctx, params)
		var acc openai.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
			chunks++
		}
		if err := stream.Err(); err != nil {
			b.Fatal(err)
		}
		stream.Close()
	}
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
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
