package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
)

// heldRun is what a frontend holds at the end of a run: its messages
// and state as HttpAgent of @ag-ui/client assembles them (agui.View).
type heldRun struct {
	messages json.RawMessage
	state    json.RawMessage
	// view answers what the client holds of a message or call, as the
	// messages' JSON says it (each lookup in time that does not grow
	// with the messages).
	view *agui.View
	// stopped says where and why the client's pipeline stopped in this
	// run (its verifier rejected an event, or its view could not go on);
	// earlier says it stopped in an earlier run of the same response.
	stopped string
	earlier bool
	// warnings are what the client warned about, as it went on: what its
	// view did not apply as given, and (1.0.0) the events it dropped and
	// the fields it stripped.
	warnings []string
}

// An assembler runs the client over the runs of a stream or a recording,
// one event at a time. A recorded run starts from its request's messages
// and state; a run with no request, from what the client held after the
// run before. The runs of a stream are one response: the client goes
// through them in one request, and stops for good where its verifier (the
// Reference profile) or its view stops.
type assembler struct {
	recording bool
	client    agui.Client // the client version whose view and verifier run
	v         *agui.View
	ver       *agui.Verifier
	stopped   bool
	offset    int // events before the run, in a stream's numbering
	// the run in progress
	c      *heldRun
	warned int
	i      int
}

// begin starts a run; input is its recorded request, or nil.
func (a *assembler) begin(input *agui.RunAgentInput) {
	switch {
	case input != nil:
		a.v = agui.NewClientView(a.client, *input)
		a.ver, a.stopped = a.verifier(), false
	case a.v == nil:
		a.v = agui.NewClientView(a.client, agui.RunAgentInput{})
		a.ver = a.verifier()
	case a.recording:
		a.v.AddMessages() // a request of its own
		a.ver, a.stopped = a.verifier(), false
	}
	if a.recording {
		a.offset = 0
	}
	a.c = &heldRun{earlier: a.stopped}
	a.warned = len(a.v.Warnings())
	a.i = 0
}

// warnedRules are what @ag-ui/client 1.0.0 drops or strips with a
// console warning, and goes on: warnings of the client's, not where it
// stops.
var warnedRules = []agui.Rule{agui.RuleUnknownEvent, agui.RuleUnknownField}

// verifier returns the client's verifier, which also reports warnedRules
// under 1.0.0 (0.0.59 rejects an event of a type it does not know, and
// strips unknown fields without a word).
func (a *assembler) verifier() *agui.Verifier {
	o := agui.Options{Profile: agui.Reference, Client: a.client}
	if a.client != agui.ClientV0059 {
		o.Enable = warnedRules
	}
	return agui.NewVerifier(o)
}

// push gives the client the run's next event, as it came.
func (a *assembler) push(e agui.Event) {
	n := a.offset + a.i + 1
	a.i++
	if a.stopped {
		return
	}
	for _, vi := range a.ver.Push(e) {
		if slices.Contains(warnedRules, vi.Rule) {
			a.c.warnings = append(a.c.warnings, vi.Message)
			continue
		}
		a.c.stopped = fmt.Sprintf("event %d (%s): %s: %s", n, e.Type(), vi.Rule, vi.Message)
		a.stopped = true
		return
	}
	err := a.v.Apply(e)
	for _, w := range a.v.Warnings()[a.warned:] {
		a.c.warnings = append(a.c.warnings, w.Message)
	}
	a.warned = len(a.v.Warnings())
	if err != nil {
		a.c.stopped = fmt.Sprintf("event %d (%s): %v", n, e.Type(), err)
		a.stopped = true
	}
}

// end ends the run and returns what the client holds at its end.
func (a *assembler) end() *heldRun {
	a.offset += a.i
	c := a.c
	c.held(a.v)
	a.c = nil
	return c
}

// assemble runs the client over each run of src (see assembler).
func assemble(src *source) {
	a := &assembler{recording: src.format == "recording", client: src.client}
	for _, r := range src.runs {
		a.begin(r.input)
		for _, e := range r.raw {
			a.push(e)
		}
		r.client = a.end()
	}
}

// held fills in what the client holds in v at the end of a run.
func (c *heldRun) held(v *agui.View) {
	c.messages, c.state = v.MessagesJSON(), v.State()
	c.view = v
}

// content returns a message's text as the client holds it, and whether it
// has text.
func (c *heldRun) content(id string) (string, bool) {
	if c == nil || c.view == nil {
		return "", false
	}
	return c.view.MessageContent(id)
}

// arguments returns a call's arguments as the client holds them.
func (c *heldRun) arguments(callID string) (string, bool) {
	if c == nil || c.view == nil {
		return "", false
	}
	return c.view.CallArguments(callID)
}

// calls returns the ids of a message's calls as the client holds them.
func (c *heldRun) calls(id string) []string {
	if c == nil || c.view == nil {
		return nil
	}
	return c.view.MessageCallIDs(id)
}

// owner returns the id of the message that holds a call.
func (c *heldRun) owner(callID string) (string, bool) {
	if c == nil || c.view == nil {
		return "", false
	}
	return c.view.CallOwner(callID)
}

