package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/taskboard"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/scripted"
)

const demoUsage = `usage: aguitest demo [--out DIR]

Runs the task-board example agent (examples/taskboard, a Go http.Handler
using the openai-go client) against the scripted LLM, on loopback only: no
network, no API key. The model answers with three tool calls whose argument
fragments are interleaved round-robin, then with text. The demo prints the
AG-UI events live as they stream, verifies them with the strict profile, and
writes into DIR:

  recording.jsonl   the run as the recorder middleware captured it
  stream.sse        the raw server-sent event stream the client received
  wire.golden       the normalised events, every fragment (golden, wire view)
  merged.golden     messages and calls joined (golden, merged view)

Flags:
  --out DIR   where to write (default: a new temporary directory)

Example:
  aguitest demo
  aguitest demo --out /tmp/demo && aguitest show /tmp/demo/recording.jsonl

Exit status: 0 the run conformed and used the script, 1 it did not, 2 bad
usage or a file that could not be written.
`

// demoBoard is the board the demo's client holds.
const demoBoard = `{"columns":[
	{"id":"todo","title":"To do","tasks":[{"id":"T1","title":"Write the spec"}]},
	{"id":"doing","title":"Doing","tasks":[{"id":"T2","title":"Fix the login bug"}]},
	{"id":"done","title":"Done","tasks":[{"id":"T3","title":"Set up CI"}]}],
	"nextId":4}`

// demoScript has the model call three board tools at once, their argument
// fragments interleaved round-robin, and then answer once the results are
// back. The agent names calls after its run: run-1-call-N.
func demoScript() scripted.Script {
	return scripted.Script{Turns: []scripted.Turn{
		{
			Expect: scripted.Expect{LastUser: "release", Tools: []string{"add_task", "move_task", "rename_task"}},
			Text:   "Three changes coming.",
			Calls: []scripted.Call{
				{Name: "add_task", Args: `{"title":"Release 1.0","column":"todo"}`},
				{Name: "move_task", Args: `{"id":"T1","to":"doing"}`},
				{Name: "rename_task", Args: `{"id":"T3","title":"Set up CI (nightly)"}`},
			},
			Plan: scripted.Plan{
				Split: scripted.Split{By: scripted.Bytes, Size: 12},
				Order: scripted.Order{By: scripted.RoundRobin, Text: scripted.TextBefore},
			},
		},
		{
			Expect: scripted.Expect{ToolResults: []string{"run-1-call-1", "run-1-call-2", "run-1-call-3"}},
			Text:   "Done: T4 added, the spec is in progress, CI renamed.",
			Plan:   scripted.Plan{Split: scripted.Split{By: scripted.Words, Size: 2}},
		},
	}}
}

func demoInput() agui.RunAgentInput {
	var tools []agui.Tool
	for _, name := range []string{"add_task", "move_task", "rename_task"} {
		tools = append(tools, agui.Tool{Name: name, Description: "Changes the task board.", Parameters: json.RawMessage(`{"type":"object"}`)})
	}
	return agui.RunAgentInput{
		ThreadID: "thread-1",
		RunID:    "run-1",
		State:    json.RawMessage(demoBoard),
		Messages: []agui.Message{agui.UserMessage("user-1", "Add a release task, start the spec, and call the CI card 'Set up CI (nightly)'.")},
		Tools:    tools,
	}
}

func cmdDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "directory to write to")
	if code := parseFlags(fs, args, demoUsage, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "aguitest demo: unexpected arguments %q\n\n%s", fs.Args(), demoUsage)
		return 2
	}
	dir := *out
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp("", "aguitest-demo-*")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintf(stderr, "aguitest demo: %v\n", err)
		return 2
	}
	d := demo{dir: dir, stdout: stdout, stderr: stderr, pal: colorFor(stdout), names: map[string]string{}}
	return d.run()
}

type demo struct {
	dir            string
	stdout, stderr io.Writer
	pal            palette
	// inline is the id of the message or call whose fragments the current
	// output line continues; "" at the start of a line.
	inline string
	// names are the tools of the calls by id.
	names map[string]string
}

func (d *demo) fail(err error) int {
	d.endLine()
	fmt.Fprintf(d.stderr, "aguitest demo: %v\n", err)
	return 2
}

