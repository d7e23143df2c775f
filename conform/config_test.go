package conform_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/conform"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestLoadConfig(t *testing.T) {
	p := writeFile(t, "conform.yaml", `# the weather server
tools:
  - name: get_weather
    args: {city: Paris, days: 2}
    prompt: Weather in Paris?
    result: {matches: "18"}
  - name: get_time
interrupts:
  - tool: delete_file
    args: {"path": "notes.txt"}
    answer: {approved: true}
    reason: approval
profile: reference
client: 0.0.59
allow: [truncated]
enable: [empty-delta]
timeout: 5s
skip: [provider-429, "backend-tool/get_time"]
ignore_state: [/messages, /steps/0/at]
`)
	cfg, err := conform.LoadConfig(p)
	require.NoError(t, err)
	assert.Equal(t, []conform.ServerTool{
		{Name: "get_weather", Args: json.RawMessage(`{"city":"Paris","days":2}`), Prompt: "Weather in Paris?", Result: &conform.Value{Matches: "18"}},
		{Name: "get_time"},
	}, cfg.Tools)
	assert.Equal(t, []conform.InterruptTool{{Tool: "delete_file", Args: json.RawMessage(`{"path":"notes.txt"}`), Payload: json.RawMessage(`{"approved":true}`), Reason: "approval"}}, cfg.Interrupts)
	assert.Equal(t, agui.Reference, cfg.Profile)
	assert.Equal(t, agui.ClientV0059, cfg.Client)
	assert.Equal(t, []agui.Rule{agui.RuleTruncated}, cfg.Allow)
	assert.Equal(t, []agui.Rule{agui.RuleEmptyDelta}, cfg.Enable)
	assert.Equal(t, 5*time.Second, cfg.Timeout)
	assert.Equal(t, []string{"/messages", "/steps/0/at"}, cfg.IgnoreState)

	var names []string
	for _, c := range conform.Cases(cfg) {
		names = append(names, c.Name)
	}
	assert.Contains(t, names, "backend-tool/get_weather")
	assert.NotContains(t, names, "backend-tool/get_time")
	assert.NotContains(t, names, "provider-429")
	assert.Contains(t, names, "interrupt/delete_file")
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown field", "tools:\n  - name: x\n    argz: {}\n", "conform.yaml:3: field argz not found in a tool (did you mean args?)"},
		{"unknown top-level key", "interupts: []\n", "conform.yaml:1: field interupts not found in the configuration (did you mean interrupts?)"},
		{"unknown rule", "allow: [no-such-rule]\n", `conform.yaml:1: unknown rule "no-such-rule"`},
		{"unknown profile", "profile: lax\n", `conform.yaml:1: unknown profile "lax"`},
		{"bad pattern", "tools:\n  - name: x\n    result: {matches: \"(\"}\n", "conform.yaml:3: matches is not a regular expression"},
		{"a tool without a name", "tools:\n  - args: {a: 1}\n", "conform.yaml:2: a tool needs its name"},
		{"args not an object", "tools:\n  - name: x\n  - name: y\n    args: [1]\n", "conform.yaml:3: args: want an object, got [1]"},
		{"an interrupt without a tool", "interrupts:\n  - answer: yes\n", "conform.yaml:2: an interrupt needs the tool's name"},
		{"a pattern selecting nothing", "only: [txet]\n", `conform.yaml: "txet" selects no scenario`},
		{"bad duration", "timeout: soon\n", "conform.yaml:1: "},
		{"not a mapping", "- a\n", "conform.yaml:1: want a mapping (the configuration), not a list"},
		{"empty", "", "conform.yaml: empty configuration"},
		{"json syntax", "{\"tools\": [}\n", "conform.yaml:1:12: invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "conform.yaml")
			require.NoError(t, os.WriteFile(p, []byte(tt.text), 0o644))
			_, err := conform.LoadConfig(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, tt.want))
		})
	}
}

func TestSelect(t *testing.T) {
	names := func(cfg conform.Config) []string {
		var out []string
		for _, c := range conform.Cases(cfg) {
			out = append(out, c.Name)
		}
		return out
	}
	cfg := refConfig
	cfg.Only = []string{"provider-*", "backend-tool"}
	assert.Equal(t, []string{"provider-500", "provider-429", "provider-disconnect", "provider-malformed", "backend-tool/get_forecast"}, names(cfg))
	cfg = refConfig
	cfg.Only = []string{"interrupt/delete_file", "text"}
	assert.Equal(t, []string{"text", "interrupt/delete_file"}, names(cfg))
	cfg = refConfig
	cfg.Skip = []string{"*-tool*", "*call*", "provider-*", "interrupt", "client-*"}
	assert.Equal(t, []string{"text", "reasoning", "tool-no-args", "tool-error", "tool-error-field", "state", "follow-up"}, names(cfg))
	cfg.Only = []string{"nothing-here"}
	assert.ErrorContains(t, cfg.CheckPatterns(), `"nothing-here" selects no scenario`)
}
