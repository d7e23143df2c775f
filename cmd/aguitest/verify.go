package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"sync"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/words"
	"github.com/aguitest/aguitest/recorder"
)

const verifyUsage = `usage: aguitest verify [--profile strict|reference] [--client VERSION] [--allow RULE,...] [--enable RULE,...] [--json] FILE|DIR|PATTERN...

Checks AG-UI streams as the reference client reads them. A FILE is a
server-sent event stream (a response body), a stream of protobuf frames
(application/vnd.ag-ui.event+proto), a JSON array of events, JSON Lines of
events, or a recording made by aguitest record or the recorder package
(detected); "-" reads standard input. A DIR stands for its *.jsonl, *.json,
*.sse and *.pb files, sorted, and a quoted PATTERN ('recordings/*.jsonl')
for the files it matches. Every violation is printed with the file,
line, event number (from 1; --json gives "index", from 0), rule, ids and
message; each run of a recording is verified on its own, with its
request's history, HTTP status and Content-Type, and lines of a recording
that cannot be read (corrupt, cut short) are reported too. A stream with
no events never conforms.

Profiles:
  strict     (default) the reference rules plus: the stream must end its run,
             tool results follow the call's end, streamed arguments parse as
             JSON, no id is reopened within a run
  reference  what HttpAgent of @ag-ui/client accepts (1.0.0 unless --client
             names another version): its SSE framing, schema checks,
             chunk expansion and ordering rules

Flags (before or after the files):
  --profile P        strict (default) or reference
  --client VERSION   the @ag-ui/client version to check against: 1.0.0 or
                     0.0.59 (pinned by CopilotKit 1.74/1.75). By default
                     strict requires every supported version to accept the
                     stream (a violation only one raises names it) and
                     reference follows 1.0.0
  --allow RULE,...   waive rules, e.g. --allow reopened-id (see the agui
                     package documentation for the list)
  --enable RULE,...  turn on opt-in rules: empty-delta, shared-result-id,
                     reused-result-id
  --json             print one JSON object per file instead: file, events,
                     runs, format, violations (with a 0-based "index"),
                     problems, incomplete, error

Example:
  aguitest verify agui/testdata/streams/parallel.sse
  aguitest verify recordings/
  curl -sN -H 'Accept: text/event-stream' -X POST localhost:8000/agent -d @input.json | aguitest verify -

A run whose recording does not hold its whole response (bytes the
recorder dropped because storage fell behind, its size limit, an encoding
it could not decode, or no end record while the last event does not end
the run) is reported as an incomplete recording: its events are verified
up to the first gap, and how its stream ended (truncated, unclosed
messages) is not blamed on the agent.

Exit status: 0 every stream conforms, 1 violations found (an empty or
unreadable stream included), 2 bad usage or a file that cannot be read,
3 no violation in what was recorded but a recording is incomplete.
`

// fileReport is what verify found in one input, as printed by --json.
type fileReport struct {
	File       string          `json:"file"`
	Events     int             `json:"events"`
	Runs       int             `json:"runs"`
	Format     string          `json:"format,omitempty"`
	Violations []violationJSON `json:"violations"`
	// Problems are unreadable lines of a recording, each "file:line: ...".
	Problems []string `json:"problems,omitempty"`
	// Incomplete lists the runs of a recording that do not hold their
	// whole response.
	Incomplete []incompleteJSON `json:"incomplete,omitempty"`
	Error      string           `json:"error,omitempty"`
}

// incompleteJSON is a run whose recording is incomplete.
type incompleteJSON struct {
	Run string `json:"run"`
	// Line is the run's end record, or 0 when it has none.
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	// GapLine is the first gap record: the events after it (Unverified)
	// are not verified.
	GapLine    int `json:"gapLine,omitempty"`
	Unverified int `json:"unverified,omitempty"`
}

type violationJSON struct {
	Line int `json:"line,omitempty"`
	// Run names the run of a recording the violation belongs to.
	Run string `json:"run,omitempty"`
	agui.Violation
}

