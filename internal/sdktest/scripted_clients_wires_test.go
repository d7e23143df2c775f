package sdktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	. "github.com/aguitest/aguitest/scripted"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	openai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"
)

// The real Go clients of the other wires, on every plan: each must
// reassemble the scripted turn exactly, or, for a plan its wire cannot
// express, get an error naming the wire.

// goClient reads one streamed turn from a scripted server's URL.
type goClient struct {
	name string
	wire Wire
	read func(ctx context.Context, url string) (joined, error)
}

func goClients() []goClient {
	return []goClient{
		{"openai-go responses", WireResponses, openAIGoResponses},
		{"anthropic-sdk-go", WireAnthropic, anthropicGo},
		{"genai", WireGemini, genaiGo},
	}
}

// wantOn is what a client of wire w reassembles from oneTurn: the same
// text, reasoning and calls, and the wire's finish reason.
func wantOn(w Wire) joined {
	j := wantJoined(Plan{})
	switch w {
	case WireResponses:
		j.Finish = "completed"
	case WireAnthropic:
		j.Finish = "tool_use"
	case WireGemini, WireVertex:
		j.Finish = "STOP"
		for i := range j.Calls {
			j.Calls[i].Args = canonicalJSON(j.Calls[i].Args)
		}
	case WireAzureResponses:
		j.Finish = "completed"
	case WireBedrock:
		j.Finish = "tool_use"
		for i := range j.Calls {
			if j.Calls[i].ID == "" || strings.HasPrefix(j.Calls[i].ID, "call_") {
				j.Calls[i].ID = fmt.Sprintf("tooluse_1_%d", i+1) // Bedrock's ids for unnamed calls of the first turn
			}
		}
	case WireOllama:
		j.Finish = "stop"
		for i := range j.Calls {
			j.Calls[i].Args = canonicalJSON(j.Calls[i].Args)
		}
	}
	return j
}

func TestGoClientsOnWires(t *testing.T) {
	for _, c := range goClients() {
		t.Run(c.name, func(t *testing.T) {
			for _, tc := range planCases() {
				t.Run(tc.name, func(t *testing.T) {
					script := oneTurn(tc.plan)
					srv := NewServer(script)
					defer srv.Close()
					got, err := c.read(t.Context(), srv.URL)
					if werr := script.ValidateWire(c.wire, true); werr != nil {
						// The wire cannot carry the plan: the client gets an
						// error that names the wire, and so does Check.
						if err == nil || !strings.Contains(errMessage(err), c.wire.String()) {
							t.Errorf("plan %s on %s: client error %v, want one naming the wire (%v)", tc.plan, c.wire, err, werr)
						}
						if cerr := srv.Check(); cerr == nil || !strings.Contains(cerr.Error(), "cannot express") {
							t.Errorf("Check() = %v, want the plan reported", cerr)
						}
						return
					}
					if err != nil {
						t.Fatalf("plan %s: %v", tc.plan, err)
					}
					if d := cmp.Diff(wantOn(c.wire), got); d != "" {
						t.Errorf("plan %s: reassembled answer (-want +got):\n%s", tc.plan, d)
					}
					if err := srv.Check(); err != nil {
						t.Error(err)
					}
				})
			}
		})
	}
}

// openAIGoResponses streams one turn with openai-go's Responses API and
// reassembles it from the deltas, keyed by item id, as an agent does; the
// output of response.completed must agree.
func openAIGoResponses(ctx context.Context, url string) (joined, error) {
	return responsesStream(ctx, openAIGoClient(url))
}

