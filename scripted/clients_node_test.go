package scripted

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/internal/oracle"
)

// The real npm clients (pinned in testdata/clients/package-lock.json) on
// every plan and fault: what each client assembles must be the scripted
// turn, byte for byte where the client keeps the arguments text.

// nodeClientsDir returns testdata/clients, or skips the test when node or
// the packages are missing; under CI it fails instead.
func nodeClientsDir(t *testing.T) string {
	t.Helper()
	return oracle.Need(t, filepath.Join("testdata", "clients"), "@anthropic-ai/sdk", "the npm clients")
}

type nodeCase struct {
	ID      string `json:"id"`
	Client  string `json:"client"`
	URL     string `json:"url"`
	Retries int    `json:"retries"`
}

type nodeCall struct {
	ID, Name string
	// Args is the arguments text the client assembled; Input its parsed
	// arguments re-encoded.
	Args, Input string
}

type nodeError struct {
	Name, Type, Message, Body, Reason string
	Status                            int
}

type nodeResult struct {
	ID        string
	Text      string
	Reasoning string
	Calls     []nodeCall
	Finish    string
	Error     *nodeError
}

// runNode runs the cases in the test binary's node process for the
// clients (oracle.Lines) and returns the results by case id.
func runNode(t *testing.T, dir string, cases []nodeCase) map[string]nodeResult {
	t.Helper()
	var in [][]byte
	for _, c := range cases {
		b, _ := json.Marshal(c)
		in = append(in, b)
	}
	res := map[string]nodeResult{}
	for _, r := range oracle.Run[nodeResult](t, dir, "clients.mjs", in) {
		res[r.ID] = r
	}
	if len(res) != len(cases) {
		t.Fatalf("node gave results for %d case ids, want %d", len(res), len(cases))
	}
	return res
}

// A nodeClient is one npm client and what it reports for a turn.
type nodeClient struct {
	name string
	wire Wire
	// finish is the finish reason the client reports for a turn with calls.
	finish string
	// raw says the client keeps the arguments text as streamed.
	raw bool
}

var nodeClients = []nodeClient{
	{"openai-responses", WireResponses, "completed", true},
	{"anthropic", WireAnthropic, "tool_use", true},
	{"google-genai", WireGemini, "STOP", false},
	{"ai-openai", WireResponses, "tool-calls", true},
	{"ai-anthropic", WireAnthropic, "tool-calls", true},
	{"azure-chat", WireAzureChat, "tool_calls", true},
	{"azure-responses", WireAzureResponses, "completed", true},
	{"vertex-genai", WireVertex, "STOP", false},
	{"bedrock", WireBedrock, "tool_use", true},
	{"ollama", WireOllama, "stop", false},
}

func TestNodeClients(t *testing.T) {
	dir := nodeClientsDir(t)
	type started struct {
		client nodeClient
		plan   planCase
		script Script
		srv    *Server
	}
	var cases []nodeCase
	runs := map[string]started{}
	for _, c := range nodeClients {
		for _, pc := range planCases() {
			s := oneTurn(pc.plan)
			srv := NewServer(s)
			defer srv.Close()
			id := c.name + "/" + pc.name
			cases = append(cases, nodeCase{ID: id, Client: c.name, URL: srv.URL})
			runs[id] = started{c, pc, s, srv}
		}
	}
	res := runNode(t, dir, cases)
	for _, c := range nodeClients {
		t.Run(c.name, func(t *testing.T) {
			for _, pc := range planCases() {
				t.Run(pc.name, func(t *testing.T) {
					if pc.noIndex && c.wire == WireAzureChat {
						t.Skip("openai's stream helper keys calls by index, as openai-go's accumulator does")
					}
					r := runs[c.name+"/"+pc.name]
					got := res[c.name+"/"+pc.name]
					if werr := r.script.ValidateWire(c.wire, true); werr != nil {
						if got.Error == nil || !strings.Contains(got.Error.Message+got.Error.Body, c.wire.String()) {
							t.Errorf("plan %s: %+v, want an error naming %s (%v)", pc.plan, got.Error, c.wire, werr)
						}
						return
					}
					if got.Error != nil {
						t.Fatalf("plan %s: %+v", pc.plan, *got.Error)
					}
					checkNodeTurn(t, c, pc.plan, got)
					if err := r.srv.Check(); err != nil {
						t.Error(err)
					}
				})
			}
		})
	}
}