func cmdVerify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	profile := fs.String("profile", "strict", "strict or reference")
	client := fs.String("client", "", "the @ag-ui/client version")
	allow := fs.String("allow", "", "rules to waive, comma-separated")
	enable := fs.String("enable", "", "opt-in rules to turn on, comma-separated")
	asJSON := fs.Bool("json", false, "print one JSON report per file")
	if code := parseFlags(fs, args, verifyUsage, stdout, stderr); code >= 0 {
		return code
	}
	p, err := agui.ParseProfile(*profile)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest verify: %v\n", err)
		return 2
	}
	opt := agui.Options{Profile: p}
	if *client != "" {
		if opt.Client, err = agui.ParseClient(*client); err != nil {
			fmt.Fprintf(stderr, "aguitest verify: --client: %v\n", err)
			return 2
		}
	}
	if opt.Allow, err = agui.ParseRules(*allow); err != nil {
		fmt.Fprintf(stderr, "aguitest verify: --allow: %v\n", err)
		return 2
	}
	if opt.Enable, err = agui.ParseRules(*enable); err != nil {
		fmt.Fprintf(stderr, "aguitest verify: --enable: %v\n", err)
		return 2
	}
	for _, r := range opt.Enable {
		if !r.OptIn() {
			fmt.Fprintf(stderr, "aguitest verify: --enable: %s is not an opt-in rule; it applies already\n", r)
			return 2
		}
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "aguitest verify: no input files\n\n%s", verifyUsage)
		return 2
	}
	status := 0
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	names, err := inputFiles(fs.Args(), streamExts)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest verify: %v\n", err)
		return 2
	}
	for _, name := range names {
		rep := verifyFile(name, stdin, stderr, opt)
		switch {
		case rep.Error != "":
			status = 2
		case (len(rep.Violations) > 0 || len(rep.Problems) > 0) && status != 2:
			status = 1
		case len(rep.Incomplete) > 0 && status == 0:
			status = 3
		}
		if *asJSON {
			if rep.Violations == nil {
				rep.Violations = []violationJSON{}
			}
			if err := enc.Encode(rep); err != nil {
				fmt.Fprintf(stderr, "aguitest verify: %v\n", err)
				return 2
			}
			continue
		}
		printReport(stdout, stderr, rep, p)
	}
	return status
}

func printReport(stdout, stderr io.Writer, rep fileReport, p agui.Profile) {
	stdout, stderr = lineWriter{stdout}, lineWriter{stderr}
	for _, pr := range rep.Problems {
		fmt.Fprintln(stdout, pr)
	}
	for _, in := range rep.Incomplete {
		where := rep.File
		if in.Line > 0 {
			where = fmt.Sprintf("%s:%d", rep.File, in.Line)
		}
		s := fmt.Sprintf("%s: run %s: incomplete recording: %s", where, in.Run, in.Reason)
		if in.GapLine > 0 {
			s += fmt.Sprintf("; %s after the gap at line %d not verified", plural(in.Unverified, "event"), in.GapLine)
		}
		fmt.Fprintln(stdout, s+"; how the run ended is not judged")
	}
	for _, v := range rep.Violations {
		where := rep.File
		if v.Line > 0 {
			where = fmt.Sprintf("%s:%d", rep.File, v.Line)
		}
		if v.Run != "" {
			where += ": run " + v.Run
		}
		switch {
		case v.Type == "" && v.Line > 0 && v.Rule != agui.RuleHTTPStatus && v.Rule != agui.RuleContentType:
			// A frame that holds no event.
			fmt.Fprintf(stdout, "%s: %s: %s\n", where, v.Rule, v.Message)
		default:
			fmt.Fprintf(stdout, "%s: %s\n", where, violationText(v.Violation))
		}
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "aguitest verify: %s\n", rep.Error)
		return
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(stdout, "%s: %s, %s in %s\n", rep.File, plural(len(rep.Problems), "unreadable line"), plural(len(rep.Violations), "violation"), plural(rep.Events, "event"))
	} else if len(rep.Violations) == 0 && len(rep.Incomplete) > 0 {
		fmt.Fprintf(stdout, "%s: incomplete: %s in %s conform to the %s profile as far as recorded; %s recorded incompletely\n",
			rep.File, plural(rep.Events, "event"), plural(rep.Runs, "run"), p, plural(len(rep.Incomplete), "run"))
	} else if len(rep.Violations) == 0 {
		fmt.Fprintf(stdout, "%s: ok: %s in %s conform to the %s profile\n", rep.File, plural(rep.Events, "event"), plural(rep.Runs, "run"), p)
	} else {
		fmt.Fprintf(stdout, "%s: %s in %s\n", rep.File, plural(len(rep.Violations), "violation"), plural(rep.Events, "event"))
	}
}

// violationText says what a violation is and where, numbering events from
// 1: "event 2 TOOL_CALL_ARGS [toolCallId=c1]: rule: message".
func violationText(v agui.Violation) string {
	switch {
	case v.Type != "":
		return fmt.Sprintf("event %d %s%s: %s: %s", v.Index+1, v.Type, idsOf(v), v.Rule, v.Message)
	case v.Rule == agui.RuleHTTPStatus || v.Rule == agui.RuleContentType:
		return fmt.Sprintf("response: %s: %s", v.Rule, v.Message)
	}
	return fmt.Sprintf("end of stream after %s: %s: %s", plural(v.Index, "event"), v.Rule, v.Message)
}