// responsesStream is openAIGoResponses for any client.
func responsesStream(ctx context.Context, c openai.Client) (joined, error) {
	stream := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{
		Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("weather?")},
	})
	defer stream.Close()
	var j joined
	args := map[string]*strings.Builder{}
	var order []string
	calls := map[string]*Call{}
	var final *responses.Response
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			j.Text += ev.Delta
		case "response.reasoning_summary_text.delta":
			j.Reasoning += ev.Delta
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				calls[ev.Item.ID] = &Call{ID: ev.Item.CallID, Name: ev.Item.Name}
				args[ev.Item.ID] = &strings.Builder{}
				order = append(order, ev.Item.ID)
			}
		case "response.function_call_arguments.delta":
			b, ok := args[ev.ItemID]
			if !ok {
				return j, fmt.Errorf("arguments delta for unknown item %q", ev.ItemID)
			}
			b.WriteString(ev.Delta)
		case "response.function_call_arguments.done":
			if got := args[ev.ItemID].String(); got != ev.Arguments {
				return j, fmt.Errorf("item %s: deltas join to %q, done says %q", ev.ItemID, got, ev.Arguments)
			}
		case "response.completed", "response.incomplete":
			r := ev.Response
			final = &r
			j.Finish = string(r.Status)
		}
	}
	if err := stream.Err(); err != nil {
		return j, err
	}
	if final == nil {
		return j, errors.New("no response.completed")
	}
	for _, id := range order {
		c := calls[id]
		c.Args = args[id].String()
		j.Calls = append(j.Calls, *c)
	}
	sortCalls(j.Calls)
	// The completed response holds the same answer.
	var done joined
	for _, it := range final.Output {
		switch it.Type {
		case "message":
			for _, p := range it.Content {
				done.Text += p.Text
			}
		case "reasoning":
			for _, s := range it.Summary {
				done.Reasoning += s.Text
			}
		case "function_call":
			done.Calls = append(done.Calls, Call{ID: it.CallID, Name: it.Name, Args: it.Arguments.OfString})
		}
	}
	sortCalls(done.Calls)
	done.Finish = j.Finish
	if d := cmp.Diff(j, done); d != "" {
		return j, fmt.Errorf("response.completed differs from the deltas (-deltas +completed):\n%s", d)
	}
	if final.Usage.TotalTokens == 0 {
		return j, errors.New("no usage")
	}
	return j, nil
}

// sortCalls puts calls in script order (ids a, b, c), whatever order the
// plan streamed them in.
func sortCalls(cs []Call) {
	for i := range cs {
		for k := i + 1; k < len(cs); k++ {
			if cs[k].ID < cs[i].ID {
				cs[i], cs[k] = cs[k], cs[i]
			}
		}
	}
}

func anthropicClient(url string, retries int) anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(url), aoption.WithAPIKey("test"), aoption.WithMaxRetries(retries))
}

// anthropicGo streams one turn with anthropic-sdk-go and its message
// accumulation.
func anthropicGo(ctx context.Context, url string) (joined, error) {
	c := anthropicClient(url, 0)
	stream := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("weather?"))},
	})
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			return joined{}, err
		}
	}
	if err := stream.Err(); err != nil {
		return joined{}, err
	}
	var j joined
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			j.Text += b.Text
		case "thinking":
			j.Reasoning += b.Thinking
			if b.Signature == "" {
				return j, errors.New("thinking block without a signature")
			}
		case "tool_use":
			j.Calls = append(j.Calls, Call{ID: b.ID, Name: b.Name, Args: string(b.Input)})
		}
	}
	sortCalls(j.Calls)
	j.Finish = string(msg.StopReason)
	if msg.Usage.OutputTokens == 0 || msg.ID == "" {
		return j, fmt.Errorf("message without id or usage: %+v", msg.Usage)
	}
	return j, nil
}

func genaiClient(ctx context.Context, url string) (*genai.Client, error) {
	return genai.NewClient(ctx, &genai.ClientConfig{APIKey: "test", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}})
}

// genaiGo streams one turn with google.golang.org/genai. Function calls
// arrive as objects, so their arguments are compared as canonical JSON.
func genaiGo(ctx context.Context, url string) (joined, error) {
	c, err := genaiClient(ctx, url)
	if err != nil {
		return joined{}, err
	}
	return genaiStream(ctx, c)
}

