package sdktest_test

import (
	"context"
	"testing"

	. "github.com/aguitest/aguitest/scripted"
	openai "github.com/openai/openai-go/v3"
)

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
