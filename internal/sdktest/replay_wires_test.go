package sdktest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	openai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"cloud.google.com/go/auth"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	btypes "github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	ollama "github.com/ollama/ollama/api"

	"github.com/aguitest/aguitest/internal/llmwire"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/scripted"

	. "github.com/aguitest/aguitest/replay"
)

// A wireClient reads one answer on a wire with a real client, through hc.
type wireClient struct {
	wire scripted.Wire
	read func(ctx context.Context, base string, hc *http.Client) (string, error)
}

// wireClients read the text and calls of one turn, as one string.
var wireClients = []wireClient{
	{scripted.WireChat, func(ctx context.Context, base string, hc *http.Client) (string, error) {
		c := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey("k"), option.WithHTTPClient(hc), option.WithMaxRetries(0))
		s := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			return "", err
		}
		out := acc.Choices[0].Message.Content
		for _, tc := range acc.Choices[0].Message.ToolCalls {
			out += "|" + tc.ID + " " + tc.Function.Name + tc.Function.Arguments
		}
		return out, nil
	}},
	{scripted.WireResponses, func(ctx context.Context, base string, hc *http.Client) (string, error) {
		c := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey("k"), option.WithHTTPClient(hc), option.WithMaxRetries(0))
		s := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
		out := ""
		for s.Next() {
			if ev := s.Current(); ev.Type == "response.completed" {
				out = ev.Response.OutputText()
				for _, it := range ev.Response.Output {
					if it.Type == "function_call" {
						out += "|" + it.CallID + " " + it.Name + it.Arguments.OfString
					}
				}
			}
		}
		return out, s.Err()
	}},
	{scripted.WireAnthropic, func(ctx context.Context, base string, hc *http.Client) (string, error) {
		c := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("k"), aoption.WithHTTPClient(hc), aoption.WithMaxRetries(0))
		s := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 9, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
		var msg anthropic.Message
		for s.Next() {
			if err := msg.Accumulate(s.Current()); err != nil {
				return "", err
			}
		}
		out := ""
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				out += b.Text
			case "tool_use":
				out += "|" + b.ID + " " + b.Name + string(b.Input)
			}
		}
		return out, s.Err()
	}},
	{scripted.WireGemini, func(ctx context.Context, base string, hc *http.Client) (string, error) {
		c, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPClient: hc, HTTPOptions: genai.HTTPOptions{BaseURL: base}})
		if err != nil {
			return "", err
		}
		out := ""
		for resp, err := range c.Models.GenerateContentStream(ctx, "m", genai.Text("hi"), nil) {
			if err != nil {
				return "", err
			}
			for _, p := range resp.Candidates[0].Content.Parts {
				if p.FunctionCall != nil {
					args, _ := json.Marshal(p.FunctionCall.Args)
					out += "|" + p.FunctionCall.ID + " " + p.FunctionCall.Name + string(args)
				} else {
					out += p.Text
				}
			}
		}
		return out, nil
	}},
}