// genaiStream is genaiGo for any client.
func genaiStream(ctx context.Context, c *genai.Client) (joined, error) {
	var j joined
	for resp, err := range c.Models.GenerateContentStream(ctx, "gemini-test", genai.Text("weather?"), nil) {
		if err != nil {
			return j, err
		}
		if len(resp.Candidates) == 0 {
			return j, errors.New("a chunk without candidates")
		}
		cand := resp.Candidates[0]
		if cand.FinishReason != "" {
			j.Finish = string(cand.FinishReason)
		}
		if cand.Content == nil {
			continue
		}
		for _, p := range cand.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				args, _ := json.Marshal(p.FunctionCall.Args)
				j.Calls = append(j.Calls, Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: string(args)})
			case p.Thought:
				j.Reasoning += p.Text
			default:
				j.Text += p.Text
			}
		}
	}
	sortCalls(j.Calls)
	return j, nil
}

// TestGoClientFaults: each fault reaches each Go client as its provider's
// error, with the status and type the provider would send.
func TestGoClientFaults(t *testing.T) {
	text := Turn{Text: strings.Repeat("word ", 20)}
	with := func(f Fault) Script {
		t := text
		t.Fault = &f
		return Script{Turns: []Turn{t}}
	}
	tests := []struct {
		name   string
		script Script
		// check says what is wrong with a client's error, per wire.
		check func(w Wire, err error) string
	}{
		{"rate limited", with(Fault{Kind: FaultStatus, Status: 429, RetryAfter: "0"}), func(w Wire, err error) string {
			return wantStatus(w, err, 429, map[Wire]string{WireResponses: "requests", WireAnthropic: "rate_limit_error", WireGemini: "RESOURCE_EXHAUSTED"}[w])
		}},
		{"overloaded", with(Fault{Kind: FaultStatus, Status: 529}), func(w Wire, err error) string {
			return wantStatus(w, err, 529, map[Wire]string{WireResponses: "server_error", WireAnthropic: "overloaded_error", WireGemini: "INTERNAL"}[w])
		}},
		{"error event", with(Fault{Kind: FaultError, After: 3}), func(w Wire, err error) string {
			if err == nil {
				return "no error"
			}
			want := map[Wire]string{WireResponses: "server_error", WireAnthropic: "overloaded_error", WireGemini: "INTERNAL"}[w]
			if !strings.Contains(err.Error(), want) && !strings.Contains(errMessage(err), want) {
				return fmt.Sprintf("error %q does not say %s", err, want)
			}
			return ""
		}},
		{"disconnect", with(Fault{Kind: FaultDisconnect, After: 3}), anyError},
		{"malformed", with(Fault{Kind: FaultMalformed, After: 3}), anyError},
	}
	for _, c := range goClients() {
		t.Run(c.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					srv := NewServer(tt.script)
					defer srv.Close()
					_, err := c.read(t.Context(), srv.URL)
					if msg := tt.check(c.wire, err); msg != "" {
						t.Errorf("%s: %s", c.wire, msg)
					}
				})
			}
			t.Run("stall", func(t *testing.T) {
				srv := NewServer(with(Fault{Kind: FaultStall, After: 3}))
				defer srv.Close()
				ctx, cancel := context.WithCancel(t.Context())
				// The client's timeout, without waiting for one: cancel once
				// the server has sent what it sends before stalling.
				done := make(chan error, 1)
				go func() {
					_, err := c.read(ctx, srv.URL)
					done <- err
				}()
				for srv.Model().Used() == 0 {
					select {
					case err := <-done:
						t.Fatalf("the stream ended before stalling: %v", err)
					default:
					}
					runtime.Gosched()
				}
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
			})
		})
	}
}

