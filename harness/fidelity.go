package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/words"
	"github.com/aguitest/aguitest/scripted"
)

// Fidelity names one of the checks that what the scripted model said
// reaches the client, as the client assembles it (Result.Messages). Every
// case makes them all; Case.Relax and Options.Relax waive them by name,
// for an agent that legitimately rewrites the model's text or keeps some
// calls from the client.
type Fidelity string

// The fidelity checks. They look at the turns the model streamed whole
// (a turn with a Fault is left out), and are skipped when a run ended
// early (a RUN_ERROR, a failed request), whose cause is reported instead.
const (
	// FidelityText: each turn's text reaches the client verbatim and in
	// order, in the text of its assistant messages (the agent may add
	// text of its own around it).
	FidelityText Fidelity = "text"
	// FidelityCalls: each call the model made reaches the client, with
	// its name and its arguments (as JSON values, so that an agent may
	// re-encode them; no arguments reads as {}), unless the agent ran it
	// itself: a tool message the client holds answers the call's id, or
	// a later request to the model carries the call and its result.
	FidelityCalls Fidelity = "calls"
	// FidelityIDs: each message the client holds has an id of its own
	// (results of parallel calls under one message id are shown as one
	// by a frontend that keys messages by id).
	FidelityIDs Fidelity = "ids"
	// FidelityHistory: a call the model made that comes back to it in a
	// later request, under the call's id, carries the arguments the model
	// sent (as JSON values): an agent that tells the model otherwise ran
	// the tool, or says it did, with other arguments than the client was
	// shown. A call the client holds with other arguments is
	// FidelityCalls' to report.
	FidelityHistory Fidelity = "history"
)

// Fidelities lists the fidelity checks, in the order they are made.
var Fidelities = []Fidelity{FidelityText, FidelityCalls, FidelityIDs, FidelityHistory}

// checkFidelity reports where the client's view of res misses what the
// scripted model said in script.
func checkFidelity(rep *report, script *scripted.Script, res *Result, relax []Fidelity) {
	on := func(f Fidelity) bool { return !slices.Contains(relax, f) }
	streamed := streamedTurns(script, res.Requests)
	if on(FidelityText) {
		checkText(rep, script, streamed, res.Messages)
	}
	if on(FidelityCalls) {
		checkCalls(rep, script, streamed, res)
	}
	if on(FidelityIDs) {
		checkIDs(rep, res.Messages)
	}
	if on(FidelityHistory) {
		checkHistory(rep, script, streamed, res)
	}
}

// checkHistory reports each call the model made whose arguments come back
// otherwise in a later request to the model. A call is found there by the
// id the model gave it, or by the id of the call the client holds for it
// (an agent may mint ids of its own).
func checkHistory(rep *report, s *scripted.Script, streamed map[int]int, res *Result) {
	type made struct {
		turn, req int
		name      string
		args      string
	}
	ids := map[string]made{}
	var held []*viewCall
	shown := map[string]string{} // call id -> the arguments the client holds
	for _, m := range res.Messages {
		for _, tc := range m.ToolCalls {
			held = append(held, &viewCall{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments})
			shown[tc.ID] = tc.Function.Arguments
		}
	}
	for ti := range s.Turns {
		req, ok := streamed[ti]
		if !ok {
			continue
		}
		for n, c := range s.Turns[ti].Calls {
			m := made{turn: ti + 1, req: req, name: c.Name, args: callArgs(c)}
			if id := s.CallID(res.Requests[req].Wire, ti, n); id != "" {
				ids[id] = m
			}
			if h := findCall(held, c.Name, m.args); h != nil {
				h.used = true
				if _, ok := ids[h.id]; !ok && h.id != "" {
					ids[h.id] = m
				}
			}
		}
	}
	reported := map[string]bool{}
	for k, r := range res.Requests {
		for _, msg := range r.Messages {
			for _, h := range msg.Calls {
				m, ok := ids[h.ID]
				if !ok || k <= m.req || reported[h.ID] || sameArgs(h.Args, m.args) {
					continue
				}
				if args, ok := shown[h.ID]; ok && !sameArgs(args, m.args) {
					continue // the client was shown other arguments: FidelityCalls says so
				}
				reported[h.ID] = true
				got := h.Args
				if strings.TrimSpace(got) == "" {
					got = "no arguments"
				}
				rep.fidelity(FidelityHistory, "fidelity: in turn %d the model called %s with %s; request %d to the model carries the call (id %s) with %s: the agent ran the tool, or tells the model it did, with other arguments than the model sent",
					m.turn, m.name, m.args, k+1, h.ID, got)
			}
		}
	}
}