// The clients of the clouds' wires and Ollama's.
func init() {
	wireClients = append(wireClients,
		// Azure's v1 API with the OpenAI client, as Azure documents it:
		// openai-go's azure options bypass the HTTP client's RoundTripper
		// on a loopback endpoint (see scripted's
		// TestOpenAIGoAzureBypassesTransport).
		wireClient{scripted.WireAzureChat, func(ctx context.Context, base string, hc *http.Client) (string, error) {
			c := openai.NewClient(option.WithBaseURL(strings.TrimSuffix(base, "/v1")+"/openai/v1/"), option.WithHeader("Api-Key", "k"), option.WithHTTPClient(hc), option.WithMaxRetries(0))
			s := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "d", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
			var acc openai.ChatCompletionAccumulator
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			if err := s.Err(); err != nil {
				return "", err
			}
			out := acc.Choices[0].Message.Content
			for _, tc := range acc.Choices[0].Message.ToolCalls {
				out += "|" + tc.ID + " " + tc.Function.Name + tc.Function.Arguments
			}
			return out, nil
		}},
		wireClient{scripted.WireVertex, func(ctx context.Context, base string, hc *http.Client) (string, error) {
			// genai adds no credentials to a client of one's own.
			hd := http.Header{"Authorization": {"Bearer t"}}
			c, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: "p", Location: "l", HTTPClient: hc,
				Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: token{}}), HTTPOptions: genai.HTTPOptions{BaseURL: strings.TrimSuffix(base, "/v1"), Headers: hd}})
			if err != nil {
				return "", err
			}
			out := ""
			for resp, err := range c.Models.GenerateContentStream(ctx, "m", genai.Text("hi"), nil) {
				if err != nil {
					return "", err
				}
				for _, p := range resp.Candidates[0].Content.Parts {
					if p.FunctionCall != nil {
						args, _ := json.Marshal(p.FunctionCall.Args)
						out += "|" + p.FunctionCall.ID + " " + p.FunctionCall.Name + string(args)
					} else {
						out += p.Text
					}
				}
			}
			return out, nil
		}},
		wireClient{scripted.WireBedrock, func(ctx context.Context, base string, hc *http.Client) (string, error) {
			c := bedrockruntime.New(bedrockruntime.Options{Region: "us-east-1", BaseEndpoint: aws.String(strings.TrimSuffix(base, "/v1")), HTTPClient: hc, Retryer: aws.NopRetryer{},
				Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
					return aws.Credentials{AccessKeyID: "A", SecretAccessKey: "S"}, nil
				})})
			res, err := c.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String("m:0"),
				Messages: []btypes.Message{{Role: btypes.ConversationRoleUser, Content: []btypes.ContentBlock{&btypes.ContentBlockMemberText{Value: "hi"}}}}})
			if err != nil {
				return "", err
			}
			st := res.GetStream()
			defer st.Close()
			out, calls := "", map[int32]string{}
			for ev := range st.Events() {
				switch v := ev.(type) {
				case *btypes.ConverseStreamOutputMemberContentBlockStart:
					tu := v.Value.Start.(*btypes.ContentBlockStartMemberToolUse)
					calls[*v.Value.ContentBlockIndex] = "|" + *tu.Value.ToolUseId + " " + *tu.Value.Name
				case *btypes.ConverseStreamOutputMemberContentBlockDelta:
					switch d := v.Value.Delta.(type) {
					case *btypes.ContentBlockDeltaMemberText:
						out += d.Value
					case *btypes.ContentBlockDeltaMemberToolUse:
						calls[*v.Value.ContentBlockIndex] += *d.Value.Input
					}
				}
			}
			for i := range int32(len(calls)) {
				out += calls[i+1]
			}
			return out, st.Err()
		}},
		wireClient{scripted.WireOllama, func(ctx context.Context, base string, hc *http.Client) (string, error) {
			u, _ := url.Parse(strings.TrimSuffix(base, "/v1"))
			out := ""
			err := ollama.NewClient(u, hc).Chat(ctx, &ollama.ChatRequest{Model: "m", Messages: []ollama.Message{{Role: "user", Content: "hi"}}}, func(r ollama.ChatResponse) error {
				out += r.Message.Content
				for _, tc := range r.Message.ToolCalls {
					args, _ := json.Marshal(tc.Function.Arguments)
					out += "| " + tc.Function.Name + string(args)
				}
				return nil
			})
			return out, err
		}},
	)
}

// token is an OAuth token genai sends on Vertex AI, from no credentials.
type token struct{}

func (token) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: "t", Type: "Bearer"}, nil
}

var turn = scripted.Turn{Text: "Looking it up.", Calls: []scripted.Call{{ID: "c1", Name: "lookup", Args: `{"q":"caf\u00e9"}`}}, Plan: scripted.Plan{Split: scripted.Split{Size: 3}}}

