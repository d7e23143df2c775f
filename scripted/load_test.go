package scripted

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestLoad(t *testing.T) {
	s, err := Load("testdata/weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Script{
		Model: "gpt-scripted",
		Plan:  Plan{Split: Split{By: Bytes, Size: 8}},
		Turns: []Turn{
			{
				Expect:    Expect{LastUser: "weather", Tools: []string{"get_weather"}},
				Reasoning: "Two cities, two calls.",
				Calls: []Call{
					{ID: "call_paris", Name: "get_weather", Args: `{"city":"Paris"}`},
					{ID: "call_rome", Name: "get_weather", Args: `{"city":"Rome"}`},
				},
				Plan: Plan{Order: Order{By: RoundRobin}},
			},
			{
				Expect: Expect{ToolResults: []string{"call_paris", "call_rome"}},
				Text:   "Paris: 18°C and sunny. Rome: 24°C, clear.",
				Usage:  &Usage{PromptTokens: 120, CompletionTokens: 14},
			},
		},
	}
	if d := cmp.Diff(want, s, cmpopts.IgnoreUnexported(Script{})); d != "" {
		t.Errorf("Load (-want +got):\n%s", d)
	}
}

// TestParseJSON checks that the same script reads from JSON, durations
// included.
func TestParseJSON(t *testing.T) {
	src := `{
  "plan": {"first": "1.5s", "every": "20ms", "seed": 4},
  "turns": [
    {"text": "hi", "calls": [{"name": "f", "args": "{\"x\":1}"}]}
  ]
}`
	s, err := Parse("s.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Plan, (Plan{First: Duration(1500 * time.Millisecond), Every: Duration(20 * time.Millisecond), Seed: 4}); got != want {
		t.Errorf("plan = %v, want %v", got, want)
	}
	if got := s.Turns[0].Calls[0].Args; got != `{"x":1}` {
		t.Errorf("args = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, file, src string
		want            []string // each must occur in the error
	}{
		{"unknown field", "s.yaml", "turns:\n  - text: hi\n    txet: typo\n", []string{"s.yaml:3: field txet not found in Turn (did you mean text?)"}},
		{"unknown plan field", "s.yaml", "plan:\n  splt: {}\nturns:\n  - text: hi\n", []string{"s.yaml:2: field splt not found"}},
		{"args not JSON", "s.yaml", "turns:\n  - text: hi\n  - calls:\n      - name: f\n        args: '{oops'\n", []string{"s.yaml:3: turn 2: call 1 (f): args are not valid JSON"}},
		{"schedule unknown call", "s.yaml", "turns:\n  - calls: [{id: a, name: f}, {id: b, name: g}]\n    plan: {order: {by: schedule, schedule: a b z}}\n", []string{`s.yaml:2: turn 1: plan: schedule entry "z" names no call`, "#1 f, #2 g"}},
		{"yaml syntax", "s.yaml", "turns:\n  - text: [unclosed\n", []string{"s.yaml:"}},
		{"json syntax", "s.json", "{\n  \"turns\": [\n    {\"text\": \"hi\",}\n  ]\n}", []string{"s.json:3:19: invalid character '}'"}},
		{"no turns", "s.yaml", "model: m\n", []string{"s.yaml:1: the script has no turns"}},
		{"empty", "s.yaml", "", []string{"s.yaml: empty script"}},
		{"not a mapping", "s.yaml", "- a\n- b\n", []string{"s.yaml:1: want a mapping"}},
		{"bad duration", "s.yaml", "plan: {every: soon}\nturns: [{text: hi}]\n", []string{"s.yaml:1:", `duration "soon"`}},
		{"bad fault", "s.yaml", "turns:\n  - text: hi\n    fault: {kind: explode}\n", []string{`s.yaml:2: turn 1: fault: unknown kind "explode"`}},
		{"status out of range", "s.yaml", "turns:\n  - fault: {kind: status, status: 200}\n", []string{"s.yaml:2: turn 1: fault: status 200"}},
		{"bad split", "s.yaml", "turns:\n  - text: hi\n    plan: {split: {by: syllables}}\n", []string{`unknown split "syllables"`}},
		{"duplicate ids", "s.yaml", "turns:\n  - calls: [{id: x, name: f}, {id: x, name: g}]\n", []string{`s.yaml:2: turn 1: calls 1 and 2 share the id "x"`}},
		{"fragments differ", "s.yaml", "turns:\n  - text: abc\n    fragments: [a, b]\n", []string{"differs from its joined fragments"}},
		{"several errors", "s.yaml", "turns:\n  - calls: [{name: ''}]\n  - fault: {kind: stall, status: 500}\n", []string{"s.yaml:2: turn 1: call 1 has no name", "s.yaml:3: turn 2: fault: kind stall takes no status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.file, []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", tt.src)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadMissing(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "none.yaml")); !os.IsNotExist(err) {
		t.Errorf("Load of a missing file: %v, want a not-exist error", err)
	}
}

// FuzzParse checks that no input makes the loader panic, and that what it
// accepts builds a working model.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"turns":[{"text":"hi","plan":{"split":{"by":"random","size":3},"order":{"by":"shuffle"}}}]}`))
	f.Add([]byte("turns:\n  - calls: [{id: a, name: f, args: '[1]'}, {name: g, fragments: ['{', '}']}]\n    plan: {order: {by: schedule, schedule: a '#1' text}, ids: no-index}\n"))
	f.Add([]byte("turns:\n  - fault: {kind: status, status: 429, retry_after: '2'}\n  - fault: {kind: malformed, after: 1}\n    text: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		wd := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("input hangs: %q", data)) })
		defer wd.Stop()
		s, err := Parse("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		m := NewModel(s)
		for _, turn := range s.Turns {
			if turn.Fault != nil && turn.Fault.Kind == FaultStall {
				continue // it waits for the client to give up
			}
			seq, err := m.Stream(t.Context(), userRequest("x"))
			if err != nil {
				continue
			}
			for _, err := range seq {
				if err != nil && err != ErrMalformed {
					break
				}
			}
		}
	})
}