// streamedTurns returns, for each turn the model streamed (no fault), the
// index of the request it answered.
func streamedTurns(s *scripted.Script, reqs []scripted.Request) map[int]int {
	out := map[int]int{}
	for i, r := range reqs {
		if r.Turn > 0 && r.Error == "" && s.Turns[r.Turn-1].Fault == nil {
			out[r.Turn-1] = i
		}
	}
	return out
}

// checkText reports each turn's text that the client's assistant messages
// do not hold, verbatim, after the text of the turns before it.
func checkText(rep *report, s *scripted.Script, streamed map[int]int, msgs []agui.Message) {
	var texts []string
	for _, m := range msgs {
		if m.Role == agui.RoleAssistant && m.Content.Text != "" {
			texts = append(texts, m.Content.Text)
		}
	}
	msg, off := 0, 0
	for ti := range s.Turns {
		if _, ok := streamed[ti]; !ok {
			continue
		}
		want := turnText(&s.Turns[ti])
		if want == "" {
			continue
		}
		found := false
		for j := msg; j < len(texts); j++ {
			from := 0
			if j == msg {
				from = off
			}
			if k := strings.Index(texts[j][from:], want); k >= 0 {
				msg, off, found = j, from+k+len(want), true
				break
			}
		}
		if found {
			continue
		}
		got := "none"
		if len(texts) > 0 {
			q := make([]string, len(texts))
			for i, t := range texts {
				q[i] = strconv.Quote(t)
			}
			got = strings.Join(q, ", ")
		}
		rep.fidelity(FidelityText, "fidelity: the model said %q (turn %d); the client's assistant messages do not hold it after the text before it: they read %s", want, ti+1, got)
	}
}

// turnText is the visible text of a turn.
func turnText(t *scripted.Turn) string {
	if len(t.Fragments) > 0 {
		return strings.Join(t.Fragments, "")
	}
	return t.Text
}

// viewCall is a call the client holds.
type viewCall struct {
	id, name, args string
	used           bool
}

