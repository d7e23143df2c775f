package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aguitest/aguitest/agui"
)

const showUsage = `usage: aguitest show [--profile strict|reference] [--client VERSION] [--html OUT] [--messages] FILE|DIR|PATTERN...

Prints a readable transcript of a recording or an AG-UI stream (a JSON
array, JSON Lines, server-sent events or protobuf frames; "-" reads
standard input), one file after another: a DIR stands for its *.jsonl,
*.json, *.sse and *.pb files sorted by name (the recorder's middleware
writes one file per run, named by its start: they come in the order they
ran), and a quoted PATTERN ('recordings/20261201T*.jsonl') for the files
it matches. It shows each run, each message as the client holds it (text
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
                 "warnings" (what it warns about, among them the events
                 @ag-ui/client 1.0.0 drops and the fields it strips) when
                 there are any. A
                 recorded run starts from its request's messages and state;
                 the runs of a stream are one response. On a run the
                 client rejects, what HttpAgent ends with depends on
                 timing: given the response all at once, none of the run's
                 messages (the rejection overtakes the events it has yet
                 to apply); given it frame by frame, what it applied before
                 the rejected event. --messages prints the latter, with
                 "stopped" naming that event.
  --profile P    strict (default) or reference
  --client VERSION
                 the @ag-ui/client version: 1.0.0 or 0.0.59 (pinned by
                 CopilotKit 1.74/1.75). The verifier checks against it (by
                 default strict checks every supported version, reference
                 1.0.0), and --messages prints what that client ends with
                 (default 1.0.0)

Example:
  aguitest show agui/testdata/streams/parallel.sse
  aguitest show --html run.html recording.jsonl
  aguitest show --messages recording.jsonl | jq .messages

It reads as it prints, with memory flat in the input's size: each run is
printed when it ends (a run of many lines, as they come), what a message
or call holds is kept up to 64 KiB (longer arguments are shown as their
start and their size), and the totals come last. A run's lanes show what
the client holds after it, starting from the run's request in a
recording, and from nothing in a stream (--messages follows the client
through all the runs of a stream). --messages holds what the
client holds, not the events; --html writes a page of at most 50 runs and 20,000 marks,
saying what it leaves out.

Exit status: 0 shown (even with violations), 2 bad usage or unreadable
input.
`

func cmdShow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	profile := fs.String("profile", "strict", "strict or reference")
	client := fs.String("client", "", "the @ag-ui/client version")
	htmlOut := fs.String("html", "", "write an HTML timeline to this file")
	messages := fs.Bool("messages", false, "print the messages and state the client holds after each run, as JSON")
	if code := parseFlags(fs, args, showUsage, stdout, stderr); code >= 0 {
		return code
	}
	prof, err := agui.ParseProfile(*profile)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest show: %v\n", err)
		return 2
	}
	p := agui.Options{Profile: prof}
	if *client != "" {
		if p.Client, err = agui.ParseClient(*client); err != nil {
			fmt.Fprintf(stderr, "aguitest show: --client: %v\n", err)
			return 2
		}
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "aguitest show: want a FILE, DIR or PATTERN\n\n%s", showUsage)
		return 2
	}
	names, err := inputFiles(fs.Args(), streamExts)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest show: %v\n", err)
		return 2
	}
	if *messages && *htmlOut != "" && slices.Contains(names, "-") {
		fmt.Fprintf(stderr, "aguitest show: --messages with --html reads FILE twice: give a file, not standard input\n")
		return 2
	}
	var page *htmlBudget
	var f *os.File
	if *htmlOut != "" {
		if f, err = os.Create(*htmlOut); err != nil {
			fmt.Fprintf(stderr, "aguitest show: %v\n", err)
			return 2
		}
		defer f.Close()
		page = newHTMLBudget(*htmlOut)
	}
	for i, name := range names {
		if *messages {
			// It reads as it prints: memory holds what the client holds.
			if err := streamMessages(name, stdin, stdout, p.Client); err != nil {
				fmt.Fprintf(stderr, "aguitest show: %v\n", err)
				return 2
			}
		}
		if !*messages || page != nil {
			var sink runSink = pageOnly{page}
			if !*messages {
				if i > 0 {
					fmt.Fprintln(stdout)
				}
				sink = &transcript{w: stdout, pal: colorFor(stdout), page: page}
			}
			if err := showInput(name, stdin, p, sink, page); err != nil {
				fmt.Fprintf(stderr, "aguitest show: %v\n", err)
				return 2
			}
		}
	}
	if page != nil {
		err := page.write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "aguitest show: %v\n", err)
			return 2
		}
		fmt.Fprintf(stderr, "aguitest show: wrote %s%s\n", *htmlOut, page.leftOut())
	}
	return 0
}

// transcript prints the runs as show reads them, and hands them to the
// page when there is one.
type transcript struct {
	w    io.Writer
	pal  palette
	page *htmlBudget
	name string
	buf  bytes.Buffer
}

func (t *transcript) begin(name, format string) {
	t.name = name
	fmt.Fprintln(t.w, term(name)+": "+format)
	if t.page != nil {
		t.page.begin(name, format)
	}
}

func (t *transcript) problem(s string) {
	fmt.Fprintln(t.w, t.pal.red("! "+term(s)))
	if t.page != nil {
		t.page.problem(s)
	}
}

