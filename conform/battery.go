package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// Name names a scenario of the battery, as --only and --skip take it.
type Name string

// The scenarios, in the order they run. A scenario of the server's own
// tools is named for the tool too: "backend-tool/get_weather".
const (
	Text               Name = "text"                // text with multi-byte characters cut mid-character
	Reasoning          Name = "reasoning"           // reasoning, then text
	FrontendTool       Name = "frontend-tool"       // a client's tool, its result in the next run
	ParallelTools      Name = "parallel-tools"      // three client calls streamed interleaved
	ToolNoArgs         Name = "tool-no-args"        // a client's tool that takes no arguments
	ChainedCalls       Name = "chained-calls"       // a call, then another made with its result
	ToolError          Name = "tool-error"          // a client's tool that fails, posted as the frontend posts it
	ToolErrorField     Name = "tool-error-field"    // a client's tool that fails, posted in the tool message's error field
	TextBetweenCalls   Name = "text-between-calls"  // text streamed between the calls' fragments
	State              Name = "state"               // the client's state comes back as it was sent
	FollowUp           Name = "follow-up"           // a second user message on the thread
	Provider500        Name = "provider-500"        // the model answers HTTP 500, every time
	Provider429        Name = "provider-429"        // the model answers 429 with Retry-After, every time
	ProviderDisconnect Name = "provider-disconnect" // the model's stream breaks off inside a call
	ProviderMalformed  Name = "provider-malformed"  // the model's stream holds a chunk that is not JSON
	ClientDisconnect   Name = "client-disconnect"   // the client leaves mid-run, then comes back
	BackendTool        Name = "backend-tool"        // a tool of the server's own (Config.Tools)
	BackendCalls       Name = "backend-calls"       // two calls to the server's own tools in one turn
	TextAfterCalls     Name = "text-after-calls"    // text after a call of the server's own, then the next step's text
	Interrupt          Name = "interrupt"           // a tool the server asks the user about (Config.Interrupts)
	GeneratedCall      Name = "generated-call"      // a tool the server declares to its model, called with generated arguments
)

// Names lists the scenarios in the order they run.
var Names = []Name{
	Text, Reasoning, FrontendTool, ParallelTools, ToolNoArgs, ChainedCalls, ToolError, ToolErrorField,
	TextBetweenCalls, State, FollowUp, Provider500, Provider429, ProviderDisconnect,
	ProviderMalformed, ClientDisconnect, BackendTool, BackendCalls, TextAfterCalls, Interrupt, GeneratedCall,
}

// Scenario is one scenario of the battery: a harness case that any AG-UI
// server can take, since it uses only what the protocol gives a client,
// and framework-neutral checks (the case's Check) over what the client
// holds and what the model was asked.
type Scenario struct {
	// Name is the scenario's name: one of Names, with the tool's name
	// after a slash for BackendTool and Interrupt.
	Name string
	// Doc says in a line what the scenario does and checks.
	Doc string
	// Skip, when not "", says why the scenario cannot run (the
	// configuration does not name what it needs); Case is then empty.
	Skip string
	// Case is the harness case, named Name; its Check holds the
	// scenario's checks.
	Case harness.Case

	waits bool // its run is mostly a wait on the model client's retries
}

