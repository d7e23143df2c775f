package conform_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
)

// deskCases are cases of refAgent's desk: its own forecast tool, a client
// tool with a canned result, an interrupt answered, a provider failure.
const deskCases = `# yaml-language-server: $schema=../conform/cases.schema.json
timeout: 5s
cases:
  - name: forecast
    input:
      user: Weather in Paris?
      state: {unit: C}
    script:
      turns:
        - calls: [{name: get_forecast, args: '{"city":"Paris"}'}]
        - text: It is 18°C in Paris.
    explore: {plans: 5, seed: 2}
    ignore_state: [/updated_at]
    expect:
      text: {matches: "18°C"}
      calls:
        - {name: get_forecast, args: {city: Paris}, count: 1}
        - {name: delete_file, count: 0}
      state: {/unit: C}
  - name: contact
    input: {user: "Zoë's number?"}
    tools:
      - name: lookup_contact
        parameters: {type: object, properties: {name: {type: string}}}
        result: {phone: "+82 2 555 0199"}
      - name: show_notice
        error: no screen
    script:
      turns:
        - calls:
            - {name: lookup_contact, args: '{"name":"Zoë"}'}
            - {name: show_notice, args: '{"text":"Searching"}'}
        - expect: {tool_results: [call_1_1, call_1_2]}
          text: "+82 2 555 0199"
    golden: wire
    expect:
      calls: [{name: lookup_contact, args: {/name: {matches: "^Zo"}}}]
      order: [lookup_contact, show_notice]
  - name: delete
    input: {user: Delete notes.txt}
    script:
      turns:
        - calls: [{name: delete_file, args: '{"path":"notes.txt"}'}]
        - text: Deleted.
    answers: [{tool: delete_file, payload: {approved: true}}]
    golden: none
  - name: outage
    input:
      messages: [{role: user, content: Hello}]
    script:
      turns: [{fault: {kind: status, status: 500, always: true}}]
    want_error: {message: model, code: PROVIDER_ERROR}
    profile: reference
    client: 0.0.59
    allow: [truncated]
`

func TestLoadCases(t *testing.T) {
	f, err := conform.ParseCases("desk.yaml", []byte(deskCases))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, f.Timeout)
	assert.Equal(t, []int{4, 20, 39, 47}, f.Lines)
	assert.Equal(t, filepath.Join("testdata", "desk"), f.GoldenDir())
	require.Len(t, f.Cases, 4)
	forecast, contact, del, outage := f.Cases[0], f.Cases[1], f.Cases[2], f.Cases[3]

	assert.Equal(t, "forecast", forecast.Name)
	assert.Equal(t, "Weather in Paris?", forecast.Input.Messages[0].Content.Text)
	assert.JSONEq(t, `{"unit":"C"}`, string(forecast.Input.State))
	assert.Len(t, forecast.Script.Turns, 2)
	assert.NotNil(t, forecast.Check)
	assert.Equal(t, golden.Merged, forecast.Golden)
	assert.Equal(t, &harness.Explore{Plans: 5, Seed: 2}, forecast.Explore)
	assert.Equal(t, []string{"/updated_at"}, forecast.IgnoreState)

	require.Len(t, contact.Tools, 2)
	got, err := contact.Tools[0].Run(t.Context(), json.RawMessage(`{"name":"Zoë"}`))
	assert.NoError(t, err)
	assert.Equal(t, `{"phone":"+82 2 555 0199"}`, got)
	_, err = contact.Tools[1].Run(t.Context(), nil)
	assert.EqualError(t, err, "no screen")
	assert.Equal(t, golden.Wire, contact.Golden)

	assert.Equal(t, []harness.Answer{{Tool: "delete_file", Payload: json.RawMessage(`{"approved":true}`)}}, del.Answers)
	assert.True(t, del.NoGolden)

	assert.Equal(t, "Hello", outage.Input.Messages[0].Content.Text)
	assert.Empty(t, outage.Input.Messages[0].ID, "the harness mints the ids of messages without one")
	assert.Equal(t, &harness.WantError{Message: "model", Code: "PROVIDER_ERROR"}, outage.WantError)
	assert.Equal(t, agui.Reference, outage.Profile)
	assert.Equal(t, agui.ClientV0059, outage.Client)
	assert.Empty(t, forecast.Client, "every client by default")
	assert.Equal(t, []agui.Rule{agui.RuleTruncated}, outage.Allow)
}