func (t *transcript) flush(b *runBuilder, final bool) {
	lines := b.render(t.name)
	if t.page != nil {
		t.page.keepLines(b, lines)
	}
	if !b.continued {
		where := t.name
		if b.line > 0 { // a protobuf stream has no lines
			where = fmt.Sprintf("%s:%d", t.name, b.line)
		}
		fmt.Fprintf(t.w, "\n%s  %s\n", t.pal.bold(term(b.head(final))), t.pal.dim(term(where)))
	} else if len(lines) > 0 {
		fmt.Fprintf(t.w, "  %s\n", t.pal.dim(term("(run "+orNone(b.id)+", continued)")))
	}
	// The lines go out in one write: a long run flushes thousands.
	t.buf.Reset()
	for _, l := range lines {
		text := term(l.text)
		if l.bad {
			text = t.pal.red(text)
		}
		t.buf.WriteString("  ")
		t.buf.WriteString(t.pal.dim(l.prefix))
		t.buf.WriteString(text)
		t.buf.WriteByte('\n')
	}
	if t.buf.Len() > 0 {
		t.w.Write(t.buf.Bytes())
	}
}

func (t *transcript) end(events, runs, violations int) {
	summary := fmt.Sprintf("%s: %s in %s, %s", term(t.name), plural(events, "event"), plural(runs, "run"), plural(violations, "violation"))
	if violations > 0 {
		summary = t.pal.red(summary)
	}
	fmt.Fprintln(t.w)
	fmt.Fprintln(t.w, summary)
	if t.page != nil {
		t.page.end(events, runs, violations)
	}
}

// head is a run's heading: its id, thread and recorded outcome.
func (b *runBuilder) head(final bool) string {
	head := "run " + orNone(b.id)
	if b.thread != "" {
		head += " (thread " + b.thread + ")"
	}
	switch {
	case !final:
	case b.incomplete != "":
		head += ", incomplete recording"
	case b.outcome != "":
		head += ", " + b.outcome
	}
	return head
}

// A printed line: its prefix (event number, offset) and its text.
type printed struct {
	prefix, text string
	bad          bool
}

// render returns the run's waiting lines, lanes with what the client
// holds now, and empties them.
func (b *runBuilder) render(file string) []printed {
	held := heldRun{view: b.view}
	// The lanes before b.printed are printed: a long run is not
	// scanned again at each flush.
	for b.printed < len(b.lanes) && b.lanes[b.printed].printed {
		b.printed++
	}
	var pending []*lane
	for _, l := range b.lanes[b.printed:] {
		if !l.printed {
			pending = append(pending, l)
		}
	}
	markParallel(pending, b.seq)
	if b.shownGroup == nil {
		b.shownGroup = map[string]bool{}
	}
	var out []printed
	for _, l := range b.lines {
		prefix := "      "
		if !l.end {
			prefix = eventNumber(l.ref.index + 1)
			if b.timed {
				prefix += fmt.Sprintf("%9s ", "+"+fmtOffset(l.ref.at))
			}
		} else if b.timed {
			prefix += strings.Repeat(" ", 10)
		}
		if l.lane == nil {
			out = append(out, printed{prefix, l.text, l.bad})
			continue
		}
		for _, ll := range laneLines(l.lane, &held, b.shownGroup) {
			out = append(out, printed{prefix, ll.text, ll.bad})
		}
		l.lane.printed = true
	}
	b.lines = b.lines[:0]
	return out
}

// eventNumber is a transcript line's prefix: "#N", padded to five
// characters, and a space (fmt's "#%-4d ").
func eventNumber(n int) string {
	var b [24]byte
	out := append(b[:0], '#')
	out = strconv.AppendInt(out, int64(n), 10)
	for len(out) < 5 {
		out = append(out, ' ')
	}
	return string(append(out, ' '))
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
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && plainString(raw[1:n-1]) {
		return string(raw[1 : n-1])
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return compactJSON(raw)
}

// plainString reports whether b is the inside of a JSON string that
// decodes to itself: valid UTF-8 with no escape, quote or control
// character.
func plainString(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// laneLines are the lines of a lane: its text or arguments as the client
// holds them (c), when it holds them.
func laneLines(l *lane, c *heldRun, shownGroup map[string]bool) []tline {
	var out []tline
	mark := ""
	if len(l.parallel) > 1 {
		mark = "┆ "
		key := strings.Join(l.parallel, "\x00")
		if !shownGroup[key] {
			shownGroup[key] = true
			out = append(out, tline{text: "┆ parallel: " + strings.Join(l.parallel, ", ")})
		}
	}
	notes := []string{plural(l.ticks, "fragment")}
	if len(l.spans) > 1 {
		notes = append(notes, fmt.Sprintf("%d spans under one id", len(l.spans)))
	}
	if l.end < 0 {
		notes = append(notes, "never ended")
	}
	switch l.kind {
	case "call":
		args := l.text.String()
		if a, ok := c.arguments(l.id); ok && l.whole() {
			args = a
		}
		var shown string
		switch {
		case !l.whole():
			shown = strconv.Quote(clip(args, 200)) + fmt.Sprintf(" (%d bytes of arguments)", l.size)
		case json.Valid([]byte(args)):
			shown = compactJSON([]byte(args))
		default:
			shown = strconv.Quote(args) + " (not JSON)"
		}
		if m, ok := c.owner(l.id); ok {
			notes = append(notes, "in "+m)
		}
		out = append(out, tline{text: mark + "call " + l.id + " " + l.name + " " + clip(shown, 300) + "  [" + strings.Join(notes, ", ") + "]", bad: l.end < 0})
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
		out = append(out, tline{text: head + ": " + clip(strconv.Quote(clip(text, 1024)), 300) + "  [" + strings.Join(notes, ", ") + "]", bad: l.end < 0})
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
