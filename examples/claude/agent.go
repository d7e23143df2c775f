package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/aguitest/aguitest/agui"
)

// Options configures an Agent. The zero value talks to Anthropic's own API
// with the key in ANTHROPIC_API_KEY, as anthropic-sdk-go does by default.
type Options struct {
	// BaseURL is the Messages API's base URL, e.g. a scripted server's
	// http://127.0.0.1:PORT/v1 (any prefix works there). Empty means the
	// client's default.
	BaseURL string
	// APIKey is the provider's key. Empty means the client's default.
	APIKey string
	// Model names the model; empty means "claude-sonnet-4-5".
	Model string
	// MaxTokens bounds each answer; 0 means 4096.
	MaxTokens int64
	// ThinkingBudget turns extended thinking on with that many tokens;
	// 0 leaves it off.
	ThinkingBudget int64
	// MaxRetries is how often a request that failed with a status worth
	// retrying (429, 529, 5xx) is retried; the SDK honours retry-after.
	// 0 means 2, as the SDK's default; -1 means none.
	MaxRetries int
	// MaxTurns bounds the model requests of one run (each round trip of
	// the agent's own tool is one); 0 means 8.
	MaxTurns int
	// HTTPClient makes the model requests; nil means the client's default.
	HTTPClient *http.Client
}

// Agent is the weather-desk agent, an http.Handler serving AG-UI: a POST
// of a RunAgentInput is answered with a server-sent event stream.
type Agent struct {
	client   anthropic.Client
	o        Options
	maxTurns int
}

// New returns an agent that asks Claude through anthropic-sdk-go.
func New(o Options) *Agent {
	retries := o.MaxRetries
	switch {
	case retries == 0:
		retries = 2
	case retries < 0:
		retries = 0
	}
	opts := []option.RequestOption{option.WithMaxRetries(retries)}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	if o.Model == "" {
		o.Model = "claude-sonnet-4-5"
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = 4096
	}
	a := &Agent{client: anthropic.NewClient(opts...), o: o, maxTurns: o.MaxTurns}
	if a.maxTurns == 0 {
		a.maxTurns = 8
	}
	return a
}

// ServeHTTP runs the agent once for the RunAgentInput in the request body.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a RunAgentInput", http.StatusMethodNotAllowed)
		return
	}
	var in agui.RunAgentInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "the body is not a RunAgentInput: "+err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	enc := agui.NewSSEEncoder(w)
	// An error here means the client has gone: the run simply stops.
	_ = a.Run(r.Context(), in, enc.Encode)
}

// errStop ends a run that has already emitted its RUN_ERROR.
var errStop = errors.New("claude: run ended with RUN_ERROR")

// Run runs the agent once, handing each event to emit. It returns emit's
// error when the client has gone, and nil otherwise: failures of the model
// reach the client as RUN_ERROR.
func (a *Agent) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	rn := &run{agent: a, in: in, emit: emit, offered: map[string]bool{}}
	for _, t := range in.Tools {
		rn.offered[t.Name] = true
	}
	if err := emit(agui.NewRunStarted(in.ThreadID, in.RunID)); err != nil {
		return err
	}
	err := rn.loop(ctx)
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// run is the state of one AG-UI run.
type run struct {
	agent   *Agent
	in      agui.RunAgentInput
	emit    func(agui.Event) error
	offered map[string]bool // the client's tools
}

func (r *run) fail(message, code string) error {
	if err := r.emit(agui.NewRunError(message, code)); err != nil {
		return err
	}
	return errStop
}

// loop asks the model until it answers without calling the agent's own
// tools, or calls a client tool, which ends the run for the client to run.
func (r *run) loop(ctx context.Context) error {
	system, msgs := conversation(r.in.Messages)
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(r.agent.o.Model),
		MaxTokens: r.agent.o.MaxTokens,
		Messages:  msgs,
		Tools:     r.tools(),
	}
	if system != "" {
		params.System = []anthropic.TextBlockParam{{Text: system}}
	}
	if b := r.agent.o.ThinkingBudget; b > 0 {
		params.Thinking = anthropic.ThinkingConfigParamOfEnabled(b)
	}
	for turn := 0; turn < r.agent.maxTurns; turn++ {
		msg, err := r.stream(ctx, params, turn)
		if err != nil {
			return err
		}
		results, clientCalls, err := r.answerCalls(msg, turn)
		if err != nil {
			return err
		}
		if clientCalls || len(results) == 0 {
			// Done, or the client runs its tools and posts the next run.
			return r.emit(agui.NewRunFinished(r.in.ThreadID, r.in.RunID))
		}
		params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
	}
	return r.fail(fmt.Sprintf("the model still called tools after %d turns", r.agent.maxTurns), "MAX_TURNS")
}