// idsOf returns a violation's ids as " [k=v ...]", or "".
func idsOf(v agui.Violation) string {
	if ids := v.IDs(); ids != "" {
		return " [" + ids + "]"
	}
	return ""
}

// verifyFile streams one input through the verifier. A large file on a
// terminal gets a progress bar on stderr.
func verifyFile(name string, stdin io.Reader, stderr io.Writer, opt agui.Options) fileReport {
	rep := fileReport{File: name}
	var in io.Reader
	if name == "-" {
		rep.File = "<stdin>"
		in = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
		defer f.Close()
		in = f
		if fi, err := f.Stat(); err == nil {
			bar := newProgress(stderr, fi.Size())
			in = bar.Reader(f, name)
			defer bar.Done()
		}
	}
	br := bufio.NewReaderSize(in, 64<<10)
	if head, _ := br.Peek(4096); recorder.IsRecording(head) {
		return verifyRecording(rep, br, opt)
	}
	in = br
	// Blocks of the input are parsed on every core; events reach the
	// verifier in stream order, exactly as one Reader would give them.
	r := agui.NewParallelReader(in, rep.File, 0)
	r.Recycle = true // the verifier keeps nothing of an event
	defer r.Close()
	v := agui.NewVerifier(opt)
	var last agui.Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			// Frames skipped after the last event (events of a later
			// protocol version) are the last event's losses.
			for _, vi := range v.PushLosses(last, r.Losses()) {
				rep.Violations = append(rep.Violations, violationJSON{Violation: vi})
			}
			break
		}
		if err != nil {
			var fe *agui.FrameError
			if errors.As(err, &fe) {
				for _, vi := range v.PushFrame(fe) {
					rep.Violations = append(rep.Violations, violationJSON{Line: fe.Line, Violation: vi})
				}
				continue
			}
			rep.Error = err.Error()
			rep.Format = r.Format()
			return rep
		}
		rep.Events++
		if e.Type() == agui.RunStarted {
			rep.Runs++
		}
		for _, vi := range v.Push(e) {
			rep.Violations = append(rep.Violations, violationJSON{Line: r.Line(), Violation: vi})
		}
		if ls := r.Losses(); ls != nil { // protobuf only
			for _, vi := range v.PushLosses(e, ls) {
				rep.Violations = append(rep.Violations, violationJSON{Line: r.Line(), Violation: vi})
			}
		}
		last = e
	}
	for _, vi := range v.Finish() {
		rep.Violations = append(rep.Violations, violationJSON{Violation: vi})
	}
	rep.Format = r.Format()
	return rep
}

// plural returns n and word, with an s unless n is 1.
func plural(n int, word string) string { return words.Count(n, word, word+"s") }

// recordedRun is what verify keeps of a run of a recording in progress.
type recordedRun struct {
	v *agui.Verifier
	// gapLine is the line of the run's first gap record: the events after
	// it are not verified (what is missing may hold anything).
	gapLine, unverified int
	last                agui.EventType
}

