package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
)

const showUsage = `usage: aguitest show [--profile strict|reference] [--html OUT] [--messages] FILE

Prints a readable transcript of a recording or an AG-UI stream (a JSON
array, JSON Lines, server-sent events or protobuf frames; "-" reads
standard input): each run, each message as the client holds it (text
streamed under one id in several spans is one message), each tool call
with its arguments joined, the message the client put it in and its
result, state changes and errors, in the order they started. Calls
streamed at the same time are marked as parallel (┆), and every violation
of the verifier's profile is shown at its event (!) with the file and
line.

Flags:
  --html OUT     also write OUT, a self-contained HTML page with a timeline:
                 one lane per message and per tool call, each fragment a tick
                 on the time axis (recorded offsets, else event numbers),
                 violations marked in red
  --messages     print instead, for each run, one JSON line with the
                 messages and state a frontend holds at its end, as
                 HttpAgent of @ag-ui/client assembles them: {"run",
                 "thread", "messages", "state"}, and "stopped" (where the
                 client's pipeline stops: its verifier rejects an event) and
                 "warnings" (what it warns about) when there are any. A
                 recorded run starts from its request's messages and state;
                 the runs of a stream are one response.
  --profile P    strict (default) or reference

Example:
  aguitest show agui/testdata/streams/parallel.sse
  aguitest show --html run.html recording.jsonl
  aguitest show --messages recording.jsonl | jq .messages

Exit status: 0 shown (even with violations), 2 bad usage or unreadable
input.
`

func cmdShow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	profile := fs.String("profile", "strict", "strict or reference")
	htmlOut := fs.String("html", "", "write an HTML timeline to this file")
	messages := fs.Bool("messages", false, "print the messages and state the client holds after each run, as JSON")
	if code := parseFlags(fs, args, showUsage, stdout, stderr); code >= 0 {
		return code
	}
	p, err := agui.ParseProfile(*profile)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest show: %v\n", err)
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "aguitest show: want one FILE, got %s\n\n%s", plural(fs.NArg(), "argument"), showUsage)
		return 2
	}
	src, err := readSource(fs.Arg(0), stdin, p)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest show: %v\n", err)
		return 2
	}
	assemble(src)
	if *messages {
		if err := writeMessages(stdout, src); err != nil {
			fmt.Fprintf(stderr, "aguitest show: %v\n", err)
			return 2
		}
	} else {
		writeTranscript(stdout, src, colorFor(stdout))
	}
	if *htmlOut != "" {
		f, err := os.Create(*htmlOut)
		if err == nil {
			err = writeHTML(f, src)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "aguitest show: %v\n", err)
			return 2
		}
		fmt.Fprintf(stderr, "aguitest show: wrote %s\n", *htmlOut)
	}
	return 0
}

// A lane is one message, reasoning message or tool call of a run: a row of
// the timeline, a line of the transcript. A message the run streams in
// several spans under one id (reopened after its END) is one lane, as it
// is one message to the client.
type lane struct {
	kind  string // "message", "reasoning" or "call"
	id    string
	name  string   // the tool's name, or the message's role
	start int      // position in runView.events of the first START
	end   int      // position of the last END; -1 while open
	spans [][2]int // START..END positions of each span; -1 while open
	ticks []int    // positions of the fragments
	text  strings.Builder
	// result is the position of the call's TOOL_CALL_RESULT, or -1.
	result   int
	content  string
	parallel []string // the calls streamed at the same time, itself included
}

