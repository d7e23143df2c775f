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

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agent/anthropicmessages"
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
	handler  http.Handler
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
	a.handler = agent.Handler(a.run, agent.Options{})
	return a
}

// ServeHTTP runs the agent once for the RunAgentInput in the request body.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.handler.ServeHTTP(w, r) }

// Run runs the agent once, handing each event to emit. It returns emit's
// error when the client has gone, and nil otherwise: failures of the model
// reach the client as RUN_ERROR.
func (a *Agent) Run(ctx context.Context, in agui.RunAgentInput, emit func(agui.Event) error) error {
	run, err := agent.Start(in, emit, agent.Options{})
	if err != nil {
		return err
	}
	return run.End(a.run(ctx, run))
}

// run asks the model until it answers without calling the agent's own
// tool, or calls a client tool, which ends the run for the client to run.
// The bridge turns the model's content blocks into the run's events; the
// message it accumulated goes back to the model with the results.
func (a *Agent) run(ctx context.Context, run *agent.Run) error {
	system, msgs := anthropicmessages.Messages(run.Input().Messages)
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(a.o.Model),
		MaxTokens: a.o.MaxTokens,
		System:    system,
		Messages:  msgs,
		Tools:     anthropicmessages.Tools(tools(run.Input().Tools)),
	}
	if b := a.o.ThinkingBudget; b > 0 {
		params.Thinking = anthropic.ThinkingConfigParamOfEnabled(b)
	}
	for range a.maxTurns {
		turn := run.Turn(agent.TurnOptions{ProviderIDs: true})
		bridge := anthropicmessages.New(turn)
		s := a.client.Messages.NewStreaming(ctx, params)
		answer, err := agent.Consume(turn, s, bridge.Event, anthropicmessages.ErrIncomplete)
		s.Close()
		if err != nil {
			return failure(ctx, err)
		}
		results, clientCalls, err := answerCalls(run, answer)
		if err != nil {
			return err
		}
		if clientCalls || len(results) == 0 {
			return nil // done, or the client runs its tools and posts the next run
		}
		params.Messages = append(params.Messages, bridge.Message().ToParam(), anthropic.NewUserMessage(results...))
	}
	return &agent.Failure{Message: fmt.Sprintf("the model still called tools after %d turns", a.maxTurns), Code: "MAX_TURNS"}
}

// failure says why the model could not answer, with the Anthropic error
// type as the code ("overloaded_error"), or PROVIDER_ERROR; the run's own
// errors go as they are.
func failure(ctx context.Context, err error) error {
	var f *agent.Failure
	var ae *agent.Error
	switch {
	case ctx.Err() != nil, errors.As(err, &f), errors.As(err, &ae), errors.Is(err, agent.ErrGone):
		return err
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		var body struct {
			Error struct{ Type, Message string }
		}
		if json.Unmarshal([]byte(apiErr.RawJSON()), &body) == nil && body.Error.Type != "" {
			return &agent.Failure{Message: "the model could not answer: " + body.Error.Message, Code: body.Error.Type}
		}
	}
	return &agent.Failure{Message: "the model could not answer: " + err.Error(), Code: "PROVIDER_ERROR"}
}

// answerCalls runs the agent's own tool for the answer's calls to it, each
// result as TOOL_CALL_RESULT, and returns the tool_result blocks for the
// model and whether a call is the client's to run.
func answerCalls(run *agent.Run, answer *agent.Answer) ([]anthropic.ContentBlockParamUnion, bool, error) {
	var results []anthropic.ContentBlockParamUnion
	clientCalls := false
	for _, c := range answer.Calls {
		if c.Name() != forecastTool && run.Offered(c.Name()) {
			clientCalls = true // the client runs it and posts the result
			continue
		}
		content, isError := runTool(c.Name(), json.RawMessage(c.RawArgs()))
		if _, err := c.Result(content); err != nil {
			return nil, false, err
		}
		results = append(results, anthropic.NewToolResultBlock(c.ID(), content, isError))
	}
	return results, clientCalls, nil
}

// runTool runs one of the agent's own tools.
func runTool(name string, input json.RawMessage) (string, bool) {
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
func tools(client []agui.Tool) []agui.Tool {
	out := []agui.Tool{{
		Name:        forecastTool,
		Description: "Tomorrow's forecast for a city.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}}
	for _, t := range client {
		if t.Name != forecastTool {
			out = append(out, t)
		}
	}
	return out
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
