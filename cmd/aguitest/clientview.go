package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aguitest/aguitest/agui"
)

// heldRun is what a frontend holds at the end of a run: its messages
// and state as HttpAgent of @ag-ui/client assembles them (agui.View).
type heldRun struct {
	messages json.RawMessage
	state    json.RawMessage
	// byID holds the messages by id (the first of an id), decoded.
	byID map[string]map[string]any
	// owner maps each call id to the message that holds it.
	owner map[string]string
	// stopped says where and why the client's pipeline stopped in this
	// run (its verifier rejected an event, or its view could not go on);
	// earlier says it stopped in an earlier run of the same response.
	stopped string
	earlier bool
	// warnings are what the client warned about, as it went on.
	warnings []string
}

// assemble runs the client over each run of src. A recorded run starts
// from its request's messages and state; a run with no request, from what
// the client held after the run before. The runs of a stream are one
// response: the client goes through them in one request, and stops for
// good where its verifier (the Reference profile) or its view stops.
func assemble(src *source) {
	var v *agui.View
	var ver *agui.Verifier
	stopped := false
	offset := 0 // events before the run, in a stream's numbering
	for _, r := range src.runs {
		switch {
		case r.input != nil:
			v = agui.NewView(*r.input)
			ver, stopped = agui.NewVerifier(agui.Options{Profile: agui.Reference, Client: src.client}), false
		case v == nil:
			v = agui.NewView(agui.RunAgentInput{})
			ver = agui.NewVerifier(agui.Options{Profile: agui.Reference, Client: src.client})
		case src.format == "recording":
			v.AddMessages() // a request of its own
			ver, stopped = agui.NewVerifier(agui.Options{Profile: agui.Reference, Client: src.client}), false
		}
		if src.format == "recording" {
			offset = 0
		}
		c := &heldRun{earlier: stopped}
		warned := len(v.Warnings())
		for i, e := range r.raw {
			if stopped {
				break
			}
			n := offset + i + 1
			if vs := ver.Push(e); len(vs) > 0 {
				c.stopped = fmt.Sprintf("event %d (%s): %s: %s", n, e.Type(), vs[0].Rule, vs[0].Message)
				stopped = true
				break
			}
			if err := v.Apply(e); err != nil {
				c.stopped = fmt.Sprintf("event %d (%s): %v", n, e.Type(), err)
				stopped = true
				break
			}
		}
		offset += len(r.raw)
		c.held(v)
		for _, w := range v.Warnings()[warned:] {
			c.warnings = append(c.warnings, w.Message)
		}
		r.client = c
	}
}

// held fills in what the client holds in v: messages, state, and the
// messages and calls by id.
func (c *heldRun) held(v *agui.View) {
	c.messages, c.state = v.MessagesJSON(), v.State()
	c.byID, c.owner = map[string]map[string]any{}, map[string]string{}
	var list []map[string]any
	_ = json.Unmarshal(c.messages, &list)
	for _, m := range list {
		id, _ := m["id"].(string)
		if _, dup := c.byID[id]; !dup {
			c.byID[id] = m
		}
		calls, _ := m["toolCalls"].([]any)
		for _, x := range calls {
			if call, ok := x.(map[string]any); ok {
				if cid, ok := call["id"].(string); ok {
					if _, dup := c.owner[cid]; !dup {
						c.owner[cid] = id
					}
				}
			}
		}
	}
}

// content returns a message's text as the client holds it, and whether it
// has text.
func (c *heldRun) content(id string) (string, bool) {
	if c == nil {
		return "", false
	}
	s, ok := c.byID[id]["content"].(string)
	return s, ok
}

// arguments returns a call's arguments as the client holds them.
func (c *heldRun) arguments(callID string) (string, bool) {
	if c == nil {
		return "", false
	}
	calls, _ := c.byID[c.owner[callID]]["toolCalls"].([]any)
	for _, x := range calls {
		call, _ := x.(map[string]any)
		if call["id"] == callID {
			fn, _ := call["function"].(map[string]any)
			s, ok := fn["arguments"].(string)
			return s, ok
		}
	}
	return "", false
}

// calls returns the ids of a message's calls as the client holds them.
func (c *heldRun) calls(id string) []string {
	if c == nil {
		return nil
	}
	var ids []string
	list, _ := c.byID[id]["toolCalls"].([]any)
	for _, x := range list {
		if call, ok := x.(map[string]any); ok {
			if cid, ok := call["id"].(string); ok {
				ids = append(ids, cid)
			}
		}
	}
	return ids
}

// writeMessages prints, for each run, one JSON line: the run, the messages
// and state the client holds at its end, where it stopped and what it
// warned about.
func writeMessages(w io.Writer, src *source) error {
	for _, r := range src.runs {
		c := r.client
		line := struct {
			Run      string          `json:"run,omitempty"`
			Thread   string          `json:"thread,omitempty"`
			Messages json.RawMessage `json:"messages"`
			State    json.RawMessage `json:"state"`
			Stopped  string          `json:"stopped,omitempty"`
			Warnings []string        `json:"warnings,omitempty"`
		}{Run: r.id, Thread: r.thread, Messages: c.messages, State: c.state, Stopped: c.stopped, Warnings: c.warnings}
		if c.earlier {
			line.Stopped = "the client stopped in an earlier run of this response"
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(line); err != nil {
			return err
		}
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
