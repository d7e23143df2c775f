package bugs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"os"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// ChatModel is a Model on an OpenAI Chat Completions endpoint (any base
// URL, the scripted LLM's among them), asked with openai-go: its stream
// is handed on as the Go-native model's chunks, a delta without an index
// with Index -1.
type ChatModel struct {
	Client openai.Client
	// Model is the model asked for; "" means "scripted".
	Model string
}

// NewChatModel returns a ChatModel on baseURL ("http://127.0.0.1:PORT/v1"),
// without retries.
func NewChatModel(baseURL, apiKey string) ChatModel {
	return ChatModel{Client: openai.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey(apiKey), option.WithMaxRetries(0))}
}

// Stream asks the model and returns its answer's chunks.
func (m ChatModel) Stream(ctx context.Context, req scripted.Request) (iter.Seq2[scripted.Chunk, error], error) {
	model := m.Model
	if model == "" {
		model = "scripted"
	}
	params := openai.ChatCompletionNewParams{Model: model, Messages: chatMessages(req.Messages)}
	for _, t := range req.Tools {
		var p shared.FunctionParameters
		if json.Unmarshal(t.Parameters, &p) != nil || p == nil {
			p = shared.FunctionParameters{"type": "object"}
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: t.Name, Parameters: p}))
	}
	s := m.Client.Chat.Completions.NewStreaming(ctx, params)
	return func(yield func(scripted.Chunk, error) bool) {
		defer s.Close()
		for s.Next() {
			for _, ch := range s.Current().Choices {
				for _, c := range chatChunks(ch) {
					if !yield(c, nil) {
						return
					}
				}
			}
		}
		if err := s.Err(); err != nil {
			yield(scripted.Chunk{}, err)
		}
	}, nil
}

// chatChunks turns one choice of a streamed chunk into the Go-native
// model's chunks.
func chatChunks(ch openai.ChatCompletionChunkChoice) []scripted.Chunk {
	var out []scripted.Chunk
	if ch.Delta.Content != "" {
		out = append(out, scripted.Chunk{Text: ch.Delta.Content})
	}
	for _, tc := range ch.Delta.ToolCalls {
		index := -1
		if tc.JSON.Index.Valid() {
			index = int(tc.Index)
		}
		out = append(out, scripted.Chunk{Call: &scripted.CallDelta{Index: index, ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments}})
	}
	if ch.FinishReason != "" {
		out = append(out, scripted.Chunk{Finish: ch.FinishReason})
	}
	return out
}

// chatMessages converts the neutral conversation to Chat Completions
// messages.
func chatMessages(msgs []scripted.Message) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	for _, m := range msgs {
		switch m.Role {
		case "system", "developer":
			out = append(out, openai.SystemMessage(m.Content))
		case "user":
			out = append(out, openai.UserMessage(m.Content))
		case "tool":
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case "assistant":
			am := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				am.Content.OfString = openai.String(m.Content)
			}
			for _, c := range m.Calls {
				args := c.Args
				if args == "" {
					args = "{}"
				}
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					},
				})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		}
	}
	return out
}

// ServeHTTP answers a POST of a RunAgentInput with the run's events, as
// server-sent events or protobuf frames, as the request's Accept header
// asks.
func (a Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a RunAgentInput", http.StatusMethodNotAllowed)
		return
	}
	var in agui.RunAgentInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "the body is not a RunAgentInput: "+err.Error(), http.StatusBadRequest)
		return
	}
	encoding := agui.Negotiate(r.Header.Get("Accept"))
	w.Header().Set("Content-Type", encoding.ContentType())
	enc := agui.NewEncoder(w, encoding)
	flusher, _ := w.(http.Flusher)
	_ = a.Run(r.Context(), in, func(e agui.Event) error {
		if err := enc.Encode(e); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	})
}

// Weather is the agents' own tool in the examples: get_weather, answered
// from a table.
func Weather() map[string]func(args string) string {
	table := map[string]string{"Paris": "18°C", "Rome": "24°C"}
	return map[string]func(string) string{
		"get_weather": func(args string) string {
			var v struct{ City string }
			_ = json.Unmarshal([]byte(args), &v)
			return v.City + " " + table[v.City]
		},
	}
}

// Main runs the agent with bug b (None for the correct one) as a program,
// as harness.Command starts one: it serves AG-UI on the loopback port
// PORT names, its model the Chat Completions endpoint at OPENAI_BASE_URL,
// its own tool get_weather (Weather), until ctx ends.
func Main(ctx context.Context, b Bug) error {
	port, base := os.Getenv("PORT"), os.Getenv("OPENAI_BASE_URL")
	if port == "" || base == "" {
		return errors.New("PORT and OPENAI_BASE_URL must be set")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: Agent{Model: NewChatModel(base, os.Getenv("OPENAI_API_KEY")), Tools: Weather(), Bug: b}}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}