// errMessage returns the provider's message of a client's API error (which
// openai-go keeps out of Error()), or the error's text.
func errMessage(err error) string {
	var oe *openai.Error
	var ae *anthropic.Error
	var ge genai.APIError
	switch {
	case errors.As(err, &oe):
		return oe.Message
	case errors.As(err, &ae):
		return ae.RawJSON()
	case errors.As(err, &ge):
		return ge.Message
	}
	return err.Error()
}

func anyError(_ Wire, err error) string {
	if err == nil {
		return "the client read the stream without an error"
	}
	return ""
}

// wantStatus checks that err is the wire client's API error with status
// and error type.
func wantStatus(w Wire, err error, status int, typ string) string {
	var (
		gotStatus int
		gotType   string
	)
	var oe *openai.Error
	var ae *anthropic.Error
	var ge genai.APIError
	switch {
	case errors.As(err, &oe):
		gotStatus, gotType = oe.StatusCode, oe.Type
	case errors.As(err, &ae):
		gotStatus = ae.StatusCode
		var body struct{ Error struct{ Type string } }
		_ = json.Unmarshal([]byte(ae.RawJSON()), &body)
		gotType = body.Error.Type
	case errors.As(err, &ge):
		gotStatus, gotType = ge.Code, ge.Status
	default:
		return fmt.Sprintf("error %v (%T) is not the client's API error", err, err)
	}
	if gotStatus != status || gotType != typ {
		return fmt.Sprintf("got status %d type %q, want %d %q (%v)", gotStatus, gotType, status, typ, err)
	}
	return ""
}

// TestAnthropicRetries: a fault repeated twice, then the answer; the SDK's
// two retries meet the fault twice and then get the answer, honouring
// retry-after: 0.
func TestAnthropicRetries(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{
		{Fault: &Fault{Kind: FaultStatus, Status: 529, RetryAfter: "0", Times: 2}},
		{Text: "Third time lucky."},
	}})
	defer srv.Close()
	c := anthropicClient(srv.URL, 2)
	msg, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 100,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "Third time lucky." {
		t.Errorf("content %+v", msg.Content)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
}