// lanes returns the run's messages and calls in the order they started.
func (r *runView) lanes() []*lane {
	var out []*lane
	all := map[string]*lane{} // every lane of the run, by kind and id
	open := map[string]bool{} // the lanes with a span open
	calls := map[string]*lane{}
	for i, ev := range r.events {
		e := ev.e
		switch e.Type() {
		case agui.TextMessageStart, agui.ReasoningMessageStart, agui.ToolCallStart:
			kind, id, name := "message", e.MessageID(), e.Role()
			switch e.Type() {
			case agui.ReasoningMessageStart:
				kind = "reasoning"
			case agui.ToolCallStart:
				kind, id, name = "call", e.ToolCallID(), e.ToolCallName()
			}
			key := kind + "\x00" + id
			if open[key] {
				continue // a START for what is open: its violation shows it
			}
			l := all[key]
			if l == nil || kind == "call" {
				// A call started again is a call of its own to read.
				l = &lane{kind: kind, id: id, name: name, start: i, end: -1, result: -1}
				if l.name == "" && kind == "message" {
					l.name = "assistant"
				}
				all[key] = l
				if kind == "call" {
					calls[id] = l
				}
				out = append(out, l)
			}
			l.end = -1
			l.spans = append(l.spans, [2]int{i, -1})
			open[key] = true
		case agui.TextMessageContent, agui.ReasoningMessageContent, agui.ToolCallArgs:
			kind, id := "message", e.MessageID()
			switch e.Type() {
			case agui.ReasoningMessageContent:
				kind = "reasoning"
			case agui.ToolCallArgs:
				kind, id = "call", e.ToolCallID()
			}
			if key := kind + "\x00" + id; open[key] {
				l := all[key]
				l.ticks = append(l.ticks, i)
				l.text.WriteString(e.Delta())
			}
		case agui.TextMessageEnd, agui.ReasoningMessageEnd, agui.ToolCallEnd:
			kind, id := "message", e.MessageID()
			switch e.Type() {
			case agui.ReasoningMessageEnd:
				kind = "reasoning"
			case agui.ToolCallEnd:
				kind, id = "call", e.ToolCallID()
			}
			if key := kind + "\x00" + id; open[key] {
				l := all[key]
				l.end = i
				l.spans[len(l.spans)-1][1] = i
				delete(open, key)
			}
		case agui.ToolCallResult:
			if l, ok := calls[e.ToolCallID()]; ok && l.result < 0 {
				l.result = i
				l.content = stringField(e, "content")
			}
		}
	}
	markParallel(out, len(r.events))
	return out
}

// markParallel groups the calls whose START..END spans overlap.
func markParallel(lanes []*lane, n int) {
	var group []*lane
	reach := -1
	flush := func() {
		if len(group) > 1 {
			var ids []string
			for _, l := range group {
				ids = append(ids, l.id)
			}
			for _, l := range group {
				l.parallel = ids
			}
		}
		group = nil
	}
	for _, l := range lanes {
		if l.kind != "call" {
			continue
		}
		end := l.end
		if end < 0 {
			end = n
		}
		if len(group) > 0 && l.start > reach {
			flush()
		}
		if len(group) == 0 {
			reach = end
		} else {
			reach = max(reach, end)
		}
		group = append(group, l)
	}
	flush()
}

func stringField(e agui.Event, name string) string {
	raw, ok := e.Field(name)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return compactJSON(raw)
}

// A line of the transcript, at the position of the event it starts with.
type tline struct {
	pos  int // position in runView.events; len(events) for the end
	text string
	bad  bool
}

func writeTranscript(w io.Writer, src *source, pal palette) {
	nev, nvio := 0, 0
	for _, r := range src.runs {
		nev += len(r.raw)
		nvio += len(r.violations)
	}
	summary := fmt.Sprintf("%s: %s, %s in %s, %s", term(src.name), src.format, plural(nev, "event"), plural(len(src.runs), "run"), plural(nvio, "violation"))
	if nvio > 0 {
		summary = pal.red(summary)
	}
	fmt.Fprintln(w, summary)
	for _, pr := range src.problems {
		fmt.Fprintln(w, pal.red("! "+term(pr)))
	}
	for _, r := range src.runs {
		writeRun(w, src, r, pal)
	}
}

