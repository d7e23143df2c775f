package conform_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// recordT is a harness.T that records what a check reports.
type recordT struct {
	harness.T
	errors []string
}

func (t *recordT) Helper() {}
func (t *recordT) Errorf(format string, args ...any) {
	t.errors = append(t.errors, fmt.Sprintf(format, args...))
}

// expectResult is what the client holds after a weather conversation.
func expectResult() *harness.Result {
	call := func(id, name, args string) agui.ToolCall { return agui.NewToolCall(id, name, args) }
	return &harness.Result{
		Messages: []agui.Message{
			agui.UserMessage("u1", "Weather in Seoul and Paris?"),
			{ID: "a1", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{
				call("c1", "get_weather", `{"city":"Seoul","units":{"temp":"C"},"days":[1,2]}`),
				call("c2", "get_weather", `{"city":"Paris"}`),
				call("c3", "show_map", ``),
			}},
			agui.ToolMessage("r1", "c1", "21"),
			{ID: "a2", Role: agui.RoleAssistant, Content: agui.TextContent("Seoul 21°C, Paris 18°C.")},
		},
		State: json.RawMessage(`{"board":{"columns":[{"id":"todo","tasks":["a"]}]},"theme":"dark"}`),
	}
}

func intp(n int) *int { return &n }

func TestExpect(t *testing.T) {
	tests := []struct {
		name   string
		expect conform.Expect
		want   []string // the errors, in order; none means it holds
	}{
		{"text equal", conform.Expect{Text: &conform.Value{Equals: json.RawMessage(`"Seoul 21°C, Paris 18°C."`)}}, nil},
		{"text matching", conform.Expect{Text: &conform.Value{Matches: `Paris \d+°C`}}, nil},
		{"text differs", conform.Expect{Text: &conform.Value{Matches: `^Rome`}},
			[]string{`the last assistant text: got "Seoul 21°C, Paris 18°C.", want matching "^Rome"`}},
		{"a call with args", conform.Expect{Calls: []conform.CallExpect{{Name: "get_weather", Args: []conform.PathValue{
			{Path: "/city", Value: conform.Equal("Seoul")},
			{Path: "units.temp", Value: conform.Matching("^C$")},
			{Path: "$.days[1]", Value: conform.Equal(2)},
		}}}}, nil},
		{"a call with no args", conform.Expect{Calls: []conform.CallExpect{{Name: "show_map", Count: intp(1)}}}, nil},
		{"counts", conform.Expect{Calls: []conform.CallExpect{{Name: "get_weather", Count: intp(2)}, {Name: "delete_all", Count: intp(0)}}}, nil},
		{"a call missing", conform.Expect{Calls: []conform.CallExpect{{Name: "get_weather", Args: []conform.PathValue{{Path: "/city", Value: conform.Equal("Rome")}}}}},
			[]string{`want a call get_weather with /city "Rome"; the client holds get_weather {"city":"Seoul","units":{"temp":"C"},"days":[1,2]} (id c1), get_weather {"city":"Paris"} (id c2), show_map no arguments (id c3)`}},
		{"a count off", conform.Expect{Calls: []conform.CallExpect{{Name: "get_weather", Count: intp(1)}}},
			[]string{`calls get_weather: got 2, want 1; the client holds get_weather {"city":"Seoul","units":{"temp":"C"},"days":[1,2]} (id c1), get_weather {"city":"Paris"} (id c2), show_map no arguments (id c3)`}},
		{"order", conform.Expect{Order: []string{"get_weather", "show_map"}}, nil},
		{"order wrong", conform.Expect{Order: []string{"show_map", "get_weather"}},
			[]string{"want calls in the order show_map, get_weather; the client holds them in the order get_weather, get_weather, show_map"}},
		{"state", conform.Expect{State: []conform.PathValue{
			{Path: "/board/columns/0/id", Value: conform.Equal("todo")},
			{Path: "board.columns[0].tasks", Value: conform.Equal([]string{"a"})},
			{Path: "theme", Value: conform.Matching("dark|light")},
		}}, nil},
		{"state differs", conform.Expect{State: []conform.PathValue{
			{Path: "/theme", Value: conform.Equal("light")},
			{Path: "/board/rows", Value: conform.Equal(1)},
		}}, []string{
			`the state at /theme: got "dark", want "light"`,
			`the state at /board/rows: there is nothing there; want 1; the state is {"board":{"columns":[{"id":"todo","tasks":["a"]}]},"theme":"dark"}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := &recordT{}
			tt.expect.Check(rt, expectResult())
			assert.Equal(t, tt.want, rt.errors)
		})
	}
}

func TestExpectValidate(t *testing.T) {
	tests := []struct {
		name   string
		expect conform.Expect
		want   string
	}{
		{"bad regexp", conform.Expect{Text: &conform.Value{Matches: "("}}, "text: matches is not a regular expression"},
		{"empty value", conform.Expect{Text: &conform.Value{}}, "text: a value needs equals or matches"},
		{"bad path", conform.Expect{State: []conform.PathValue{{Path: "a[x]", Value: conform.Equal(1)}}}, `state: path "a[x]": [x] is neither an index nor a quoted key`},
		{"no name", conform.Expect{Calls: []conform.CallExpect{{}}}, "calls[0]: a call needs the tool's name"},
		{"negative count", conform.Expect{Calls: []conform.CallExpect{{Name: "x", Count: intp(-1)}}}, "calls[0]: count -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorContains(t, tt.expect.Validate(), tt.want)
		})
	}
}
