package taskboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/aguitest/aguitest/agui"
)

// Options configures an Agent. The zero value talks to OpenAI's own API
// with the key in OPENAI_API_KEY, as the openai-go client does by default.
type Options struct {
	// BaseURL is the OpenAI-compatible base URL, e.g. a scripted server's
	// http://127.0.0.1:PORT/v1. Empty means the client's default.
	BaseURL string
	// APIKey is the provider's key. Empty means the client's default.
	APIKey string
	// Model names the model; empty means "gpt-4o-mini".
	Model string
	// MaxTurns bounds the model requests of one run (each tool round
	// trip is one); 0 means 8.
	MaxTurns int
	// HTTPClient makes the model requests; nil means the client's default.
	// Give one whose transport is a recorder.Transport to record what the
	// model said.
	HTTPClient *http.Client
}

// Agent is the task-board agent, an http.Handler serving AG-UI: a POST of
// a RunAgentInput is answered with a server-sent event stream.
type Agent struct {
	client   openai.Client
	model    string
	maxTurns int
}

// New returns an agent that asks the model at o.BaseURL. The client does not
// retry: a failed request ends the run with RUN_ERROR, so the user sees the
// failure at once and a test sees exactly one request per scripted turn.
func New(o Options) *Agent {
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	a := &Agent{client: openai.NewClient(opts...), model: o.Model, maxTurns: o.MaxTurns}
	if a.model == "" {
		a.model = "gpt-4o-mini"
	}
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
	// Protobuf when the client prefers it, server-sent events otherwise.
	encoding := agui.Negotiate(r.Header.Get("Accept"))
	w.Header().Set("Content-Type", encoding.ContentType())
	w.Header().Set("Cache-Control", "no-cache")
	enc := agui.NewEncoder(w, encoding)
	// An error here means the client has gone: there is no one left to
	// tell, so the run simply stops.
	_ = a.Run(r.Context(), in, enc.Encode)
}

// errStop ends a run that has already emitted its RUN_ERROR.
var errStop = errors.New("taskboard: run ended with RUN_ERROR")

// Run runs the agent once, handing each event to emit. It returns emit's
// error when the client has gone, and nil otherwise: failures of the model
// or refusals reach the client as RUN_ERROR.
func (a *Agent) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	board, published := parseBoard(in.State)
	rn := &run{
		agent: a, in: in, emit: emit, board: board, published: published,
		offered: map[string]bool{},
	}
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
	agent *Agent
	in    agui.RunAgentInput
	emit  func(agui.Event) error
	// board is the agent's copy; published says whether the client's
	// copy equals it, so that deltas apply to it.
	board     Board
	published bool
	offered   map[string]bool
	messages  []openai.ChatCompletionMessageParamUnion
}

// call is one tool call of a model turn as its deltas arrive.
type call struct {
	id, name string
	args     strings.Builder
}

func (rn *run) fail(message, code string) error {
	if err := rn.emit(agui.NewRunError(message, code)); err != nil {
		return err
	}
	return errStop
}

func (rn *run) loop(ctx context.Context) error {
	rn.messages = append([]openai.ChatCompletionMessageParamUnion{rn.systemPrompt()}, toOpenAI(rn.in.Messages)...)
	for turn := 0; turn < rn.agent.maxTurns; turn++ {
		calls, err := rn.ask(ctx, turn)
		if err != nil {
			return err
		}
		if len(calls) == 0 {
			return rn.emit(agui.NewRunFinished(rn.in.ThreadID, rn.in.RunID))
		}
		assistant := openai.ChatCompletionAssistantMessageParam{}
		for _, c := range calls {
			assistant.ToolCalls = append(assistant.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.id,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.name, Arguments: c.args.String()},
				},
			})
		}
		rn.messages = append(rn.messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &assistant})
		for i, c := range calls {
			result, err := rn.execute(c)
			if err != nil {
				return err
			}
			if err := rn.emit(agui.NewToolCallEnd(c.id)); err != nil {
				return err
			}
			resultID := fmt.Sprintf("%s-result-%d-%d", rn.in.RunID, turn, i)
			if err := rn.emit(agui.NewToolCallResult(resultID, c.id, result)); err != nil {
				return err
			}
			rn.messages = append(rn.messages, openai.ToolMessage(result, c.id))
		}
	}
	return rn.fail(fmt.Sprintf("the model was still calling tools after %d requests", rn.agent.maxTurns), "TOO_MANY_TURNS")
}