// writeMessages prints, for each run, one JSON line: the run, the messages
// and state the client holds at its end, where it stopped and what it
// warned about.
func writeMessages(w io.Writer, src *source) error {
	for _, r := range src.runs {
		if err := writeMessageLine(w, r.id, r.thread, r.client); err != nil {
			return err
		}
	}
	return nil
}

// writeMessageLine prints one run's line of show --messages:
// {"run","thread","messages","state","stopped","warnings"}, as
// encoding/json writes that object without HTML escaping. The messages
// and state, which the view wrote as JSON.stringify does (compact), go
// out as they are: encoding/json would scan a long run's megabytes again
// only to find nothing to compact.
func writeMessageLine(w io.Writer, run, thread string, c *heldRun) error {
	stopped := c.stopped
	if c.earlier {
		stopped = "the client stopped in an earlier run of this response"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	field := func(name string, v any) error {
		b.WriteString(`"` + name + `":`)
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode's line feed
		return nil
	}
	raw := func(name string, v json.RawMessage) {
		b.WriteString(`"` + name + `":`)
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		b.Write(v)
	}
	b.WriteByte('{')
	if run != "" {
		if err := field("run", run); err != nil {
			return err
		}
		b.WriteByte(',')
	}
	if thread != "" {
		if err := field("thread", thread); err != nil {
			return err
		}
		b.WriteByte(',')
	}
	raw("messages", c.messages)
	b.WriteByte(',')
	raw("state", c.state)
	if stopped != "" {
		b.WriteByte(',')
		if err := field("stopped", stopped); err != nil {
			return err
		}
	}
	if len(c.warnings) > 0 {
		b.WriteByte(',')
		if err := field("warnings", c.warnings); err != nil {
			return err
		}
	}
	b.WriteString("}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// streamMessages prints show --messages of one input as it reads it, as
// writeMessages prints it of the input read whole (readSource, assemble):
// memory holds what the client holds, not the events.
func streamMessages(name string, stdin io.Reader, w io.Writer, client agui.Client) error {
	var in io.Reader
	display := name
	if name == "-" {
		display = "<stdin>"
		in = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	br := bufio.NewReaderSize(in, 64<<10)
	head, _ := br.Peek(4096)
	if recorder.IsRecording(head) {
		return streamRecordingMessages(display, br, w, client)
	}
	// Blocks of the input are parsed on every core.
	r := agui.NewParallelReader(br, display, 0)
	defer r.Close()
	a := &assembler{client: client}
	var x agui.Expander
	// The runs are cut before each RUN_STARTED that follows other
	// events, as splitRuns cuts them; the events before the first that
	// expands to any are the first run's only when none does.
	var lead []agui.Event
	started, hasEvents := false, false
	var id, thread string
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var fe *agui.FrameError
			if errors.As(err, &fe) {
				continue
			}
			return err
		}
		out, xerr := x.Push(e)
		if xerr != nil {
			out = []agui.Event{e}
		}
		if len(out) == 0 {
			if !hasEvents {
				lead = append(lead, e)
			} else {
				a.push(e)
			}
			continue
		}
		if !started {
			started = true
			a.begin(nil)
		}
		// The raw event goes to the run its RUN_STARTED starts (a
		// chunk's END may come before it).
		for k, ex := range out {
			if ex.Type() == agui.RunStarted && (hasEvents || k > 0) {
				if err := writeMessageLine(w, id, thread, a.end()); err != nil {
					return err
				}
				a.begin(nil)
				id, thread = "", ""
			}
		}
		for _, ex := range out {
			if ex.Type() == agui.RunStarted && id == "" {
				id, thread = ex.RunID(), ex.ThreadID()
			}
		}
		hasEvents = true
		lead = nil
		a.push(e)
	}
	if r.Format() == "" {
		return fmt.Errorf("%s: no events: %s", display, received(head))
	}
	if !started {
		a.begin(nil)
		for _, e := range lead {
			a.push(e)
		}
	}
	return writeMessageLine(w, id, thread, a.end())
}

// streamRecordingMessages is streamMessages of a recording: each run is
// printed when it ends.
func streamRecordingMessages(name string, in io.Reader, w io.Writer, client agui.Client) error {
	rd := recorder.NewReader(in, name)
	a := &assembler{recording: true, client: client}
	runs, problems := 0, 0
	for run, err := range replay.Runs(rd) {
		if err != nil {
			if rd.Err() != nil {
				return err
			}
			problems++
			continue
		}
		var input *agui.RunAgentInput
		if run.Request != nil && len(run.Request.Input) > 0 {
			var in agui.RunAgentInput
			if json.Unmarshal(run.Request.Input, &in) == nil {
				input = &in
			}
		}
		a.begin(input)
		var x agui.Expander
		var thread string
		found := false // the first RUN_STARTED names the thread
		for _, re := range run.Events {
			if len(re.Event.Raw()) == 0 {
				problems++
				continue
			}
			a.push(re.Event)
			if !found {
				out, err := x.Push(re.Event)
				if err != nil {
					out = []agui.Event{re.Event}
				}
				for _, ex := range out {
					if ex.Type() == agui.RunStarted && !found {
						found, thread = true, ex.ThreadID()
					}
				}
			}
		}
		runs++
		if err := writeMessageLine(w, run.ID, thread, a.end()); err != nil {
			return err
		}
	}
	if runs == 0 && problems == 0 {
		return fmt.Errorf("%s: the recording holds no runs", name)
	}
	return nil
}