// TestCaptureReplayEveryWire: recorder.Transport captures a real client's
// exchange on each wire, chunk by chunk; the provider replay serves it back
// and the client reads the same answer, offline.
func TestCaptureReplayEveryWire(t *testing.T) {
	for _, c := range wireClients {
		t.Run(string(c.wire), func(t *testing.T) {
			srv := scripted.NewServer(scripted.Script{Turns: []scripted.Turn{turn}})
			defer srv.Close()
			var buf bytes.Buffer
			w, _ := recorder.NewWriter(&buf, recorder.Header{})
			tr := &recorder.Transport{Writer: w, Run: "model"}
			live, err := c.read(t.Context(), srv.URL, &http.Client{Transport: tr})
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.Check(); err != nil {
				t.Fatal(err)
			}
			rec, err := Read(recorder.NewReader(&buf, "rec"))
			if err != nil {
				t.Fatal(err)
			}
			exs := rec.Exchanges()
			if len(exs) != 1 || exs[0].Status != 200 || len(exs[0].Chunks) == 0 || string(wireOfURL(t, exs[0].URL)) != wireOf(c.wire) {
				t.Fatalf("exchanges %+v", exs)
			}
			var body bytes.Buffer
			for _, ch := range exs[0].Chunks {
				body.Write(ch.Data)
			}
			if !strings.Contains(body.String(), `"Loo"`) {
				t.Errorf("the recorded chunks do not hold the answer:\n%s", body.String())
			}
			for i, ch := range exs[0].Chunks {
				if (ch.Event != nil) != (c.wire == scripted.WireBedrock && len(exs[0].Chunks) > 0) || ch.Event != nil && !json.Valid(ch.Data) {
					t.Errorf("chunk %d: event %v data %q: want each message of an event stream decoded, and nothing else", i, ch.Event, ch.Data)
				}
			}

			p := NewProvider(exs, ProviderOptions{})
			defer p.Close()
			replayed, err := c.read(t.Context(), p.URL+"/v1", http.DefaultClient)
			if err != nil {
				t.Fatalf("%v\n%v", err, p.Check())
			}
			if replayed != live {
				t.Errorf("replayed %q, live %q", replayed, live)
			}
			if err := p.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestReplayAcrossWires: an agent that asks two providers is served each
// provider's exchanges in their own order, whatever order the requests of
// different wires come in, and whatever base URL prefix each client adds.
func TestReplayAcrossWires(t *testing.T) {
	srv := scripted.NewServer(scripted.Script{Turns: []scripted.Turn{{Text: "one"}, {Text: "two"}, {Text: "three"}}})
	defer srv.Close()
	var buf bytes.Buffer
	w, _ := recorder.NewWriter(&buf, recorder.Header{})
	hc := &http.Client{Transport: &recorder.Transport{Writer: w}}
	anth, chat := wireClients[2], wireClients[0]
	var live []string
	for _, c := range []wireClient{anth, chat, anth} {
		got, err := c.read(t.Context(), srv.URL, hc)
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, got)
	}
	if d := cmp.Diff([]string{"one", "two", "three"}, live); d != "" {
		t.Fatal(d)
	}
	rec, err := Read(recorder.NewReader(&buf, "rec"))
	if err != nil {
		t.Fatal(err)
	}
	p := NewProvider(rec.Exchanges(), ProviderOptions{})
	defer p.Close()
	// The OpenAI request first now, and the Anthropic client without /v1.
	var got []string
	for _, c := range []struct {
		wc   wireClient
		base string
	}{{chat, p.URL + "/v1"}, {anth, p.URL}, {anth, p.URL}} {
		s, err := c.wc.read(t.Context(), c.base, http.DefaultClient)
		if err != nil {
			t.Fatalf("%v\n%v", err, p.Check())
		}
		got = append(got, s)
	}
	if d := cmp.Diff([]string{"two", "one", "three"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
	// One more Anthropic request: none is left on that wire.
	if _, err := anth.read(t.Context(), p.URL, http.DefaultClient); err == nil {
		t.Error("a request beyond the recording was served")
	}
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "unexpected request 4: POST /v1/messages: no Anthropic Messages exchange is left") {
		t.Errorf("Check() = %v", err)
	}
}

// TestReplayMismatchShape: a request that does not match gets the wire's
// error shape, which the client reads as an API error, and no retry.
func TestReplayMismatchShape(t *testing.T) {
	srv := scripted.NewServer(scripted.Script{Turns: []scripted.Turn{{Text: "one"}}})
	defer srv.Close()
	var buf bytes.Buffer
	w, _ := recorder.NewWriter(&buf, recorder.Header{})
	if _, err := wireClients[2].read(t.Context(), srv.URL, &http.Client{Transport: &recorder.Transport{Writer: w}}); err != nil {
		t.Fatal(err)
	}
	rec, _ := Read(recorder.NewReader(&buf, "rec"))
	p := NewProvider(rec.Exchanges(), ProviderOptions{})
	defer p.Close()
	resp, err := http.Post(p.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"other","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e struct {
		Type  string
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Type != "error" || e.Error.Type != "api_error" || !strings.Contains(e.Error.Message, "does not match exchange 1") || resp.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("%d %s (%v)", resp.StatusCode, body, err)
	}
}

func wireOf(w scripted.Wire) string { return string(w) }

// wireOfURL is the wire a recorded exchange's URL names.
func wireOfURL(t *testing.T, raw string) llmwire.Wire {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("exchange URL %q: %v", raw, err)
	}
	return llmwire.Of(u.Path)
}
