package scripted_test

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/aguitest/aguitest/scripted"
)

// One script, served on the Anthropic Messages wire: the same base URL
// answers every provider's path. The request is read into the neutral
// form, and LogRequests writes it as one JSON line.
func ExampleServer_wires() {
	srv := scripted.NewServer(scripted.Script{Turns: []scripted.Turn{{
		Text:  "Checking.",
		Calls: []scripted.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}},
	}}})
	defer srv.Close()
	resp, err := http.Post(strings.TrimSuffix(srv.URL, "/v1")+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"claude-x","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Weather in Paris?"}]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, name)
		}
	}
	fmt.Println(strings.Join(events, " "))
	req := srv.Requests()[0]
	fmt.Println(req.Wire, req.Model, req.Messages[0].Content)
	fmt.Println(srv.Check())
	// Output:
	// message_start content_block_start ping content_block_delta content_block_delta content_block_stop content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop
	// Anthropic Messages claude-x Weather in Paris?
	// <nil>
}

// What a wire cannot carry is an error naming the wire and the turn.
func ExampleScript_ValidateWire() {
	s := scripted.Script{Turns: []scripted.Turn{{
		Calls: []scripted.Call{{Name: "a"}, {Name: "b"}},
		Plan:  scripted.Plan{Order: scripted.Order{By: scripted.RoundRobin}},
	}}}
	for _, w := range scripted.Wires {
		fmt.Printf("%s: %v\n", w, s.ValidateWire(w, true))
	}
	// Output:
	// OpenAI Chat Completions: <nil>
	// OpenAI Responses: <nil>
	// Anthropic Messages: <nil>
	// Gemini: turn 1: the Gemini wire cannot express order=round-robin: each functionCall part arrives whole, so calls cannot interleave (use sequential, reverse or a schedule naming each call once)
	// Azure OpenAI Chat Completions: <nil>
	// Azure OpenAI Responses: <nil>
	// Vertex AI Gemini: turn 1: the Vertex AI Gemini wire cannot express order=round-robin: each functionCall part arrives whole, so calls cannot interleave (use sequential, reverse or a schedule naming each call once)
	// Bedrock Converse: <nil>
	// Ollama: turn 1: the Ollama wire cannot express order=round-robin: each tool call arrives whole, so calls cannot interleave (use sequential, reverse or a schedule naming each call once)
}

// Every request, as one JSON line: the wire, the neutral form and the raw
// body.
func ExampleModel_LogRequests() {
	m := scripted.NewModel(scripted.Script{Turns: []scripted.Turn{{Text: "Hi."}}})
	m.LogRequests(os.Stdout)
	h := m.Handler()
	req, _ := http.NewRequest("POST", "/v1beta/models/gemini-x:generateContent", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"Hello"}]}]}`))
	h.ServeHTTP(discard{}, req)
	// Output:
	// {"wire":"gemini","model":"gemini-x","messages":[{"role":"user","content":"Hello"}],"raw":{"contents":[{"role":"user","parts":[{"text":"Hello"}]}]}}
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