// The client's tools the scenarios offer. Their names are unlikely to be
// those of a server's own tools.
var (
	lookupContact = harness.Tool{
		Name:        "lookup_contact",
		Description: "Looks a person up in the user's address book, on their device.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"city":{"type":"string"}},"required":["name"]}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ Name string }
			if err := json.Unmarshal(args, &a); err != nil {
				return "", fmt.Errorf("lookup_contact: the arguments are not an object with a name: %v", err)
			}
			b, _ := json.Marshal(map[string]string{"name": a.Name, "phone": phoneOf(a.Name)})
			return string(b), nil
		},
	}
	showNotice = harness.Tool{
		Name:        "show_notice",
		Description: "Shows a notice in the user's window.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"level":{"type":"string","enum":["info","warning"]}},"required":["text"]}`),
		Run:         func(context.Context, json.RawMessage) (string, error) { return "notice shown", nil },
	}
	getClipboard = harness.Tool{
		Name:        "get_clipboard",
		Description: "Reads the text on the user's clipboard.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
		Run:         func(context.Context, json.RawMessage) (string, error) { return "clipboard: blue-7741", nil },
	}
	readSensor = harness.Tool{
		Name:        "read_sensor",
		Description: "Reads a sensor of the user's home.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"sensor":{"type":"string"}},"required":["sensor"]}`),
		Run: func(context.Context, json.RawMessage) (string, error) {
			return "", errors.New(sensorError)
		},
	}
)

// sensorError is what read_sensor fails with; the model must be told.
const sensorError = "sensor offline: no reading for 5 minutes"

func phoneOf(name string) string {
	switch name {
	case "Ada":
		return "+44 20 7946 0101"
	case "Grace":
		return "+1 202 555 0102"
	}
	return "+82 2 555 0199"
}

// unicodeText has characters of one to four bytes, a combining sequence,
// an emoji with a variation selector and a joined emoji; cut every 3
// bytes, it is cut inside most of them.
const unicodeText = "Grüße aus Köln – 東京は晴れ ☀️, naïve café, 👩‍💻 done."