// TestAnthropicConversation runs a tool round trip with anthropic-sdk-go:
// the accumulated message goes back as the assistant turn, with the tool
// result, and the request reads the same in the neutral form as on Chat
// Completions.
func TestAnthropicConversation(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{
		{Reasoning: "Two cities.", Text: "Checking.", Calls: []Call{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"Rome"}`}}},
		{Expect: Expect{ToolResults: []string{"call_1_1", "call_1_2"}, Messages: 5}, Text: "Both sunny."},
	}})
	defer srv.Close()
	c := anthropicClient(srv.URL, 0)
	params := anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 1024,
		System:   []anthropic.TextBlockParam{{Text: "Be brief."}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Paris and Rome?"))},
		Tools:    []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}},
	}
	stream := c.Messages.NewStreaming(t.Context(), params)
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, msg.ToParam())
	var results []anthropic.ContentBlockParamUnion
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			results = append(results, anthropic.NewToolResultBlock(b.ID, "sunny", false))
		}
	}
	params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
	final, err := c.Messages.New(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	if final.Content[0].Text != "Both sunny." {
		t.Errorf("final %+v", final.Content)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	reqs := srv.Requests()
	want := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Paris and Rome?"},
		{Role: "assistant", Content: "Checking.", Reasoning: "Two cities.", Calls: []Call{
			{ID: "toolu_1_1", Name: "get_weather", Args: `{"city":"Paris"}`},
			{ID: "toolu_1_2", Name: "get_weather", Args: `{"city":"Rome"}`},
		}},
		{Role: "tool", ToolCallID: "toolu_1_1", Content: "sunny"},
		{Role: "tool", ToolCallID: "toolu_1_2", Content: "sunny"},
	}
	if d := cmp.Diff(want, reqs[1].Messages); d != "" {
		t.Errorf("second request, neutral form (-want +got):\n%s", d)
	}
	if reqs[1].System != "Be brief." || reqs[1].Tools[0].Name != "get_weather" || reqs[1].Wire != WireAnthropic || reqs[1].Model != "claude-test" {
		t.Errorf("request %+v", reqs[1])
	}
}

// TestGenaiConversation runs a tool round trip with genai, and the request
// is read into the neutral form.
func TestGenaiConversation(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{
		{Calls: []Call{{ID: "w1", Name: "get_weather", Args: `{"city":"Paris"}`}}},
		{Expect: Expect{ToolResults: []string{"w1"}}, Text: "Sunny."},
	}})
	defer srv.Close()
	c, err := genaiClient(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("Be brief.", genai.RoleUser),
		Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_weather"}}}},
	}
	contents := genai.Text("Paris?")
	resp, err := c.Models.GenerateContent(t.Context(), "gemini-test", contents, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fc := resp.FunctionCalls()
	if len(fc) != 1 || fc[0].ID != "w1" || fc[0].Args["city"] != "Paris" {
		t.Fatalf("calls %+v", fc)
	}
	contents = append(contents, resp.Candidates[0].Content,
		genai.NewContentFromFunctionResponse("get_weather", map[string]any{"t": 21}, genai.RoleUser))
	contents[2].Parts[0].FunctionResponse.ID = "w1"
	resp, err = c.Models.GenerateContent(t.Context(), "gemini-test", contents, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Sunny." {
		t.Errorf("text %q", resp.Text())
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	got := srv.Requests()[1]
	want := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Paris?"},
		{Role: "assistant", Calls: []Call{{ID: "w1", Name: "get_weather", Args: `{"city":"Paris"}`}}},
		{Role: "tool", ToolCallID: "w1", Name: "get_weather", Content: `{"t":21}`},
	}
	if d := cmp.Diff(want, got.Messages); d != "" {
		t.Errorf("neutral form (-want +got):\n%s", d)
	}
	if got.Model != "gemini-test" || got.Stream || got.Wire != WireGemini {
		t.Errorf("request %+v", got)
	}
}

// TestOpenAIGoResponsesConversation runs a tool round trip on the
// Responses wire, sending the previous output back as items.
func TestOpenAIGoResponsesConversation(t *testing.T) {
	srv := NewServer(Script{Turns: []Turn{
		{Calls: []Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}},
		{Expect: Expect{ToolResults: []string{"call_1_1"}}, Text: "Sunny."},
	}})
	defer srv.Close()
	c := openAIGoClient(srv.URL)
	params := responses.ResponseNewParams{
		Model:        "gpt-test",
		Instructions: openai.String("Be brief."),
		Input:        responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("Paris?", responses.EasyInputMessageRoleUser)}},
		Tools:        []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather", Parameters: map[string]any{"type": "object"}}}},
	}
	first, err := c.Responses.New(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	items := params.Input.OfInputItemList
	for _, it := range first.Output {
		if it.Type == "function_call" {
			out := responses.ResponseInputItemParamOfFunctionCallOutput("sunny")
			out.OfFunctionCallOutput.CallID = openai.String(it.CallID)
			items = append(items, responses.ResponseInputItemParamOfFunctionCall(it.Arguments.OfString, it.CallID, it.Name), out)
		}
	}
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	second, err := c.Responses.New(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	if second.OutputText() != "Sunny." {
		t.Errorf("text %q", second.OutputText())
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	want := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Paris?"},
		{Role: "assistant", Calls: []Call{{ID: "call_1_1", Name: "get_weather", Args: `{"city":"Paris"}`}}},
		{Role: "tool", ToolCallID: "call_1_1", Content: "sunny"},
	}
	if d := cmp.Diff(want, srv.Requests()[1].Messages); d != "" {
		t.Errorf("neutral form (-want +got):\n%s", d)
	}
}