// block is what the agent knows of a content block being streamed.
type block struct {
	kind      string // thinking, text, tool_use, or another type
	id        string // the reasoning message id, or the call id
	signature string
}

// stream asks the model once, streaming its answer as AG-UI events, and
// returns the whole message.
func (r *run) stream(ctx context.Context, params anthropic.MessageNewParams, turn int) (*anthropic.Message, error) {
	msgID := fmt.Sprintf("%s-msg-%d", r.in.RunID, turn)
	s := r.agent.client.Messages.NewStreaming(ctx, params)
	defer s.Close()
	var msg anthropic.Message
	blocks := map[int64]*block{}
	textOpen := false
	for s.Next() {
		ev := s.Current()
		if err := msg.Accumulate(ev); err != nil {
			return nil, r.fail("the model's stream could not be read: "+err.Error(), "PROVIDER_ERROR")
		}
		var events []agui.Event
		switch ev.Type {
		case "content_block_start":
			b := &block{kind: ev.ContentBlock.Type}
			blocks[ev.Index] = b
			switch b.kind {
			case "thinking":
				b.id = fmt.Sprintf("%s-reasoning-%d-%d", r.in.RunID, turn, ev.Index)
				events = append(events, agui.NewEvent(agui.ReasoningStart, "messageId", b.id), agui.NewReasoningMessageStart(b.id))
			case "text":
				if !textOpen {
					textOpen = true
					events = append(events, agui.NewTextMessageStart(msgID))
				}
			case "tool_use":
				b.id = ev.ContentBlock.ID
				events = append(events, agui.NewToolCallStart(b.id, ev.ContentBlock.Name, msgID))
			}
		case "content_block_delta":
			b := blocks[ev.Index]
			if b == nil {
				continue
			}
			d := ev.Delta
			switch {
			case d.Type == "thinking_delta" && d.Thinking != "":
				events = append(events, agui.NewReasoningMessageContent(b.id, d.Thinking))
			case d.Type == "signature_delta":
				b.signature += d.Signature
			case d.Type == "text_delta" && d.Text != "":
				events = append(events, agui.NewTextMessageContent(msgID, d.Text))
			case d.Type == "input_json_delta" && d.PartialJSON != "":
				events = append(events, agui.NewToolCallArgs(b.id, d.PartialJSON))
			}
		case "content_block_stop":
			b := blocks[ev.Index]
			if b == nil {
				continue
			}
			switch b.kind {
			case "thinking":
				// The signature travels with the reasoning message, so
				// that the next run can give the thinking block back.
				events = append(events, agui.NewReasoningMessageEnd(b.id),
					agui.NewEvent(agui.ReasoningEncryptedValue, "subtype", "message", "entityId", b.id, "encryptedValue", b.signature),
					agui.NewEvent(agui.ReasoningEnd, "messageId", b.id))
			case "tool_use":
				events = append(events, agui.NewToolCallEnd(b.id))
			}
		}
		for _, e := range events {
			if err := r.emit(e); err != nil {
				return nil, err
			}
		}
	}
	if err := s.Err(); err != nil {
		msg, code := providerError(err)
		return nil, r.fail("the model could not answer: "+msg, code)
	}
	if textOpen {
		if err := r.emit(agui.NewTextMessageEnd(msgID)); err != nil {
			return nil, err
		}
	}
	return &msg, nil
}

// providerError returns the message and the Anthropic error type of a
// failed request ("overloaded_error"), or PROVIDER_ERROR.
func providerError(err error) (string, string) {
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		var body struct {
			Error struct{ Type, Message string }
		}
		if json.Unmarshal([]byte(ae.RawJSON()), &body) == nil && body.Error.Type != "" {
			return body.Error.Message, body.Error.Type
		}
	}
	return err.Error(), "PROVIDER_ERROR"
}