// Battery returns every scenario, in the order they run, with what cfg
// says: the server's tools and interrupts, the verifier profile and
// waivers. Scenarios that need a tool cfg does not name are listed with
// Skip set.
func Battery(cfg Config) []Scenario {
	var out []Scenario
	add := func(name Name, doc string, c harness.Case) {
		c.Name = string(name)
		out = append(out, Scenario{Name: string(name), Doc: doc, Case: c})
	}
	add(Text, "text with multi-byte characters, cut by the model mid-character, reaches the client verbatim", harness.Case{
		Input: harness.User("Say hello in a few languages."),
		Script: script(scripted.Turn{
			Expect: scripted.Expect{LastUser: "Say hello"},
			Text:   unicodeText,
			Plan:   scripted.Plan{Split: scripted.Split{By: scripted.Bytes, Size: 3, MidRune: true}},
		}),
	})
	add(Reasoning, "the model reasons, then answers: the answer reaches the client verbatim, and the reasoning too if the client is shown any", harness.Case{
		Input: harness.User("What is 12 times 12?"),
		Script: script(scripted.Turn{
			Reasoning: "12 × 12: 12 × 10 = 120, plus 12 × 2 = 24, so 144.",
			Text:      "12 × 12 = 144.",
			Plan:      scripted.Plan{Split: scripted.Split{By: scripted.Words}},
		}),
	})
	add(FrontendTool, "the model calls a tool the client offered: the call reaches the client with its exact arguments, the client runs it, and its result reaches the model in the next run", harness.Case{
		Input: harness.User("What is Zoë's number?"),
		Tools: []harness.Tool{lookupContact},
		Script: script(
			scripted.Turn{
				Expect: scripted.Expect{Tools: []string{"lookup_contact"}, LastUser: "Zoë"},
				Calls:  []scripted.Call{{Name: "lookup_contact", Args: `{"name":"Zoë \"Z\" Ångström","city":"東京"}`}},
				Plan:   scripted.Plan{Split: scripted.Split{By: scripted.Bytes, Size: 4, Escapes: true}},
			},
			scripted.Turn{Text: "Zoë's number is +82 2 555 0199."},
		),
	})
	add(ParallelTools, "the model calls three client tools at once, their fragments interleaved round-robin: each call reaches the client whole, under its own id, and every result reaches the model", harness.Case{
		Input: harness.User("Find Ada's and Grace's numbers."),
		Tools: []harness.Tool{lookupContact, showNotice},
		Script: script(
			scripted.Turn{
				Expect: scripted.Expect{Tools: []string{"lookup_contact", "show_notice"}},
				Text:   "Looking both up.",
				Calls: []scripted.Call{
					{Name: "lookup_contact", Args: `{"name":"Ada"}`},
					{Name: "lookup_contact", Args: `{"name":"Grace"}`},
					{Name: "show_notice", Args: `{"text":"Searching…","level":"info"}`},
				},
				Plan: scripted.Plan{Split: scripted.Split{By: scripted.Bytes, Size: 3}, Order: scripted.Order{By: scripted.RoundRobin}},
			},
			scripted.Turn{Text: "Ada: +44 20 7946 0101. Grace: +1 202 555 0102."},
		),
	})
	add(ToolNoArgs, "the model calls a client tool that takes no arguments: the client runs it with {} and its result reaches the model", harness.Case{
		Input: harness.User("What is on my clipboard?"),
		Tools: []harness.Tool{getClipboard},
		Script: script(
			scripted.Turn{Expect: scripted.Expect{Tools: []string{"get_clipboard"}}, Calls: []scripted.Call{{Name: "get_clipboard"}}},
			scripted.Turn{Text: "Your clipboard holds blue-7741."},
		),
	})
	add(ChainedCalls, "the model calls a client tool, then another with the first one's result: three runs, each carrying every result so far", harness.Case{
		Input: harness.User("Show Ada's number."),
		Tools: []harness.Tool{lookupContact, showNotice},
		Script: script(
			scripted.Turn{Calls: []scripted.Call{{Name: "lookup_contact", Args: `{"name":"Ada"}`}}},
			scripted.Turn{
				Calls: []scripted.Call{{Name: "show_notice", Args: `{"text":"Ada: +44 20 7946 0101","level":"info"}`}},
			},
			scripted.Turn{Text: "Ada's number is on your screen."},
		),
	})
	if cfg.Frontend == harness.FrontendHTTPAgent {
		add(ToolError, "a client tool fails; the client posts the error in the tool message's error field, as an HttpAgent application does, and runs again: the error reaches the model, which answers", toolErrorField())
		out = append(out, Scenario{Name: string(ToolErrorField), Doc: "a client tool fails, its error posted in the tool message's error field", Skip: "the frontend is httpagent: tool-error posts the error field"})
	} else {
		add(ToolError, "a client tool fails; the client posts \"Error: <message>\" as the tool's content and no run after it, as CopilotKit does: the error reaches the model with the user's next message, which it answers", harness.Case{
			Input: harness.Input{
				Messages:  harness.User("How warm is the kitchen?").Messages,
				FollowUps: []string{"Is the kitchen sensor working now?"},
			},
			Tools: []harness.Tool{readSensor},
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: "read_sensor", Args: `{"sensor":"kitchen"}`}}},
				scripted.Turn{Expect: scripted.Expect{LastUser: "working now"}, Text: "No, the kitchen sensor is offline."},
			),
		})
		add(ToolErrorField, "a client tool fails; the client posts the error in the tool message's error field (empty content) and runs again: a shape @ag-ui/core's ToolMessage allows and an HttpAgent application may send, not what CopilotKit sends: the error reaches the model, which answers", toolErrorField())
	}
	add(TextBetweenCalls, "the model streams its text between the fragments of two calls: the text and both calls reach the client whole", harness.Case{
		Input: harness.User("Find Ada and Grace."),
		Tools: []harness.Tool{lookupContact},
		Script: script(
			scripted.Turn{
				Text: "Let me look both of them up for you.",
				Calls: []scripted.Call{
					{Name: "lookup_contact", Args: `{"name":"Ada","city":"London"}`},
					{Name: "lookup_contact", Args: `{"name":"Grace","city":"Arlington"}`},
				},
				Plan: scripted.Plan{Split: scripted.Split{By: scripted.Bytes, Size: 4}, Order: scripted.Order{By: scripted.RoundRobin, Text: scripted.TextBetween}},
			},
			scripted.Turn{Text: "Found them both."},
		),
	})
	add(State, "the client sends its state: after the run it holds the same state (the agent sent it back unchanged, or left it alone)", harness.Case{
		Input: harness.Input{
			Messages: harness.User("Thanks, that is all.").Messages,
			State:    json.RawMessage(stateDoc),
		},
		Script: script(scripted.Turn{Text: "You are welcome."}),
	})
	add(FollowUp, "a second user message on the thread: the model is asked with the whole conversation, the first answer included", harness.Case{
		Input: harness.Input{
			Messages:  harness.User("What is the capital of France?").Messages,
			FollowUps: []string{"And of Italy?"},
		},
		Script: script(
			scripted.Turn{Expect: scripted.Expect{LastUser: "France"}, Text: "Paris."},
			scripted.Turn{Expect: scripted.Expect{LastUser: "Italy"}, Text: "Rome."},
		),
	})
	fault := func(name Name, doc string, f scripted.Fault, turn scripted.Turn, tools ...harness.Tool) {
		f.Always = true // a client that retries meets it every time
		turn.Fault = &f
		add(name, doc, harness.Case{
			Input:     harness.User("Find Ada Lovelace's number."),
			Tools:     tools,
			Script:    script(turn),
			WantError: &harness.WantError{},
		})
		// A status a client retries on, after a backoff or Retry-After.
		out[len(out)-1].waits = f.Kind == scripted.FaultStatus
	}
	fault(Provider500, "the model answers HTTP 500 to every request: the run ends with RUN_ERROR, in time", scripted.Fault{Kind: scripted.FaultStatus, Status: 500, Message: "scripted upstream failure"}, scripted.Turn{})
	fault(Provider429, "the model answers 429 with Retry-After: 1 to every request: the run ends with RUN_ERROR once the client gives up, in time", scripted.Fault{Kind: scripted.FaultStatus, Status: 429, RetryAfter: "1"}, scripted.Turn{})
	fault(ProviderDisconnect, "the model's stream breaks off inside a call's arguments, every time: the run ends with RUN_ERROR, in time, and no call is closed with half its arguments",
		scripted.Fault{Kind: scripted.FaultDisconnect, After: 3},
		scripted.Turn{
			Calls: []scripted.Call{{Name: "lookup_contact", Args: `{"name":"Ada Lovelace","city":"London"}`}},
			Plan:  scripted.Plan{Split: scripted.Split{By: scripted.Bytes, Size: 4}},
		}, lookupContact)
	fault(ProviderMalformed, "the model's stream holds a chunk that is not JSON, every time: the run ends with RUN_ERROR, in time",
		scripted.Fault{Kind: scripted.FaultMalformed, After: 2},
		scripted.Turn{Text: "This answer has a broken chunk in it.", Plan: scripted.Plan{Split: scripted.Split{By: scripted.Words}}})
	add(ClientDisconnect, "the client leaves while the model streams (or after 5 s of nothing), then asks again on the thread: the agent answers the new run in full", harness.Case{
		Input: harness.Input{
			Messages:  harness.User("Tell me a long story.").Messages,
			FollowUps: []string{"Are you still there?"},
		},
		Script: script(
			scripted.Turn{
				Text:  "Once upon a time, in a city of bridges, there lived a clockmaker who never slept.",
				Plan:  scripted.Plan{Split: scripted.Split{By: scripted.Words}},
				Fault: &scripted.Fault{Kind: scripted.FaultStall, After: 2},
			},
			scripted.Turn{Expect: scripted.Expect{LastUser: "still there"}, Text: "Yes, I am still here."},
		),
		Leave: &harness.Leave{At: agui.TextMessageContent, Wait: 5 * time.Second},
	})
	if len(cfg.Tools) == 0 {
		out = append(out, Scenario{Name: string(BackendTool), Doc: "a tool of the server's own, named in the configuration", Skip: "the configuration names no tool of the server's (tools:)"})
	}
	for _, bt := range cfg.Tools {
		name := string(BackendTool) + "/" + bt.Name
		c := harness.Case{
			Name:  name,
			Input: harness.User(bt.prompt()),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: bt.Name, Args: string(bt.Args)}}},
				scripted.Turn{Text: "That is what the tool said."},
			),
		}
		out = append(out, Scenario{Name: name, Doc: fmt.Sprintf("the model calls the server's tool %s: the call reaches the client with its exact arguments, the server runs it, and its result reaches the model", bt.Name), Case: c})
	}
	backendCallsDoc := "the model calls the server's own tools twice in one turn: each call reaches the client with its exact arguments, each result under a message id of its own, and both results reach the model"
	if len(cfg.Tools) == 0 {
		out = append(out, Scenario{Name: string(BackendCalls), Doc: backendCallsDoc, Skip: "the configuration names no tool of the server's (tools:)"})
	} else {
		// The first two tools, or the first one twice.
		first, second := cfg.Tools[0], cfg.Tools[0]
		if len(cfg.Tools) > 1 {
			second = cfg.Tools[1]
		}
		add(BackendCalls, backendCallsDoc, harness.Case{
			Input: harness.User(first.prompt()),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: first.Name, Args: string(first.Args)}, {Name: second.Name, Args: string(second.Args)}}},
				scripted.Turn{Text: "That is what the tools said."},
			),
		})
	}
	textAfterDoc := "the model writes text after calling the server's own tool, then answers after its result in a step of its own: two messages, the first text not joined with the second"
	if len(cfg.Tools) == 0 {
		out = append(out, Scenario{Name: string(TextAfterCalls), Doc: textAfterDoc, Skip: "the configuration names no tool of the server's (tools:)"})
	} else {
		bt := cfg.Tools[0]
		add(TextAfterCalls, textAfterDoc, harness.Case{
			Input: harness.User(bt.prompt()),
			Script: script(
				scripted.Turn{
					Text:  "Let me check that for you.",
					Calls: []scripted.Call{{Name: bt.Name, Args: string(bt.Args)}},
					Plan:  scripted.Plan{Order: scripted.Order{Text: scripted.TextAfter}},
				},
				scripted.Turn{Text: "Here is what I found."},
			),
		})
	}
	if len(cfg.Interrupts) == 0 {
		out = append(out, Scenario{Name: string(Interrupt), Doc: "a tool the server asks the user about first, named in the configuration", Skip: "the configuration names no tool the server interrupts for (interrupts:)"})
	}
	for _, it := range cfg.Interrupts {
		name := string(Interrupt) + "/" + it.Tool
		c := harness.Case{
			Name:  name,
			Input: harness.User(it.prompt()),
			Script: script(
				scripted.Turn{Calls: []scripted.Call{{Name: it.Tool, Args: string(it.Args)}}},
				scripted.Turn{Text: "Done, as you answered."},
			),
			Answers: []harness.Answer{it.answer()},
		}
		out = append(out, Scenario{Name: name, Doc: fmt.Sprintf("the model calls %s; the server asks the user first (RUN_FINISHED with an interrupt), the client answers in the next run's resume, and the server runs it", it.Tool), Case: c})
	}
	out = append(out, generatedCalls(cfg)...)
	for i := range out {
		s := &out[i]
		if s.Skip != "" {
			continue
		}
		s.Case.NoGolden = true
		s.Case.Profile = cfg.Profile
		s.Case.Client = cfg.Client
		s.Case.Allow = cfg.Allow
		s.Case.Enable = cfg.Enable
		s.Case.Check = checksFor(s.Name, s.Case, cfg)
		switch {
		case !explorable(s.Name):
			s.Case.Explore = &harness.Explore{Off: true}
		case cfg.Explore != nil:
			x := *cfg.Explore
			s.Case.Explore = &x
		}
	}
	return out
}