func (d *demo) run() int {
	fmt.Fprintf(d.stdout, "aguitest demo: the task-board agent (examples/taskboard) against a scripted LLM, on loopback\n")
	fmt.Fprintf(d.stdout, "writing to %s\n\n", d.dir)
	fmt.Fprintf(d.stdout, "The AG-UI events, as the client reads them: one line each, but for fragments:\n")
	fmt.Fprintf(d.stdout, "  \"  ID: text\"     a message's text deltas (TEXT_MESSAGE_CONTENT), joined on one line\n")
	fmt.Fprintf(d.stdout, "  \"→ CALL NAME …\"  a fragment of a call's arguments (TOOL_CALL_ARGS); the three calls stream interleaved\n")
	fmt.Fprintf(d.stdout, "  \"← CALL …\"       the tool's result (TOOL_CALL_RESULT), a message of its own: its id takes a number,\n")
	fmt.Fprintf(d.stdout, "                   so the next text message's id skips the results' ids\n\n")

	recPath := filepath.Join(d.dir, "recording.jsonl")
	w, err := recorder.Create(recPath, recorder.Header{Source: "aguitest demo"})
	if err != nil {
		return d.fail(err)
	}
	defer w.Close()
	sse, err := os.Create(filepath.Join(d.dir, "stream.sse"))
	if err != nil {
		return d.fail(err)
	}
	defer sse.Close()

	// The case runs through the harness's core, as a test would: the
	// scripted LLM, the agent on loopback, the client's reading and
	// verifying, the script's check. The middleware records the AG-UI
	// side; the transport records, into the same run, what the model
	// said, so the run can be replayed offline against the recorded model
	// (package replay). What the client received is kept as it came.
	var rec *recorder.Handler
	agent := harness.Handler(func(env harness.Env) http.Handler {
		model := &http.Client{Transport: &recorder.Transport{}}
		rec = recorder.Middleware(taskboard.New(taskboard.Options{BaseURL: env.BaseURL, APIKey: "demo", HTTPClient: model}), recorder.Config{Writer: w})
		return teeBody{rec, sse}
	})
	input := demoInput()
	violations := 0
	report := harness.Options{
		OnEvent: func(_ int, e agui.Event) { d.print(e) },
		OnProblem: func(p harness.Problem) {
			if p.Kind == harness.ProblemViolation {
				violations++
			}
			d.endLine()
			fmt.Fprintln(d.stdout, d.pal.red("! "+p.Text))
		},
	}.Test(context.Background(), agent, harness.Case{
		Name:     "demo",
		Input:    harness.Input{RunAgentInput: &input},
		Script:   demoScript(),
		NoGolden: true,
	})
	d.endLine()
	if rec != nil {
		rec.Wait() // the agent's server is closed: the recording is complete
	}
	if err := w.Close(); err != nil {
		return d.fail(err)
	}
	if err := sse.Close(); err != nil {
		return d.fail(err)
	}
	if report.Result == nil {
		return d.fail(report.Err())
	}
	events := report.Result.Events()

	status := 0
	if report.Failed() {
		status = 1
	}
	if err := d.writeGoldens(report.Result); err != nil {
		return d.fail(err)
	}
	// The recording must read back with the same events.
	src, err := readSource(recPath, nil, agui.Options{})
	if err != nil {
		return d.fail(err)
	}
	if got := len(src.events()); got != len(events) {
		fmt.Fprintf(d.stdout, "%s\n", d.pal.red(fmt.Sprintf("the recording holds %d events, the client read %d", got, len(events))))
		status = 1
	}
	d.summary(status, len(events), violations, recPath)
	return status
}