// checkNodeTurn compares what a client assembled with oneTurn.
func checkNodeTurn(t *testing.T, c nodeClient, p Plan, got nodeResult) {
	t.Helper()
	want := wantJoined(p)
	gotCalls := append([]nodeCall(nil), got.Calls...)
	for i := range gotCalls {
		for k := i + 1; k < len(gotCalls); k++ {
			if gotCalls[k].ID < gotCalls[i].ID {
				gotCalls[i], gotCalls[k] = gotCalls[k], gotCalls[i]
			}
		}
	}
	var wantCalls []nodeCall
	for i, wc := range want.Calls {
		input := wc.Args
		if input == "" {
			input = "{}" // no arguments streamed (no_args): the SDKs read {}
		}
		nc := nodeCall{ID: wc.ID, Name: wc.Name, Args: wc.Args, Input: canonicalJSON(input)}
		if !c.raw || c.wire == WireAnthropic && wc.Args == "{}" && argFragments(p, i) == 1 {
			// genai keeps no text; Anthropic streams no input for a call
			// without arguments, as its API does.
			nc.Args = ""
		}
		if i < len(gotCalls) {
			gotCalls[i].Input = canonicalJSON(gotCalls[i].Input)
		}
		wantCalls = append(wantCalls, nc)
	}
	if d := cmp.Diff(wantCalls, gotCalls); d != "" {
		t.Errorf("plan %s: calls (-want +got):\n%s", p, d)
	}
	if got.Text != want.Text || got.Reasoning != want.Reasoning || got.Finish != c.finish {
		t.Errorf("plan %s:\n got text %q reasoning %q finish %q\nwant text %q reasoning %q finish %q", p, got.Text, got.Reasoning, got.Finish, want.Text, want.Reasoning, c.finish)
	}
}

// TestNodeClientFaults: each fault reaches each npm client as its
// provider's error.
// argFragments returns how many argument fragments call n of oneTurn has
// under plan p.
func argFragments(p Plan, n int) int {
	turn := oneTurn(p).Turns[0]
	k := 0
	for _, c := range planChunks(&turn, 0, p.over(Plan{}), nil, false) {
		if c.Call != nil && c.Call.Name == "" && (c.Call.Index == n || c.Call.ID == turn.Calls[n].ID) {
			k++
		}
	}
	return k
}

func TestNodeClientFaults(t *testing.T) {
	dir := nodeClientsDir(t)
	turn := Turn{Text: strings.Repeat("word ", 20)}
	faults := []struct {
		name  string
		fault Fault
		// check returns what is wrong with the client's error.
		check func(c nodeClient, e *nodeError) string
	}{
		{"rate limited", Fault{Kind: FaultStatus, Status: 429, RetryAfter: "0"}, func(c nodeClient, e *nodeError) string {
			return wantNodeStatus(e, 429, map[Wire]string{WireResponses: "requests", WireAnthropic: "rate_limit_error", WireGemini: "RESOURCE_EXHAUSTED",
				WireAzureChat: "429", WireAzureResponses: "429", WireVertex: "RESOURCE_EXHAUSTED", WireBedrock: "ThrottlingException", WireOllama: "too many requests"}[c.wire])
		}},
		{"overloaded", Fault{Kind: FaultStatus, Status: 529}, func(c nodeClient, e *nodeError) string {
			return wantNodeStatus(e, 529, map[Wire]string{WireResponses: "server_error", WireAnthropic: "overloaded_error", WireGemini: "INTERNAL",
				WireAzureChat: "server_error", WireAzureResponses: "server_error", WireVertex: "INTERNAL", WireBedrock: "InternalServerException", WireOllama: "an error was encountered while running the model"}[c.wire])
		}},
		{"error event", Fault{Kind: FaultError, After: 3}, func(c nodeClient, e *nodeError) string {
			want := map[Wire]string{WireResponses: "The server had an error", WireAnthropic: "Overloaded", WireGemini: "An internal error has occurred",
				WireAzureChat: "The server had an error", WireAzureResponses: "The server had an error", WireVertex: "An internal error has occurred",
				WireBedrock: "The system encountered an unexpected error", WireOllama: "an error was encountered while running the model"}[c.wire]
			if e == nil || !strings.Contains(e.Message+e.Body, want) {
				return fmt.Sprintf("error %+v does not say %q", e, want)
			}
			return ""
		}},
		{"disconnect", Fault{Kind: FaultDisconnect, After: 3}, anyNodeError},
		{"malformed", Fault{Kind: FaultMalformed, After: 3}, func(c nodeClient, e *nodeError) string {
			if c.wire == WireOllama {
				return "" // see TestNodeOllamaSkipsMalformedLine
			}
			return anyNodeError(c, e)
		}},
	}
	var cases []nodeCase
	for _, c := range nodeClients {
		for _, f := range faults {
			tt := turn
			tt.Fault = &f.fault
			srv := NewServer(Script{Turns: []Turn{tt}})
			defer srv.Close()
			cases = append(cases, nodeCase{ID: c.name + "/" + f.name, Client: c.name, URL: srv.URL})
		}
	}
	res := runNode(t, dir, cases)
	for _, c := range nodeClients {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range faults {
				t.Run(f.name, func(t *testing.T) {
					if msg := f.check(c, res[c.name+"/"+f.name].Error); msg != "" {
						t.Error(msg)
					}
				})
			}
		})
	}
}

func anyNodeError(_ nodeClient, e *nodeError) string {
	if e == nil {
		return "the client read the stream without an error"
	}
	return ""
}