// toolErrorField is the case of a client tool that fails, its error
// posted in the tool message's error field and a run after it.
func toolErrorField() harness.Case {
	return harness.Case{
		Input:    harness.User("How warm is the kitchen?"),
		Tools:    []harness.Tool{readSensor},
		Frontend: harness.FrontendHTTPAgent,
		Script: script(
			scripted.Turn{Calls: []scripted.Call{{Name: "read_sensor", Args: `{"sensor":"kitchen"}`}}},
			scripted.Turn{Text: "The kitchen sensor is offline."},
		),
	}
}

// generatedDoc says what a generated-call scenario does.
const generatedDoc = "the model calls %s, a tool the server declares to it, with arguments generated from its schema (every field, values at their edges: unicode, escapes, long strings, bounds, empty lists): the call reaches the client with exactly those arguments, the server runs it, and its result reaches the model"

// generatedCalls returns a GeneratedCall scenario for each tool in
// cfg.Declared but those the server interrupts for; a skipped one when
// there is none.
func generatedCalls(cfg Config) []Scenario {
	var out []Scenario
	for _, t := range cfg.Declared {
		if slices.ContainsFunc(cfg.Interrupts, func(it InterruptTool) bool { return it.Tool == t.Name }) {
			continue // the user is asked first: the interrupt scenario's
		}
		name := string(GeneratedCall) + "/" + t.Name
		out = append(out, Scenario{Name: name, Doc: fmt.Sprintf(generatedDoc, t.Name), Case: harness.Case{
			Name:  name,
			Input: harness.User(ServerTool{Name: t.Name}.prompt()),
			Script: script(
				scripted.Turn{Generate: &scripted.Generate{Tools: []string{t.Name}, Shape: scripted.ShapeEdge}},
				scripted.Turn{Text: "That is what the tool said."},
			),
		}})
	}
	if len(out) == 0 {
		why := "the server declared no tool of its own to its model in the scenarios before"
		if cfg.Declared == nil {
			why = "no tool the server declares is known yet: Run finds them in the model's requests of the scenarios before"
		}
		out = append(out, Scenario{Name: string(GeneratedCall), Doc: "a tool the server declares to its model, called with arguments generated from its schema", Skip: why})
	}
	return out
}