func writeRun(w io.Writer, src *source, r *runView, pal palette) {
	head := "run " + orNone(r.id)
	if r.thread != "" {
		head += " (thread " + r.thread + ")"
	}
	if r.outcome != "" {
		head += ", " + r.outcome
	}
	where := src.name
	if r.line > 0 { // a protobuf stream has no lines
		where = fmt.Sprintf("%s:%d", src.name, r.line)
	}
	fmt.Fprintf(w, "\n%s  %s\n", pal.bold(term(head)), pal.dim(term(where)))
	for _, l := range r.lines(src.name) {
		prefix, text := l.text[:l.pos], term(l.text[l.pos:])
		if l.bad {
			text = pal.red(text)
		}
		fmt.Fprintf(w, "  %s%s\n", pal.dim(prefix), text)
	}
}

// lines returns the transcript of a run with each line's prefix (event
// index, offset); pos is where the prefix ends.
func (r *runView) lines(file string) []tline {
	var out []tline
	for _, l := range r.transcript(file) {
		prefix := "      "
		if l.pos < len(r.events) {
			ev := r.events[l.pos]
			prefix = fmt.Sprintf("#%-4d ", ev.index+1)
			if r.timed {
				prefix += fmt.Sprintf("%9s ", "+"+fmtOffset(ev.at))
			}
		} else if r.timed {
			prefix += strings.Repeat(" ", 10)
		}
		out = append(out, tline{pos: len(prefix), text: prefix + l.text, bad: l.bad})
	}
	return out
}