// checkCalls reports each call of the model that reached the client
// neither as it was made nor as a call the agent ran itself.
func checkCalls(rep *report, s *scripted.Script, streamed map[int]int, res *Result) {
	var held []*viewCall
	answered := map[string]bool{}
	for _, m := range res.Messages {
		for _, tc := range m.ToolCalls {
			held = append(held, &viewCall{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments})
		}
		if m.Role == agui.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	type missing struct{ ti, n int }
	var lost []missing
	for ti := range s.Turns {
		req, ok := streamed[ti]
		if !ok {
			continue
		}
		calls := turnCalls(s, ti, &res.Requests[req])
		for n, c := range calls {
			if match := findCall(held, c.Name, callArgs(c)); match != nil {
				match.used = true
				continue
			}
			id := c.ID
			if n < len(s.Turns[ti].Calls) {
				id = s.CallID(res.Requests[req].Wire, ti, n)
			}
			if answered[id] || ranByAgent(res.Requests[req+1:], c.Name, callArgs(c)) {
				continue
			}
			lost = append(lost, missing{ti, n})
		}
	}
	for i := 0; i < len(lost); {
		ti := lost[i].ti
		var said []string
		names := map[string]bool{}
		calls := turnCalls(s, ti, &res.Requests[streamed[ti]])
		for ; i < len(lost) && lost[i].ti == ti; i++ {
			c := calls[lost[i].n]
			said = append(said, fmt.Sprintf("%s with %s (call %d)", c.Name, callArgs(c), lost[i].n+1))
			names[c.Name] = true
		}
		it := "it"
		if len(said) > 1 {
			it = "them"
		}
		var others, all []string
		for _, h := range held {
			all = append(all, h.String())
			if !h.used && names[h.name] {
				h.used = true
				others = append(others, h.String())
			}
		}
		if len(others) > 0 {
			rep.fidelity(FidelityCalls, "fidelity: in turn %d the model called %s; the client got %s instead", ti+1, strings.Join(said, " and "), strings.Join(others, " and "))
			continue
		}
		got := "no call"
		if len(all) > 0 {
			got = words.Count(len(all), "call", "calls") + ": " + strings.Join(all, ", ")
		}
		rep.fidelity(FidelityCalls, "fidelity: in turn %d the model called %s; the client never got %s, and no tool message or later model request shows the agent ran %s (the client holds %s)", ti+1, strings.Join(said, " and "), it, it, got)
	}
}

// turnCalls returns the calls turn ti made answering req: its own, then
// those generated for the request (Turn.Generate).
func turnCalls(s *scripted.Script, ti int, req *scripted.Request) []scripted.Call {
	calls := s.Turns[ti].Calls
	if len(req.Generated) > 0 {
		calls = append(slices.Clone(calls), req.Generated...)
	}
	return calls
}

func (c *viewCall) String() string {
	args := c.args
	if strings.TrimSpace(args) == "" {
		args = "no arguments"
	}
	return fmt.Sprintf("%s with %s (id %s)", c.name, args, c.id)
}

// callArgs is the arguments of a scripted call as the model sent them.
func callArgs(c scripted.Call) string {
	if len(c.Fragments) > 0 {
		return strings.Join(c.Fragments, "")
	}
	if c.Args == "" && !c.Raw {
		return "{}"
	}
	return c.Args
}

// findCall returns the first call of held not yet matched with the name
// and arguments, or nil.
func findCall(held []*viewCall, name, args string) *viewCall {
	for _, h := range held {
		if !h.used && h.name == name && sameArgs(h.args, args) {
			return h
		}
	}
	return nil
}

// ranByAgent reports whether one of the requests carries a call with the
// name and arguments and a tool message answering it.
func ranByAgent(reqs []scripted.Request, name, args string) bool {
	for _, r := range reqs {
		answered := map[string]bool{}
		for _, m := range r.Messages {
			if m.Role == "tool" {
				answered[m.ToolCallID] = true
			}
		}
		for _, m := range r.Messages {
			for _, c := range m.Calls {
				if c.Name == name && sameArgs(c.Args, args) && answered[c.ID] {
					return true
				}
			}
		}
	}
	return false
}

// sameArgs reports whether two arguments texts are the same arguments: the
// same JSON value, or the same text when either is not JSON. No arguments
// at all reads as {}, as the reference client hands them to a tool.
func sameArgs(a, b string) bool {
	norm := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return "{}"
		}
		return s
	}
	a, b = norm(a), norm(b)
	if a == b {
		return true
	}
	var va, vb any
	da, db := json.NewDecoder(strings.NewReader(a)), json.NewDecoder(strings.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil || da.More() || db.More() {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// checkIDs reports message ids the client holds more than once.
func checkIDs(rep *report, msgs []agui.Message) {
	byID := map[string][]int{}
	var order []string
	for i, m := range msgs {
		if m.ID == "" {
			continue
		}
		if byID[m.ID] == nil {
			order = append(order, m.ID)
		}
		byID[m.ID] = append(byID[m.ID], i)
	}
	for _, id := range order {
		idx := byID[id]
		if len(idx) < 2 {
			continue
		}
		var what []string
		for _, i := range idx {
			m := msgs[i]
			switch {
			case m.Role == agui.RoleTool:
				what = append(what, "the result of call "+m.ToolCallID)
			default:
				what = append(what, "a message of role "+string(m.Role))
			}
		}
		rep.fidelity(FidelityIDs, "fidelity: the client holds %s under the id %q (%s): a frontend that keys messages by id shows only one of them", words.Count(len(idx), "message", "messages"), id, strings.Join(what, ", "))
	}
}