// declaredTools returns the tools the server declared to its model in a
// scenario's requests that the scenario's client did not offer: the
// server's own.
func declaredTools(c harness.Case, reqs []scripted.Request) []scripted.Tool {
	var out []scripted.Tool
	for _, r := range reqs {
		for _, t := range r.Tools {
			offered := slices.ContainsFunc(c.Tools, func(ct harness.Tool) bool { return ct.Name == t.Name })
			if !offered && !slices.ContainsFunc(out, func(o scripted.Tool) bool { return o.Name == t.Name }) {
				out = append(out, t)
			}
		}
	}
	return out
}

// explorable reports whether a scenario means the same under every plan
// of its script: not those whose point is a stream cut or failed where
// the script says.
func explorable(name string) bool {
	base, _, _ := strings.Cut(name, "/")
	switch Name(base) {
	case Provider500, Provider429, ProviderDisconnect, ProviderMalformed, ClientDisconnect:
		return false
	}
	return true
}

// stateDoc is the client's state in the State scenario.
const stateDoc = `{"todo":[{"id":1,"title":"Buy milk","done":false},{"id":2,"title":"Call Zoë","done":true}],"theme":"dark","user":{"name":"Zoë","tags":["a","b"]},"count":3,"note":null}`

// script makes a script of turns.
func script(turns ...scripted.Turn) scripted.Script { return scripted.Script{Turns: turns} }

// Cases returns the scenarios cfg selects that can run, as harness cases
// for harness.Run: the battery in a Go test.
//
//	harness.Run(t, agent, conform.Cases(conform.Config{}), harness.Options{Timeout: 20 * time.Second})
func Cases(cfg Config) []harness.Case {
	var out []harness.Case
	for _, s := range Battery(cfg) {
		if s.Skip == "" && cfg.Selects(s.Name) {
			out = append(out, s.Case)
		}
	}
	return out
}