// verifyRecording verifies each run of a recording on its own, streaming:
// memory holds a verifier per run in progress. A run whose recording is
// incomplete (recorder.End.Incomplete, no end record, a gap) is reported
// as such: its events are verified up to its first gap, and how its stream
// ended is not judged.
func verifyRecording(rep fileReport, in io.Reader, opt agui.Options) fileReport {
	rep.Format = "recording"
	records, stop := readAhead(recorder.NewReader(in, rep.File))
	defer stop()
	runs := map[string]*recordedRun{}
	var order []string // runs in the order they began; finished ones pruned
	finish := func(run string, end *recorder.End, line int) {
		st, ok := runs[run]
		if !ok {
			return
		}
		delete(runs, run)
		if len(order) > 64+2*len(runs) {
			// Memory holds the runs in progress, not all runs seen.
			order = slices.DeleteFunc(order, func(r string) bool { _, open := runs[r]; return !open })
		}
		var why string
		switch {
		case end != nil:
			why = end.Incomplete()
		case st.last != agui.RunFinished && st.last != agui.RunError:
			why = recorder.NoEndRecord
		}
		if why == "" && st.gapLine > 0 {
			why = "response bytes are missing (a gap record)"
		}
		fin := st.v.Finish()
		if why == "" {
			for _, vi := range fin {
				rep.Violations = append(rep.Violations, violationJSON{Run: run, Violation: vi})
			}
			return
		}
		rep.Incomplete = append(rep.Incomplete, incompleteJSON{Run: run, Line: line, Reason: why, GapLine: st.gapLine, Unverified: st.unverified})
	}
	for it := range eachRecord(records) {
		rec, err := it.rec, it.err
		if err != nil {
			if it.fatal {
				rep.Error = err.Error()
				return rep
			}
			rep.Problems = append(rep.Problems, err.Error())
			continue
		}
		state := func(run string) *recordedRun {
			st, ok := runs[run]
			if !ok {
				st = &recordedRun{v: agui.NewVerifier(opt)}
				runs[run] = st
				order = append(order, run)
				rep.Runs++
			}
			return st
		}
		switch rec.Kind {
		case recorder.KindRequest:
			// A reused run id starts a new run.
			finish(rec.Run, nil, rec.Line)
			st := state(rec.Run)
			var in agui.RunAgentInput
			if rec.Request != nil && len(rec.Request.Input) > 0 && json.Unmarshal(rec.Request.Input, &in) == nil {
				st.v.SetInput(in) // calls of the history are known
			}
		case recorder.KindGap:
			if st := state(rec.Run); st.gapLine == 0 {
				st.gapLine = rec.Line
			}
		case recorder.KindEvent:
			st := state(rec.Run)
			e, err := rec.EventOf()
			if err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s:%d: run %s: recorded data is not an AG-UI event: %v", rep.File, rec.Line, rec.Run, err))
				continue
			}
			rep.Events++
			st.last = e.Type()
			if st.gapLine > 0 {
				st.unverified++
				continue
			}
			for _, vi := range st.v.Push(e) {
				rep.Violations = append(rep.Violations, violationJSON{Line: rec.Line, Run: rec.Run, Violation: vi})
			}
			if rec.Frame != nil { // a protobuf frame its JSON form does not hold whole
				_, losses, _ := agui.UnmarshalProto(rec.Frame)
				for _, vi := range st.v.PushLosses(e, losses) {
					rep.Violations = append(rep.Violations, violationJSON{Line: rec.Line, Run: rec.Run, Violation: vi})
				}
			}
		case recorder.KindEnd:
			st := state(rec.Run)
			if end := rec.End; end != nil && end.Status != 0 && end.ContentType != "" {
				// Recorded over HTTP: the response must be an event stream.
				for _, vi := range st.v.Response(end.Status, end.ContentType) {
					rep.Violations = append(rep.Violations, violationJSON{Line: rec.Line, Run: rec.Run, Violation: vi})
				}
			}
			finish(rec.Run, rec.End, rec.Line)
		}
	}
	// finish prunes order: go through a copy.
	for _, run := range slices.Clone(order) {
		finish(run, nil, 0)
	}
	return rep
}

// recordItem is a record read ahead, or the error reading it gave.
type recordItem struct {
	rec   recorder.Record
	err   error
	fatal bool // the reader can go no further
}

// readAhead reads the recording on a goroutine of its own, so that
// reading and parsing records runs beside their verification, and hands
// them out in order, in batches. The channel ends after the last record or
// a fatal error; stop ends the reading early.
func readAhead(r *recorder.Reader) (*readAheadBatches, func()) {
	const batch = 256
	batches := make(chan []recordItem, 4)
	free := make(chan []recordItem, 6) // batches handed back, to reuse
	done := make(chan struct{})
	go func() {
		defer close(batches)
		b := make([]recordItem, 0, batch)
		send := func() bool {
			select {
			case batches <- b:
				select {
				case b = <-free:
				default:
					b = make([]recordItem, 0, batch)
				}
				return true
			case <-done:
				return false
			}
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				send()
				return
			}
			it := recordItem{rec: rec, err: err, fatal: err != nil && r.Err() != nil}
			b = append(b, it)
			if it.fatal {
				send()
				return
			}
			if len(b) == batch && !send() {
				return
			}
		}
	}()
	var once sync.Once
	return &readAheadBatches{batches, free}, func() {
		once.Do(func() { close(done) })
		for range batches { // let the reader see done and end
		}
	}
}

// readAheadBatches are the batches of readAhead, and where the consumer
// hands them back.
type readAheadBatches struct {
	batches <-chan []recordItem
	free    chan<- []recordItem
}

// eachRecord yields the records of the batches in order, handing each
// batch back when it is done.
func eachRecord(ra *readAheadBatches) iter.Seq[recordItem] {
	return func(yield func(recordItem) bool) {
		for b := range ra.batches {
			for _, it := range b {
				if !yield(it) {
					return
				}
			}
			clear(b)
			select {
			case ra.free <- b[:0]:
			default:
			}
		}
	}
}
