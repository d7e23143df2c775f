package taskboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/openaichat"
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
	handler  http.Handler
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
	a.handler = agent.Handler(a.run, agent.Options{})
	return a
}

// ServeHTTP runs the agent once for the RunAgentInput in the request body.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.handler.ServeHTTP(w, r) }

// Run runs the agent once, handing each event to emit. It returns emit's
// error when the client has gone, and nil otherwise: failures of the model
// or refusals reach the client as RUN_ERROR.
func (a *Agent) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	run, err := agent.Start(in, emit, agent.Options{})
	if err != nil {
		return err
	}
	return run.End(a.run(ctx, run))
}

// run is one AG-UI run: the model is asked until it answers without
// calling tools. Each call runs while it is still open, publishing what it
// changes on the board, then gets its result.
func (a *Agent) run(ctx context.Context, run *agent.Run) error {
	board, published := parseBoard(run.Input().State)
	messages := append([]openai.ChatCompletionMessageParamUnion{systemPrompt(board)}, openaichat.Messages(run.Input().Messages)...)
	// The agent's own rule, not the protocol's: it changes the board only
	// in ways the client declared it can take. render_a2ui is not gated.
	gate := func(name string) error {
		if isBoardTool(name) && !run.Offered(name) {
			return &agent.Failure{Message: fmt.Sprintf("the client offered no %s tool", name), Code: "TOOL_NOT_OFFERED"}
		}
		return nil
	}
	for range a.maxTurns {
		stream := a.client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model:    a.model,
			Messages: messages,
			Tools:    modelTools,
		})
		answer, err := openaichat.Stream(run.Turn(agent.TurnOptions{KeepOpen: true, Gate: gate}), stream)
		stream.Close()
		if err != nil {
			return failure(ctx, err)
		}
		if len(answer.Calls) == 0 {
			return nil
		}
		messages = append(messages, openaichat.Assistant(answer))
		for _, c := range answer.Calls {
			result, err := execute(run, c, &board, &published)
			if err != nil {
				return err
			}
			if _, err := c.Result(result); err != nil {
				return err
			}
			messages = append(messages, openai.ToolMessage(result, c.ID()))
		}
	}
	return &agent.Failure{Message: fmt.Sprintf("the model was still calling tools after %d requests", a.maxTurns), Code: "TOO_MANY_TURNS"}
}

// failure says why the model's answer failed: the agent's own refusal or
// a refused event as they are, the model's failure for the user, without
// the provider's URL or body.
func failure(ctx context.Context, err error) error {
	var f *agent.Failure
	var ae *agent.Error
	switch {
	case ctx.Err() != nil, errors.As(err, &f), errors.As(err, &ae), errors.Is(err, agent.ErrGone):
		return err
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return &agent.Failure{Message: fmt.Sprintf("the model could not answer: %d %s", apiErr.StatusCode, http.StatusText(apiErr.StatusCode)), Code: "PROVIDER_ERROR"}
	}
	return &agent.Failure{Message: "the model's answer broke off: " + err.Error(), Code: "PROVIDER_ERROR"}
}

// execute runs one call while it is still open, publishing what it changes
// on the board, and returns its result. Board tools change the state;
// render_a2ui needs nothing from the agent but an acknowledgement; any other
// name gets an error result the model can read.
func execute(run *agent.Run, c *agent.ToolCall, board *Board, published *bool) (string, error) {
	if c.Name() == RenderA2UI {
		var args struct {
			Surface json.RawMessage `json:"surface"`
		}
		if err := c.ParseArgs(&args); err != nil || len(args.Surface) == 0 {
			return errorResult("render_a2ui needs a surface object"), nil
		}
		return `{"rendered":true}`, nil
	}
	ops, task, err := board.apply(c.Name(), c.RawArgs())
	if err != nil {
		return errorResult(err.Error()), nil
	}
	if !*published {
		// The client's state held no board, so a patch would not
		// apply: publish the whole board once, then patch it.
		*published = true
		if err := run.StateSnapshot(board); err != nil {
			return "", err
		}
	} else if len(ops) > 0 {
		// The tool knows its change: an append is "/tasks/-", a move
		// a move, which a diff of two boards would not say as well.
		// The run checks that the patch applies to the client's board.
		if err := run.StatePatch(ops); err != nil {
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

func systemPrompt(board Board) openai.ChatCompletionMessageParamUnion {
	b, _ := json.Marshal(board)
	return openai.SystemMessage("You keep the user's task board. Change it only with your tools; " +
		"refer to tasks by id. Use render_a2ui to show a surface. The board now: " + string(b))
}