// ask sends the conversation to the model and streams its answer: text as
// TEXT_MESSAGE_*, each call as TOOL_CALL_START and TOOL_CALL_ARGS as its
// fragments arrive. The calls are left open: they end once they have run.
func (rn *run) ask(ctx context.Context, turn int) ([]*call, error) {
	stream := rn.agent.client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    rn.agent.model,
		Messages: rn.messages,
		Tools:    modelTools,
	})
	defer stream.Close()

	msgID := fmt.Sprintf("%s-msg-%d", rn.in.RunID, turn)
	textOpen := false
	var text strings.Builder
	var calls []*call
	byKey := map[string]*call{}
	lastKey := ""
	for stream.Next() {
		chunk := stream.Current()
		if len(chunk.Choices) == 0 {
			continue // the usage chunk
		}
		delta := chunk.Choices[0].Delta
		if delta.Content != "" {
			if !textOpen {
				textOpen = true
				if err := rn.emit(agui.NewTextMessageStart(msgID)); err != nil {
					return nil, err
				}
			}
			text.WriteString(delta.Content)
			if err := rn.emit(agui.NewTextMessageContent(msgID, delta.Content)); err != nil {
				return nil, err
			}
		}
		for _, tc := range delta.ToolCalls {
			// Providers key parallel calls by index; some omit it
			// and repeat the id instead.
			key := tc.ID
			if tc.JSON.Index.Valid() {
				key = fmt.Sprint(tc.Index)
			}
			if key == "" {
				key = lastKey
			}
			lastKey = key
			c, ok := byKey[key]
			if !ok {
				name := tc.Function.Name
				if isBoardTool(name) && !rn.offered[name] {
					// The agent's own rule, not the protocol's: it
					// changes the board only in ways the client
					// declared it can take.
					return nil, rn.fail(fmt.Sprintf("the client offered no %s tool", name), "TOOL_NOT_OFFERED")
				}
				c = &call{id: fmt.Sprintf("%s-call-%d-%d", rn.in.RunID, turn, len(calls)), name: name}
				byKey[key] = c
				calls = append(calls, c)
				if err := rn.emit(agui.NewToolCallStart(c.id, c.name, msgID)); err != nil {
					return nil, err
				}
			}
			if frag := tc.Function.Arguments; frag != "" {
				c.args.WriteString(frag)
				if err := rn.emit(agui.NewToolCallArgs(c.id, frag)); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, rn.fail(providerFailure(err), "PROVIDER_ERROR")
	}
	if textOpen {
		if err := rn.emit(agui.NewTextMessageEnd(msgID)); err != nil {
			return nil, err
		}
	}
	if len(calls) == 0 {
		rn.messages = append(rn.messages, openai.AssistantMessage(text.String()))
	}
	return calls, nil
}

// providerFailure describes a failed model request for the user, without
// the provider's URL or body.
func providerFailure(err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return fmt.Sprintf("the model could not answer: %d %s", apiErr.StatusCode, http.StatusText(apiErr.StatusCode))
	}
	return "the model's answer broke off: " + err.Error()
}

// execute runs one call while it is still open, publishing what it changes
// on the board, and returns its result. Board tools change the state;
// render_a2ui needs nothing from the agent but an acknowledgement; any other
// name gets an error result the model can read.
func (rn *run) execute(c *call) (string, error) {
	if c.name == RenderA2UI {
		var a struct {
			Surface json.RawMessage `json:"surface"`
		}
		if err := json.Unmarshal([]byte(c.args.String()), &a); err != nil || len(a.Surface) == 0 {
			return errorResult("render_a2ui needs a surface object"), nil
		}
		return `{"rendered":true}`, nil
	}
	ops, task, err := rn.board.apply(c.name, c.args.String())
	if err != nil {
		return errorResult(err.Error()), nil
	}
	if !rn.published {
		// The client's state held no board, so a patch would not
		// apply: publish the whole board once, then patch it.
		rn.published = true
		if err := rn.emit(agui.NewStateSnapshot(rn.board)); err != nil {
			return "", err
		}
	} else if len(ops) > 0 {
		if err := rn.emit(agui.NewStateDelta(ops)); err != nil {
			return "", err
		}
	}
	b, _ := json.Marshal(struct {
		OK   bool `json:"ok"`
		Task Task `json:"task"`
	}{true, task})
	return string(b), nil
}

func errorResult(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

func (rn *run) systemPrompt() openai.ChatCompletionMessageParamUnion {
	b, _ := json.Marshal(rn.board)
	return openai.SystemMessage("You keep the user's task board. Change it only with your tools; " +
		"refer to tasks by id. Use render_a2ui to show a surface. The board now: " + string(b))
}

// toOpenAI turns the AG-UI conversation into the model's messages. A tool
// message with an error carries it as an error result.
func toOpenAI(msgs []agui.Message) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	for _, m := range msgs {
		text := textOf(m.Content)
		switch m.Role {
		case agui.RoleUser:
			out = append(out, openai.UserMessage(text))
		case agui.RoleSystem:
			out = append(out, openai.SystemMessage(text))
		case agui.RoleDeveloper:
			out = append(out, openai.DeveloperMessage(text))
		case agui.RoleAssistant:
			am := openai.ChatCompletionAssistantMessageParam{}
			if text != "" {
				am.Content.OfString = openai.String(text)
			}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
					},
				})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case agui.RoleTool:
			if m.Error != "" {
				text = errorResult(m.Error)
			}
			out = append(out, openai.ToolMessage(text, m.ToolCallID))
		}
		// Activity and reasoning messages are for the user, not the model.
	}
	return out
}

func textOf(c agui.Content) string {
	if !c.IsParts() {
		return c.Text
	}
	var parts []string
	for _, p := range c.Parts {
		if p.Type == "text" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}