// The file's cases run through the harness against refAgent: each passes,
// its expectations included, and an agent with a bug fails the expectation
// that catches it, saying what the client holds.
func TestCaseFileRuns(t *testing.T) {
	f, err := conform.ParseCases("desk.yaml", []byte(deskCases))
	require.NoError(t, err)
	o := harness.Options{Dir: t.TempDir(), Update: true, Timeout: 10 * time.Second}
	for i, rep := range o.TestAll(t.Context(), harness.Func(refAgent{}.Run), f.Cases) {
		assert.Empty(t, rep.Problems, "case %s", f.Cases[i].Name)
		if i < 2 {
			require.NotNil(t, rep.Exploration, "case %s: explored, as every case is by default", f.Cases[i].Name)
		}
		if i == 0 {
			assert.Equal(t, 5, rep.Exploration.Plans, "the case's own budget")
		}
	}
	// The goldens written are compared on the next pass.
	o.Update = false
	for i, rep := range o.TestAll(t.Context(), harness.Func(refAgent{}.Run), f.Cases) {
		assert.Empty(t, rep.Problems, "case %s, against its golden", f.Cases[i].Name)
	}

	rep := o.Test(t.Context(), harness.Func(refAgent{bug: renamesCallArgs}.Run), f.Cases[0])
	var checks []string
	for _, p := range rep.Problems {
		if p.Kind == harness.ProblemCheck {
			checks = append(checks, p.Text)
		}
	}
	assert.Equal(t, []string{`calls get_forecast with city "Paris": got 0, want 1; the client holds get_forecast {} (id call_1_1)`}, checks)
}

// Every mistake in a file is reported, each at its line.
func TestLoadCasesErrors(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		want       []string
	}{
		{"empty", "", []string{"c.yaml: empty case file"}},
		{"no cases", "timeout: 1s\n", []string{"c.yaml:1: the file has no cases (cases:)"}},
		{"unknown key", "cases:\n  - name: a\n    inputs: {user: hi}\n", []string{"c.yaml:3: field inputs not found in a case (did you mean input?)"}},
		{"unknown keys, each with its near miss", `cases:
  - name: a
    input: {user: hi, folow_ups: [more]}
    tool: []
    script:
      turns:
        - text: hi
          txet: typo
    weather: sunny
`, []string{
			"c.yaml:3: field folow_ups not found in input (did you mean follow_ups?)",
			"c.yaml:4: field tool not found in a case (did you mean tools?)",
			"c.yaml:8: field txet not found in a turn (did you mean text?)",
			"c.yaml:9: field weather not found in a case",
		}},
		{"bad duration", "timeout: soon\ncases: []\n", []string{`c.yaml:1: duration "soon": want a Go duration`}},
		{"case mistakes", `cases:
  - name: a
    input: {user: hi, messages: []}
    script: {turns: [{text: hi}]}
  - name: a
    input: {}
    script: {turns: []}
  - input: {user: hi}
    script: {turns: [{text: hi}]}
`, []string{
			`c.yaml:3: case "a": input: user or messages, not both`,
			`c.yaml:5: case "a": the name is taken by the case at line 2`,
			`c.yaml:6: case "a": input: say what the user asks: user: TEXT, or messages: [...]`,
			`c.yaml:5: case "a": a case needs a script with turns`,
			`c.yaml:8: a case needs a name`,
		}},
		{"client", "cases:\n  - name: a\n    input: {user: hi}\n    script: {turns: [{text: hi}]}\n    client: 0.0.60\n", []string{
			`c.yaml:5: unknown client version "0.0.60" (want 1.0.0 or 0.0.59)`,
		}},
		{"ignore_state", "cases:\n  - name: a\n    input: {user: hi}\n    script: {turns: [{text: hi}]}\n    ignore_state: [messages]\n", []string{
			`c.yaml:5: case "a": ignore_state: "messages" is not a JSON Pointer: it does not start with / (the state's member messages is /messages)`,
		}},
		{"tools and answers", `cases:
  - name: a
    input: {user: hi}
    script: {turns: [{text: hi}]}
    tools:
      - name: t
      - name: u
        result: 1
        error: no
    answers:
      - {cancel: true, payload: 1}
`, []string{
			`c.yaml:6: case "a": tool "t": say what the client's tool returns`,
			`c.yaml:7: case "a": tool "u": result or error, not both`,
			`c.yaml:11: case "a": an answer cancels or resolves with a payload, not both`,
		}},
		{"expectations", `cases:
  - name: a
    input: {user: hi}
    script: {turns: [{text: hi}]}
    golden: all
    want_error: maybe
    expect:
      text: {matches: "("}
      calls:
        - {name: t, args: {"a[": 1}}
      state: {/x: {equals: 1, other: 2}}
`, []string{
			`c.yaml:5: golden: want merged, wire or none, got "all"`,
			`c.yaml:6: want_error: want true or {message: REGEXP, code: CODE}, got "maybe"`,
			`c.yaml:8: matches is not a regular expression`,
			`c.yaml:10: path "a[": [ without ]`,
		}},
		{"script", `cases:
  - name: a
    input: {user: hi}
    script:
      turns:
        - text: hi
        - calls: [{name: t, args: "{"}]
`, []string{`c.yaml:7: turn 2: call 1 (t): args are not valid JSON`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := conform.ParseCases("c.yaml", []byte(tt.file))
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Len(t, strings.Split(err.Error(), "\n"), len(tt.want), "one line per mistake:\n%v", err)
		})
	}
}