func wantNodeStatus(e *nodeError, status int, typ string) string {
	if e == nil {
		return "no error"
	}
	if e.Status != status || e.Type != typ && !strings.Contains(e.Body+e.Message, `"`+typ+`"`) {
		return fmt.Sprintf("got %+v, want status %d type %s", *e, status, typ)
	}
	return ""
}

// TestNodeClientRetries: a fault repeated twice, one line of script; the
// clients that retry twice by default (the AI SDK, the Anthropic and
// OpenAI SDKs, the AWS SDK when told to) meet it twice and then get the
// answer.
func TestNodeClientRetries(t *testing.T) {
	dir := nodeClientsDir(t)
	var cases []nodeCase
	servers := map[string]*Server{}
	for _, c := range nodeClients {
		if c.wire.base() == WireGemini || c.wire == WireOllama {
			continue // @google/genai and ollama do not retry
		}
		status := 529
		if c.wire == WireBedrock {
			status = 503 // the AWS SDK retries 503, not 529, which AWS does not send
		}
		// Retry-After of a millisecond: @anthropic-ai/sdk takes 0 for no
		// header and backs off half a second, then a second.
		srv := NewServer(Script{Turns: []Turn{
			{Fault: &Fault{Kind: FaultStatus, Status: status, RetryAfter: "0.001", Times: 2}},
			{Text: "Third time lucky."},
		}})
		defer srv.Close()
		servers[c.name] = srv
		cases = append(cases, nodeCase{ID: c.name, Client: c.name, URL: srv.URL, Retries: 2})
	}
	res := runNode(t, dir, cases)
	for name, srv := range servers {
		t.Run(name, func(t *testing.T) {
			got := res[name]
			if got.Error != nil || got.Text != "Third time lucky." {
				t.Errorf("got %+v", got)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("%d requests, want 3", n)
			}
			if err := srv.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestNodeConversations: the AI SDK runs a tool and sends its result back;
// on the Responses wire it refers to the earlier output by item_reference,
// which the server resolves as OpenAI does. The second request reads the
// same in the neutral form on both wires.
func TestNodeConversations(t *testing.T) {
	dir := nodeClientsDir(t)
	script := Script{Turns: []Turn{
		{Reasoning: "Paris.", Text: "Let me check.", Calls: []Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}},
		{Expect: Expect{ToolResults: []string{"call_1_1"}, Tools: []string{"get_weather"}}, Text: "Sunny in Paris."},
	}}
	clients := map[string]Wire{"ai-openai-conversation": WireResponses, "ai-anthropic-conversation": WireAnthropic}
	servers := map[string]*Server{}
	var cases []nodeCase
	for name := range clients {
		srv := NewServer(script)
		defer srv.Close()
		servers[name] = srv
		cases = append(cases, nodeCase{ID: name, Client: name, URL: srv.URL})
	}
	res := runNode(t, dir, cases)
	for name, w := range clients {
		t.Run(name, func(t *testing.T) {
			srv := servers[name]
			got := res[name]
			if got.Error != nil {
				t.Fatalf("%+v\nCheck: %v", *got.Error, srv.Check())
			}
			if got.Text != "Let me check.Sunny in Paris." || got.Reasoning != "Paris." {
				t.Errorf("got %+v", got)
			}
			if err := srv.Check(); err != nil {
				t.Fatal(err)
			}
			id := Call{}.wireID(w, 0, 0)
			want := []Message{
				{Role: "system", Content: "Be brief."},
				{Role: "user", Content: "weather?"},
				{Role: "assistant", Content: "Let me check.", Reasoning: "Paris.", Calls: []Call{{ID: id, Name: "get_weather", Args: `{"city":"Paris"}`}}},
				{Role: "tool", ToolCallID: id},
			}
			msgs := srv.Requests()[1].Messages
			if len(msgs) == 4 && strings.Contains(msgs[3].Content, "sunny") {
				msgs[3].Content = "" // the SDK wraps the result in its own shape
			}
			if d := cmp.Diff(want, msgs); d != "" {
				t.Errorf("second request, neutral form (-want +got):\n%s\nraw: %s", d, srv.Requests()[1].Body)
			}
		})
	}
}

// TestNodeOllamaSkipsMalformedLine keeps how the ollama npm package (0.6.4)
// reads a line that is not JSON: it warns on the console and goes on, so
// a line corrupted on the way is lost without the caller learning of it
// (the other clients fail). Here the malformed line is one more line
// (the stream goes on after it): the text arrives whole, and no error is
// raised.
func TestNodeOllamaSkipsMalformedLine(t *testing.T) {
	dir := nodeClientsDir(t)
	srv := NewServer(Script{Turns: []Turn{{Text: "one two three", Plan: Plan{Split: Split{By: Words}}, Fault: &Fault{Kind: FaultMalformed, After: 1}}}})
	defer srv.Close()
	got := runNode(t, dir, []nodeCase{{ID: "o", Client: "ollama", URL: srv.URL}})["o"]
	if got.Error != nil || got.Text != "one two three" {
		t.Errorf("got %+v, %v; the package reports a malformed line now: turn this test round", got, got.Error)
	}
}
