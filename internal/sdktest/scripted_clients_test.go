package sdktest_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	. "github.com/aguitest/aguitest/scripted"

	"github.com/google/go-cmp/cmp"
	openai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	goopenai "github.com/sashabaranov/go-openai"
)

// Every plan must reach an agent intact through the real clients.

func TestOpenAIGoStream(t *testing.T) {
	for _, tc := range planCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noIndex {
				t.Skip("openai-go's accumulator keys calls by index; see TestGoOpenAINoIndex and TestNativePlans")
			}
			reassembles(t, tc.plan, openAIGo)
		})
	}
}

// reassembles checks that a client reads the one-turn script, served
// under plan, back whole, and that the server saw what the script expects.
func reassembles(t *testing.T, plan Plan, client func(ctx context.Context, url string) (joined, error)) {
	t.Helper()
	srv := NewServer(oneTurn(plan))
	defer srv.Close()
	got, err := client(t.Context(), srv.URL)
	if err != nil {
		t.Fatalf("plan %s: %v", plan, err)
	}
	if d := cmp.Diff(wantJoined(plan), got); d != "" {
		t.Errorf("plan %s: reassembled answer (-want +got):\n%s", plan, d)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
}

func openAIGoClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

func openAIGo(ctx context.Context, url string) (joined, error) {
	return chatStream(ctx, openAIGoClient(url), "gpt-test", true)
}

func TestGoOpenAIStream(t *testing.T) {
	for _, tc := range planCases() {
		t.Run(tc.name, func(t *testing.T) {
			reassembles(t, tc.plan, goOpenAI)
		})
	}
}

func goOpenAIClient(url string) *goopenai.Client {
	cfg := goopenai.DefaultConfig("test")
	cfg.BaseURL = url
	return goopenai.NewClientWithConfig(cfg)
}

// goOpenAI reads a stream with go-openai, keying calls by index, or by id
// when the index is omitted, as a careful agent does.
func goOpenAI(ctx context.Context, url string) (joined, error) {
	stream, err := goOpenAIClient(url).CreateChatCompletionStream(ctx, goopenai.ChatCompletionRequest{
		Model:         "gpt-test",
		Messages:      []goopenai.ChatCompletionMessage{{Role: "user", Content: "weather?"}},
		Stream:        true,
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		return joined{}, err
	}
	defer stream.Close()
	var j joined
	var keys []string
	usage := false
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return j, err
		}
		if resp.Usage != nil {
			usage = true
		}
		if len(resp.Choices) == 0 {
			continue
		}
		ch := resp.Choices[0]
		j.Text += ch.Delta.Content
		j.Reasoning += ch.Delta.ReasoningContent
		if ch.FinishReason != "" {
			j.Finish = string(ch.FinishReason)
		}
		for _, tc := range ch.Delta.ToolCalls {
			key := tc.ID
			if tc.Index != nil {
				key = string(rune('0' + *tc.Index))
			}
			n := slices.Index(keys, key)
			if n < 0 {
				n = len(keys)
				keys = append(keys, key)
				j.Calls = append(j.Calls, Call{})
			}
			if tc.ID != "" {
				j.Calls[n].ID = tc.ID
			}
			if tc.Function.Name != "" {
				j.Calls[n].Name = tc.Function.Name
			}
			j.Calls[n].Args += tc.Function.Arguments
		}
	}
	if !usage {
		return j, errors.New("no usage chunk")
	}
	// Keyed by first appearance; put calls back in script order.
	slices.SortStableFunc(j.Calls, func(a, b Call) int { return cmpID(a.ID, b.ID) })
	return j, nil
}

func cmpID(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