// transcript returns the lines of a run in order.
func (r *runView) transcript(file string) []tline {
	var out []tline
	lanes := r.lanes()
	byStart := map[int]*lane{}
	for _, l := range lanes {
		byStart[l.start] = l
	}
	calls := map[string]*lane{}
	for _, l := range lanes {
		if l.kind == "call" {
			calls[l.id] = l
		}
	}
	shownGroup := map[string]bool{}
	for i, ev := range r.events {
		e := ev.e
		switch e.Type() {
		case agui.TextMessageStart, agui.ReasoningMessageStart, agui.ToolCallStart:
			l := byStart[i]
			if l == nil {
				continue
			}
			out = append(out, laneLines(i, l, r.client, shownGroup)...)
		case agui.TextMessageContent, agui.TextMessageEnd, agui.ReasoningMessageContent,
			agui.ReasoningMessageEnd, agui.ToolCallArgs, agui.ToolCallEnd:
			// Shown with their lane.
		case agui.ToolCallResult:
			name := ""
			if l, ok := calls[e.ToolCallID()]; ok {
				name = " (" + l.name + ")"
			}
			out = append(out, tline{pos: i, text: fmt.Sprintf("result %s%s: %s", e.ToolCallID(), name, clip(stringField(e, "content"), 200))})
		case agui.StateDelta:
			raw, _ := e.Field("delta")
			var ops []struct {
				Op    string          `json:"op"`
				Path  string          `json:"path"`
				From  string          `json:"from"`
				Value json.RawMessage `json:"value"`
			}
			if json.Unmarshal(raw, &ops) != nil {
				out = append(out, tline{pos: i, text: "state delta: " + clip(compactJSON(raw), 200)})
				continue
			}
			for _, op := range ops {
				s := "state " + op.Op + " " + op.Path
				if op.From != "" {
					s += " from " + op.From
				}
				if len(op.Value) > 0 {
					s += " " + clip(compactJSON(op.Value), 160)
				}
				out = append(out, tline{pos: i, text: s})
			}
		case agui.StateSnapshot:
			raw, _ := e.Field("snapshot")
			out = append(out, tline{pos: i, text: "state snapshot " + clip(compactJSON(raw), 200)})
		case agui.MessagesSnapshot:
			raw, _ := e.Field("messages")
			var msgs []json.RawMessage
			_ = json.Unmarshal(raw, &msgs)
			out = append(out, tline{pos: i, text: "messages snapshot: " + plural(len(msgs), "message")})
		case agui.RunStarted:
			out = append(out, tline{pos: i, text: "RUN_STARTED " + e.RunID()})
		case agui.RunFinished:
			s := "RUN_FINISHED " + e.RunID()
			if raw, ok := e.Field("result"); ok {
				s += " result " + clip(compactJSON(raw), 160)
			}
			out = append(out, tline{pos: i, text: s})
		case agui.RunError:
			s := "RUN_ERROR"
			if c := stringField(e, "code"); c != "" {
				s += " " + c
			}
			out = append(out, tline{pos: i, text: s + ": " + stringField(e, "message"), bad: true})
		case agui.StepStarted:
			out = append(out, tline{pos: i, text: "step " + e.StepName() + " started"})
		case agui.StepFinished:
			out = append(out, tline{pos: i, text: "step " + e.StepName() + " finished"})
		case agui.Custom:
			raw, _ := e.Field("value")
			out = append(out, tline{pos: i, text: "custom " + e.Name() + " " + clip(compactJSON(raw), 160)})
		default:
			out = append(out, tline{pos: i, text: clip(string(e.Raw()), 200)})
		}
	}
	// Violations go after the lines of their event.
	posOf := map[int]int{} // verifier index -> last position holding it
	for i, ev := range r.events {
		posOf[ev.index] = i
	}
	for _, v := range r.violations {
		pos, ok := posOf[v.Index]
		where := file
		switch {
		case !ok:
			pos = len(r.events)
		case r.events[pos].line > 0:
			where = fmt.Sprintf("%s:%d", file, r.events[pos].line)
		}
		var s string
		if v.Type == "" {
			s = fmt.Sprintf("! %s: %s", where, violationText(v))
		} else {
			s = fmt.Sprintf("! %s: %s", where, violationText(v))
		}
		out = append(out, tline{pos: pos, text: s, bad: true})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}

// laneLines are the lines of a lane: its text or arguments as the client
// holds them at the run's end (c), when it holds them.
func laneLines(i int, l *lane, c *heldRun, shownGroup map[string]bool) []tline {
	var out []tline
	mark := ""
	if len(l.parallel) > 1 {
		mark = "┆ "
		key := strings.Join(l.parallel, "\x00")
		if !shownGroup[key] {
			shownGroup[key] = true
			out = append(out, tline{pos: i, text: "┆ parallel: " + strings.Join(l.parallel, ", ")})
		}
	}
	notes := []string{plural(len(l.ticks), "fragment")}
	if len(l.spans) > 1 {
		notes = append(notes, fmt.Sprintf("%d spans under one id", len(l.spans)))
	}
	if l.end < 0 {
		notes = append(notes, "never ended")
	}
	switch l.kind {
	case "call":
		args := l.text.String()
		if a, ok := c.arguments(l.id); ok {
			args = a
		}
		shown := compactJSON([]byte(args))
		if !json.Valid([]byte(args)) {
			shown = strconv.Quote(args) + " (not JSON)"
		}
		if m, ok := c.owner[l.id]; c != nil && ok {
			notes = append(notes, "in "+m)
		}
		out = append(out, tline{pos: i, text: fmt.Sprintf("%scall %s %s %s  [%s]", mark, l.id, l.name, clip(shown, 300), strings.Join(notes, ", ")), bad: l.end < 0})
	default:
		text := l.text.String()
		if t, ok := c.content(l.id); ok {
			text = t
		}
		if calls := c.calls(l.id); len(calls) > 0 {
			notes = append(notes, "calls "+strings.Join(calls, ", "))
		}
		head := l.name + " " + l.id
		if l.kind == "reasoning" {
			head = "reasoning " + l.id
		}
		out = append(out, tline{pos: i, text: fmt.Sprintf("%s: %s  [%s]", head, clip(strconv.Quote(text), 300), strings.Join(notes, ", ")), bad: l.end < 0})
	}
	return out
}

// clip shortens s to about n bytes, at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func orNone(s string) string {
	if s == "" {
		return "(no id)"
	}
	return s
}

// fmtOffset prints an offset in milliseconds with one decimal.
func fmtOffset(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
}