// writeGoldens writes the case's goldens in both views.
func (d *demo) writeGoldens(res *harness.Result) error {
	runs := make([]golden.Run, len(res.Runs))
	for i := range res.Runs {
		runs[i] = golden.Run{Input: &res.Runs[i].Input, Events: res.Runs[i].Events}
	}
	for _, g := range []struct {
		name string
		view golden.View
	}{{"wire", golden.Wire}, {"merged", golden.Merged}} {
		text := golden.Marshal(golden.Normalizer{}.NormalizeRuns(runs, g.view))
		if err := os.WriteFile(filepath.Join(d.dir, g.name+".golden"), text, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// summary says how the run went, what was written, and what to try next.
func (d *demo) summary(status, events, violations int, recPath string) {
	fmt.Fprintln(d.stdout)
	summary := fmt.Sprintf("%s: %s, %s", map[bool]string{true: "ok", false: "FAILED"}[status == 0], plural(events, "event"), plural(violations, "violation"))
	if status == 0 {
		summary = d.pal.green(summary)
	} else {
		summary = d.pal.red(summary)
	}
	fmt.Fprintln(d.stdout, summary)
	fmt.Fprintf(d.stdout, "wrote %s: recording.jsonl, stream.sse, wire.golden, merged.golden\n\n", d.dir)
	rp := shellQuote(recPath)
	me := "aguitest"
	if strings.Contains(os.Args[0], "go-build") {
		me = "go run ./cmd/aguitest" // started by go run
	}
	fmt.Fprintf(d.stdout, "Try next:\n")
	for _, line := range []string{
		me + " show " + rp,
		me + " show --html " + shellQuote(filepath.Join(d.dir, "timeline.html")) + " " + rp,
		me + " verify " + shellQuote(d.dir),
		me + " diff --view wire " + rp + " " + shellQuote(filepath.Join(d.dir, "stream.sse")),
		"go test ./examples/...",
	} {
		fmt.Fprintf(d.stdout, "  %s\n", line)
	}
}

// teeBody serves with its handler and copies what it writes to the
// client into w.
type teeBody struct {
	h http.Handler
	w io.Writer
}

func (t teeBody) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t.h.ServeHTTP(&teeWriter{ResponseWriter: w, copy: t.w}, r)
}

// teeWriter passes every call through and copies what was written.
type teeWriter struct {
	http.ResponseWriter
	copy io.Writer
}

// Write writes p to the client, and what went through to the copy.
func (w *teeWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	_, _ = w.copy.Write(p[:n])
	return n, err
}

// Unwrap returns the client's writer, for http.ResponseController.
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// print writes one event of the live transcript. Consecutive fragments of
// one message or call continue the same line.
func (d *demo) print(e agui.Event) {
	switch e.Type() {
	case agui.TextMessageContent:
		d.continueLine(e.MessageID(), "  "+e.MessageID()+": ", e.Delta())
		return
	case agui.ToolCallArgs:
		d.continueLine(e.ToolCallID(), "→ "+e.ToolCallID()+" "+d.names[e.ToolCallID()]+" ", e.Delta())
		return
	}
	d.endLine()
	var s string
	switch e.Type() {
	case agui.RunStarted, agui.RunFinished:
		s = string(e.Type()) + " " + e.RunID()
	case agui.TextMessageStart:
		s = "TEXT_MESSAGE_START " + e.MessageID() + " " + e.Role()
	case agui.TextMessageEnd:
		s = "TEXT_MESSAGE_END " + e.MessageID()
	case agui.ToolCallStart:
		d.names[e.ToolCallID()] = e.ToolCallName()
		s = "TOOL_CALL_START " + e.ToolCallID() + " " + e.ToolCallName()
	case agui.ToolCallEnd:
		s = "TOOL_CALL_END " + e.ToolCallID()
	case agui.ToolCallResult:
		s = "← " + e.ToolCallID() + " (message " + e.MessageID() + ") " + stringField(e, "content")
	case agui.StateDelta:
		raw, _ := e.Field("delta")
		s = "STATE_DELTA " + clip(compactJSON(raw), 160)
	case agui.StateSnapshot:
		raw, _ := e.Field("snapshot")
		s = "STATE_SNAPSHOT " + clip(compactJSON(raw), 160)
	case agui.RunError:
		s = d.pal.red("RUN_ERROR " + stringField(e, "code") + ": " + stringField(e, "message"))
	default:
		s = clip(string(e.Raw()), 160)
	}
	fmt.Fprintln(d.stdout, s)
}

func (d *demo) continueLine(id, head, delta string) {
	if d.inline != id {
		d.endLine()
		fmt.Fprint(d.stdout, d.pal.dim(head))
		d.inline = id
	}
	fmt.Fprint(d.stdout, delta)
}

func (d *demo) endLine() {
	if d.inline != "" {
		fmt.Fprintln(d.stdout)
		d.inline = ""
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:=@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
