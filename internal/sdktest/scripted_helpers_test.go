// Code copied from scripted/helpers_test.go by TestHelpersAreCopies's
// instructions; edit that file, not this one.

package sdktest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

import . "github.com/aguitest/aguitest/scripted"

// planCase is one plan every client must reassemble exactly.
type planCase struct {
	name string
	plan Plan
	// noIndex: the wire omits the index, which openai-go's accumulator
	// needs.
	noIndex bool
}

func planCases() []planCase {
	return []planCase{
		{name: "default"},
		{name: "bytes1", plan: Plan{Split: Split{Size: 1}}},
		{name: "runes3", plan: Plan{Split: Split{By: Runes, Size: 3}}},
		{name: "words", plan: Plan{Split: Split{By: Words}}},
		{name: "random", plan: Plan{Split: Split{By: Random, Min: 1, Size: 5}, Seed: 7}},
		{name: "whole", plan: Plan{Split: Split{By: Whole}}},
		{name: "escapes", plan: Plan{Split: Split{Size: 5, Escapes: true}}},
		{name: "midrune", plan: Plan{Split: Split{Size: 1, MidRune: true}}},
		{name: "midrune-random", plan: Plan{Split: Split{By: Random, Size: 4, MidRune: true, Escapes: true}, Seed: 99}},
		{name: "empty-deltas", plan: Plan{Split: Split{Size: 4, Empty: 2}}},
		{name: "round-robin", plan: Plan{Split: Split{Size: 3}, Order: Order{By: RoundRobin}}},
		{name: "reverse", plan: Plan{Order: Order{By: Reverse}}},
		{name: "shuffle", plan: Plan{Split: Split{Size: 2}, Order: Order{By: Shuffle}, Seed: 42}},
		{name: "schedule", plan: Plan{Order: Order{By: Scheduled, Schedule: "a b a c b text reasoning c"}}},
		{name: "text-between", plan: Plan{Split: Split{Size: 6}, Order: Order{By: RoundRobin, Text: TextBetween}}},
		{name: "text-after", plan: Plan{Order: Order{By: Reverse, Text: TextAfter}}},
		{name: "ids-every", plan: Plan{Split: Split{Size: 3}, Order: Order{By: RoundRobin}, IDs: IDsEvery}},
		{name: "no-index", plan: Plan{Split: Split{Size: 3}, Order: Order{By: Shuffle}, IDs: IDsNoIndex, Seed: 3}, noIndex: true},
		{name: "with-name", plan: Plan{Split: Split{By: Whole, WithName: true}}},
		{name: "with-name-round-robin", plan: Plan{Split: Split{Size: 4, WithName: true}, Order: Order{By: RoundRobin}}},
		{name: "no-args", plan: Plan{Split: Split{Size: 4, NoArgs: true}}},
	}
}

const (
	testText      = "Hello wörld! Café ☕ and 😀, \"quoted\" \\ back\nslash\tend"
	testReasoning = "The user wants weather; I will call three tools at once."
)

func testCalls() []Call {
	return []Call{
		{ID: "a", Name: "get_weather", Args: `{"city":"Paris","note":"caf\u00e9 \"x\" \\ y","n":[1,2,3]}`},
		{ID: "b", Name: "search", Args: `{"q":"naïve 😀 résumé"}`},
		{ID: "c", Name: "noop"},
	}
}

// oneTurn is a script whose single turn holds text, reasoning and three
// calls, cut by p.
func oneTurn(p Plan) Script {
	return Script{Turns: []Turn{{Reasoning: testReasoning, Text: testText, Calls: testCalls(), Plan: p}}}
}

// joined is a reassembled answer.
type joined struct {
	Text, Reasoning string
	Calls           []Call
	Finish          string
}

// wantJoined is what every client must reassemble from oneTurn under plan
// p: the call without arguments reads {}, or nothing when p sends it no
// argument delta (no_args).
func wantJoined(p Plan) joined {
	calls := testCalls()
	calls[2].Args = "{}"
	if p.Split.NoArgs {
		calls[2].Args = ""
	}
	return joined{Text: testText, Reasoning: testReasoning, Calls: calls, Finish: "tool_calls"}
}

// collect reads a Go-native stream and reassembles it by call index (or
// by id when the index is omitted).
func collect(t *testing.T, m *Model, req Request) (joined, []Chunk) {
	t.Helper()
	seq, err := m.Stream(context.Background(), req)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	var chunks []Chunk
	for c, err := range seq {
		if err != nil {
			t.Fatalf("stream error: %v", err)
		}
		chunks = append(chunks, c)
	}
	return reassemble(chunks), chunks
}

func reassemble(chunks []Chunk) joined {
	var j joined
	var text, reasoning strings.Builder
	byKey := map[string]int{}
	var index []int
	for _, c := range chunks {
		text.WriteString(c.Text)
		reasoning.WriteString(c.Reasoning)
		if c.Finish != "" {
			j.Finish = c.Finish
		}
		if d := c.Call; d != nil {
			key := d.ID
			if d.Index >= 0 {
				key = fmt.Sprint(d.Index)
			}
			n, ok := byKey[key]
			if !ok {
				n = len(j.Calls)
				byKey[key] = n
				j.Calls = append(j.Calls, Call{})
				index = append(index, d.Index)
			}
			if d.ID != "" {
				j.Calls[n].ID = d.ID
			}
			if d.Name != "" {
				j.Calls[n].Name = d.Name
			}
			j.Calls[n].Args += d.Args
		}
	}
	// Calls by index when the stream gives one, else by first appearance.
	sorted := make([]Call, len(j.Calls))
	for n, c := range j.Calls {
		if index[n] >= 0 && index[n] < len(sorted) {
			sorted[index[n]] = c
		} else {
			sorted[n] = c
		}
	}
	j.Calls = sorted
	j.Text, j.Reasoning = text.String(), reasoning.String()
	return j
}

func userRequest(content string) Request {
	return Request{Messages: []Message{{Role: "user", Content: content}}}
}

// post posts body to url with the credentials every wire looks for (a
// bearer token, Azure's api-key), and returns the response and its body.
func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer test")
	req.Header.Set("Api-Key", "test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return resp, string(b)
}

// canonicalJSON re-encodes a JSON text with sorted keys, as a client that
// hands out arguments as an object (genai) gives them back.
func canonicalJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

const streamBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`

// benchTurn is a turn with three parallel calls of about 200 bytes of
// arguments each, cut in 8-byte fragments.
func benchTurn(i int) Turn {
	var calls []Call
	for n := range 3 {
		calls = append(calls, Call{Name: "tool", Args: fmt.Sprintf(`{"turn":%d,"call":%d,"text":%q}`, i, n, strings.Repeat("lorem ipsum ", 15))})
	}
	return Turn{Text: "Calling three tools.", Calls: calls, Plan: Plan{Split: Split{Size: 8}, Order: Order{By: RoundRobin}}}
}

func benchScript(n int) Script {
	s := Script{Turns: make([]Turn, n)}
	for i := range s.Turns {
		s.Turns[i] = benchTurn(i)
	}
	return s
}