// answerCalls runs the agent's own tools among the message's calls, each
// result as TOOL_CALL_RESULT, and returns the tool_result blocks for the
// model and whether a call is the client's to run.
func (r *run) answerCalls(msg *anthropic.Message, turn int) ([]anthropic.ContentBlockParamUnion, bool, error) {
	var results []anthropic.ContentBlockParamUnion
	clientCalls := false
	n := 0
	for _, b := range msg.Content {
		if b.Type != "tool_use" {
			continue
		}
		if b.Name != forecastTool && r.offered[b.Name] {
			clientCalls = true // the client runs it and posts the result
			continue
		}
		content, isError := r.runTool(b.Name, b.Input)
		resultID := fmt.Sprintf("%s-result-%d-%d", r.in.RunID, turn, n)
		n++
		if err := r.emit(agui.NewToolCallResult(resultID, b.ID, content)); err != nil {
			return nil, false, err
		}
		results = append(results, anthropic.NewToolResultBlock(b.ID, content, isError))
	}
	return results, clientCalls, nil
}

// runTool runs one of the agent's own tools.
func (r *run) runTool(name string, input json.RawMessage) (string, bool) {
	if name != forecastTool {
		return fmt.Sprintf("error: there is no tool %q", name), true
	}
	var args struct{ City string }
	if err := json.Unmarshal(input, &args); err != nil {
		return "error: the arguments are not JSON: " + err.Error(), true
	}
	f, ok := forecasts[strings.ToLower(args.City)]
	if !ok {
		return fmt.Sprintf("error: no forecast for %q", args.City), true
	}
	b, _ := json.Marshal(f)
	return string(b), false
}

// tools declares the agent's own tool and the client's tools to the model.
func (r *run) tools() []anthropic.ToolUnionParam {
	out := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
		Name:        forecastTool,
		Description: anthropic.String("Tomorrow's forecast for a city."),
		InputSchema: anthropic.ToolInputSchemaParam{
			Properties: map[string]any{"city": map[string]any{"type": "string"}},
			Required:   []string{"city"},
		},
	}}}
	for _, t := range r.in.Tools {
		if t.Name == forecastTool {
			continue
		}
		var schema map[string]any
		_ = json.Unmarshal(t.Parameters, &schema)
		in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		if req, ok := schema["required"].([]any); ok {
			for _, x := range req {
				if s, ok := x.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		for k, v := range schema {
			if k != "properties" && k != "required" && k != "type" {
				in.ExtraFields[k] = v
			}
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name: t.Name, Description: anthropic.String(t.Description), InputSchema: in,
		}})
	}
	return out
}

// conversation turns the AG-UI history into the system prompt and the
// Messages API's turns: a reasoning message (with its signature) becomes
// the thinking block that starts the assistant turn after it, and the
// results of one turn's calls go back together, in one user turn.
func conversation(history []agui.Message) (string, []anthropic.MessageParam) {
	var system []string
	var out []anthropic.MessageParam
	var thinking *agui.Message
	user := func(b anthropic.ContentBlockParamUnion) {
		if n := len(out); n > 0 && out[n-1].OfUser != nil {
			out[n-1].OfUser.Content = append(out[n-1].OfUser.Content, b)
			return
		}
		out = append(out, anthropic.NewUserMessage(b))
	}
	for i := range history {
		m := &history[i]
		switch m.Role {
		case agui.RoleSystem, agui.RoleDeveloper:
			system = append(system, m.Content.Text)
		case agui.RoleUser:
			if m.Content.Text != "" {
				user(anthropic.NewTextBlock(m.Content.Text))
			}
		case agui.RoleReasoning:
			thinking = m
		case agui.RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if thinking != nil && thinking.EncryptedValue != "" {
				blocks = append(blocks, anthropic.NewThinkingBlock(thinking.EncryptedValue, thinking.Content.Text))
			}
			thinking = nil
			if m.Content.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content.Text))
			}
			for _, tc := range m.ToolCalls {
				input := json.RawMessage(tc.Function.Arguments)
				if len(input) == 0 {
					input = json.RawMessage(`{}`)
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Function.Name))
			}
			if len(blocks) > 0 {
				out = append(out, anthropic.NewAssistantMessage(blocks...))
			}
		case agui.RoleTool:
			if m.Error != "" {
				user(anthropic.NewToolResultBlock(m.ToolCallID, m.Error, true))
			} else {
				user(anthropic.NewToolResultBlock(m.ToolCallID, m.Content.Text, false))
			}
		}
	}
	return strings.Join(system, "\n\n"), out
}

const forecastTool = "get_forecast"

// A forecast is what get_forecast answers.
type forecast struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
	Sky   string `json:"sky"`
}

var forecasts = map[string]forecast{
	"paris": {"Paris", 18, "sunny"},
	"rome":  {"Rome", 24, "clear"},
	"seoul": {"Seoul", 21, "cloudy"},
	"oslo":  {"Oslo", 7, "rain"},
}
