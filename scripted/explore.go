package scripted

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/words"
)

// A Variant is a script an exploration runs: the script it was made from,
// each turn streamed under another plan.
type Variant struct {
	// Name says where it comes from: "matrix 3" is the third plan of the
	// systematic matrix (numbered the same for every script, whether or
	// not the script needed the plans before it), "random 7" the seventh
	// random plan drawn from the seed.
	Name string
	// Script is the script under the variant's plans.
	Script Script
}

// String returns the name and the plans, as in
// "matrix 9 (split=whole+with-name order=sequential ids=first seed=1)".
func (v Variant) String() string { return v.Name + " (" + v.Script.Plans() + ")" }

// Explore returns the variants of s an exploration runs on the given
// wires, at most n of them: first the systematic matrix, then random
// plans drawn from seed. Every variant streams differently from s and from
// every other variant (plans that stream a script alike appear once), is
// valid, and is expressible on each wire (see [Script.ValidateWire]; the
// Go-native model, wire "", expresses every plan). The same arguments give
// the same variants on every machine.
//
// A variant keeps the content of s (text, reasoning, calls, expectations)
// and changes only how its turns stream: each turn without a fault gets
// its own plan (keeping the delays of its own), and the explicit fragments
// of its text and calls are joined, since fragmenting is what is explored.
// Turns with a fault keep their plans and fragments: how far a stream gets
// before it fails depends on them.
//
// The matrix covers, for each turn: first the shapes of known
// integration bugs (a call's name and full arguments in one chunk, a call
// with no arguments sent no argument delta, text between call fragments),
// then splits (whole, one byte, one character, one word, cuts inside
// characters and inside escapes, empty deltas, random sizes; calls one
// after another with nothing between them), orders of parallel calls (round-robin,
// reverse, seeded shuffles, schedules that start every call before any
// arguments) with the text before, between and after the calls, and each
// id style. Random plans draw each turn's split, order (schedules
// included), text placement, id style and seed.
func Explore(s Script, wires []Wire, seed uint64, n int) []Variant {
	seen := map[string]bool{s.Key(wires): true}
	var out []Variant
	try := func(name string, v Script) bool {
		if v.Validate() != nil || !expressibleOn(&v, wires) {
			return false
		}
		k := v.Key(wires)
		if seen[k] {
			return false
		}
		seen[k] = true
		out = append(out, Variant{Name: name, Script: v})
		return true
	}
	for i, m := range matrix {
		if len(out) >= n {
			return out
		}
		try("matrix "+strconv.Itoa(i+1), s.under(m))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
	for k, tries := 1, 0; len(out) < n && tries < 20*n+100; tries++ {
		v := s.under(func(t *Turn, ti int) Plan { return randomPlan(rng, t, ti) })
		if try("random "+strconv.Itoa(k), v) {
			k++
		}
	}
	return out
}

// expressibleOn reports whether every wire of ws can carry s when it
// streams.
func expressibleOn(s *Script, ws []Wire) bool {
	for _, w := range ws {
		if w != "" && s.ValidateWire(w, true) != nil {
			return false
		}
	}
	return true
}

// under returns s with every turn without a fault streamed under the plan
// plan gives it, its fragments joined.
func (s Script) under(plan func(t *Turn, ti int) Plan) Script {
	v := s.clone()
	for i := range v.Turns {
		t := &v.Turns[i]
		if t.Fault != nil {
			continue
		}
		own := t.Plan.over(s.Plan)
		t.Text, t.Fragments = t.text(), nil
		for n := range t.Calls {
			c := &t.Calls[n]
			if len(c.Fragments) > 0 {
				c.Args, c.Fragments = join(c.Fragments), nil
			}
		}
		p := plan(t, i)
		p.First, p.Every = own.First, own.Every
		t.Plan = p
	}
	return v
}

// Clone returns a copy of s that shares no slice with it, so that
// changing the copy's turns, calls or fragments leaves s as it is.
func (s Script) Clone() Script { return s.clone() }

// clone returns a copy of s that shares no slice with it.
func (s Script) clone() Script {
	v := s
	v.Turns = slices.Clone(s.Turns)
	for i := range v.Turns {
		t := &v.Turns[i]
		t.Fragments = slices.Clone(t.Fragments)
		t.Calls = slices.Clone(t.Calls)
		for n := range t.Calls {
			t.Calls[n].Fragments = slices.Clone(t.Calls[n].Fragments)
		}
		t.Expect.Tools = slices.Clone(t.Expect.Tools)
		if t.Generate != nil {
			g := *t.Generate
			g.Tools = slices.Clone(g.Tools)
			t.Generate = &g
		}
		t.Expect.ToolResults = slices.Clone(t.Expect.ToolResults)
	}
	v.lines = slices.Clone(s.lines)
	return v
}

// Plans describes how the turns of s stream: the plan of every turn when
// they share one, "turn N: plan" for each turn otherwise. Turns with a
// fault, and turns with nothing to stream, are left out.
func (s *Script) Plans() string {
	var parts []string
	same := true
	first := ""
	for i := range s.Turns {
		t := &s.Turns[i]
		if t.Fault != nil || t.Reasoning == "" && t.text() == "" && len(t.Calls) == 0 {
			continue
		}
		p := t.Plan.over(s.Plan)
		if p.Split.By != Random && p.Order.By != Shuffle {
			p.Seed = 0 // unused
		}
		d := strings.Replace(p.String(), " seed=0", "", 1)
		if fr := t.explicit(); fr != "" {
			d += " " + fr
		}
		if first == "" {
			first = d
		} else if d != first {
			same = false
		}
		parts = append(parts, fmt.Sprintf("turn %d: %s", i+1, d))
	}
	switch {
	case len(parts) == 0:
		return "nothing streamed"
	case same:
		return first
	}
	return strings.Join(parts, "; ")
}

// explicit describes the explicit fragments of a turn, or "".
func (t *Turn) explicit() string {
	var parts []string
	if len(t.Fragments) > 0 {
		parts = append(parts, fmt.Sprintf("text in %d fragments", len(t.Fragments)))
	}
	for n, c := range t.Calls {
		if len(c.Fragments) > 0 {
			parts = append(parts, fmt.Sprintf("call %d in %d fragments", n+1, len(c.Fragments)))
		}
	}
	return strings.Join(parts, ", ")
}

// Key identifies what s streams on the given wires: two scripts with one
// Key answer the same requests with the same chunks. It covers the
// content of each turn (chunks, finish, usage, fault, expectations) and
// the script's model name.
func (s *Script) Key(wires []Wire) string {
	h := sha256.New()
	whole := wholeOnly(wires)
	fmt.Fprintf(h, "model %q\n", s.Model)
	for i := range s.Turns {
		t := &s.Turns[i]
		b, _ := json.Marshal(struct {
			E Expect
			F *Fault
			U *Usage
			N string
			G *Generate
		}{t.Expect, t.Fault, t.Usage, t.Finish, t.Generate})
		fmt.Fprintf(h, "turn %d %s\n", i, b)
		p := t.Plan.over(s.Plan)
		if t.Generate != nil && t.Generate.Seed == 0 {
			fmt.Fprintf(h, "generated from seed %d\n", p.Seed) // the arguments depend on it
		}
		if t.Fault != nil {
			fmt.Fprintf(h, "delays %d %d\n", p.First, p.Every)
		}
		for _, c := range planChunks(t, i, p, nil, whole) {
			switch {
			case c.Call != nil:
				fmt.Fprintf(h, "c %d %q %q %q\n", c.Call.Index, c.Call.ID, c.Call.Name, c.Call.Args)
			case c.Reasoning != "":
				fmt.Fprintf(h, "r %q\n", c.Reasoning)
			case c.Finish != "":
				fmt.Fprintf(h, "f %q\n", c.Finish)
			default:
				fmt.Fprintf(h, "t %q\n", c.Text)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// wholeOnly reports whether every wire sends each call's arguments whole
// (Gemini, Vertex AI, Ollama).
func wholeOnly(ws []Wire) bool {
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if !w.wholeCalls() {
			return false
		}
	}
	return true
}

// starts returns the streams of turn ti in the order the client sees them
// start: the order of their first chunks, but on a wire that sends calls
// whole (Gemini) a call starts at its last chunk.
func (s *Script) starts(ti int, wires []Wire) []int {
	t := &s.Turns[ti]
	whole := wholeOnly(wires)
	chunks := planChunks(t, ti, t.Plan.over(s.Plan), nil, whole)
	at := map[int]int{}
	for i := range chunks {
		slot := chunkSlot(t, ti, &chunks[i])
		if slot == slotEnd {
			continue
		}
		if _, ok := at[slot]; !ok || whole && slot >= 0 {
			at[slot] = i
		}
	}
	var order []int
	for slot := range at {
		order = append(order, slot)
	}
	slices.SortFunc(order, func(a, b int) int { return at[a] - at[b] })
	return order
}

// Layout says in which order each turn's streams start, turn by turn, as
// in "reasoning text #1 #2 | text": the reasoning, the text and the calls by
// number, and "(no index)" for parallel calls sent without their index.
// Plans with one layout must give a client the same messages: they differ
// only in how the streams are cut, interleaved and identified. Plans with
// different layouts may legitimately not: text after the calls is another
// message after them, an agent may run calls in the order they start, and
// without an index that order is all an agent knows of the model's.
func (s *Script) Layout(wires []Wire) string {
	var turns []string
	for i := range s.Turns {
		var names []string
		for _, slot := range s.starts(i, wires) {
			names = append(names, slotName(slot))
		}
		if s.Turns[i].Fault != nil {
			names = append(names, "fault")
		}
		if s.noIndex(i) {
			names = append(names, "(no index)")
		}
		if len(names) == 0 {
			names = append(names, "nothing")
		}
		turns = append(turns, strings.Join(names, " "))
	}
	return strings.Join(turns, " | ")
}

// noIndex reports whether turn i sends parallel calls without an index.
func (s *Script) noIndex(i int) bool {
	t := &s.Turns[i]
	return t.Fault == nil && len(t.Calls) > 1 && t.Plan.over(s.Plan).IDs == IDsNoIndex
}

// Plain returns s with each turn without a fault streamed plainly in the
// layout it has in s (see [Script.Layout]): every stream whole, one after
// another, in the order they start in s, calls identified the OpenAI way
// (or without index, when s sends them so).
// It is the reference an exploration compares plans of that layout with.
func (s Script) Plain(wires []Wire) Script {
	v := s.clone()
	for i := range v.Turns {
		t := &v.Turns[i]
		if t.Fault != nil {
			continue
		}
		order := s.starts(i, wires)
		own := t.Plan.over(s.Plan)
		t.Text, t.Fragments = t.text(), nil
		for n := range t.Calls {
			c := &t.Calls[n]
			if len(c.Fragments) > 0 {
				c.Args, c.Fragments = join(c.Fragments), nil
			}
		}
		base := Plan{Split: Split{By: Whole}, IDs: IDsFirst, Seed: 1, First: own.First, Every: own.Every}
		if s.noIndex(i) {
			base.IDs = IDsNoIndex
		}
		var candidates []Order
		if o, ok := plainOrder(order); ok {
			candidates = append(candidates, o)
		}
		var full, once []string
		for _, slot := range order {
			name := slotName(slot)
			once = append(once, name)
			full = append(full, name)
			if slot >= 0 && len(Split{By: Whole}.Cut(t.Calls[slot].args(), 0)) > 0 {
				full = append(full, name) // the header, then the arguments
			}
		}
		candidates = append(candidates,
			Order{By: Scheduled, Schedule: strings.Join(full, " ")},
			Order{By: Scheduled, Schedule: strings.Join(once, " ")},
			Order{By: Sequential})
		for _, o := range candidates {
			p := base
			p.Order = o
			t.Plan = p
			tv := Script{Plan: v.Plan, Turns: []Turn{*t}}
			if o.By == Scheduled && o.Schedule == "" {
				continue
			}
			if tv.turnValid(0, i, wires) {
				break
			}
		}
	}
	return v
}

// turnValid reports whether turn 0 of s, the turn ti of a script, is valid
// and expressible on every wire.
func (s *Script) turnValid(ti0, ti int, wires []Wire) bool {
	t := &s.Turns[ti0]
	p := t.Plan.over(s.Plan)
	if p.validate(t.Calls, ti) != nil {
		return false
	}
	for _, w := range wires {
		if w != "" && t.expressible(w, p, ti, true) != nil {
			return false
		}
	}
	return true
}

// plainOrder returns the plain order that starts the streams in order, if
// one does: reasoning, text and calls in index order, or the text after
// the calls.
func plainOrder(order []int) (Order, bool) {
	var calls []int
	text := -1
	for i, slot := range order {
		switch {
		case slot == slotReasoning:
			if i != 0 {
				return Order{}, false
			}
		case slot == slotText:
			text = i
		default:
			calls = append(calls, slot)
		}
	}
	for i, c := range calls {
		if c != i {
			return Order{}, false
		}
	}
	if text < 0 || text == len(order)-len(calls)-1 {
		return Order{By: Sequential}, true
	}
	if text == len(order)-1 {
		return Order{By: Sequential, Text: TextAfter}, true
	}
	return Order{}, false
}

// slotName is the schedule entry of a stream.
func slotName(slot int) string {
	switch slot {
	case slotText:
		return "text"
	case slotReasoning:
		return "reasoning"
	}
	return "#" + strconv.Itoa(slot+1)
}

// The systematic matrix: each entry gives a turn its plan.
var matrix = func() []func(*Turn, int) Plan {
	uniform := func(sp Split, o Order, ids IDStyle) func(*Turn, int) Plan {
		return func(*Turn, int) Plan { return Plan{Split: sp, Order: o, IDs: ids, Seed: 1} }
	}
	seq := Order{By: Sequential}
	bytes4 := Split{By: Bytes, Size: 4}
	m := []func(*Turn, int) Plan{
		// First the shapes of known bugs, so that the smallest budget
		// runs them: a call's name and full arguments in one chunk; a
		// call without arguments sent no argument delta; text between
		// the fragments of calls; calls interleaved.
		uniform(Split{By: Whole, WithName: true}, seq, IDsFirst),
		uniform(Split{By: Whole, WithName: true}, Order{By: Reverse}, IDsFirst),
		uniform(Split{By: Bytes, Size: 4, WithName: true}, Order{By: RoundRobin}, IDsFirst),
		uniform(Split{By: Whole, NoArgs: true}, seq, IDsFirst),
		uniform(Split{By: Bytes, Size: 1}, Order{By: RoundRobin, Text: TextBetween}, IDsFirst),
		// Fragments, each call whole after the other with nothing
		// between them.
		uniform(Split{By: Whole}, seq, IDsFirst),
		uniform(Split{By: Bytes, Size: 1}, seq, IDsFirst),
		uniform(Split{By: Runes, Size: 1}, seq, IDsFirst),
		uniform(Split{By: Words, Size: 1}, seq, IDsFirst),
		uniform(Split{By: Bytes, Size: 2, MidRune: true}, seq, IDsFirst),
		uniform(Split{By: Bytes, Size: 5, Escapes: true}, seq, IDsFirst),
		uniform(Split{By: Bytes, Size: 3, Empty: 1}, seq, IDsFirst),
		uniform(Split{By: Random, Min: 1, Size: 6}, seq, IDsFirst),
	}
	// Orders of parallel calls, the text before, between and after them.
	for _, by := range []OrderKind{RoundRobin, Reverse, Shuffle} {
		for _, text := range []Placement{TextBefore, TextBetween, TextAfter} {
			m = append(m, uniform(bytes4, Order{By: by, Text: text}, IDsFirst))
		}
	}
	m = append(m,
		uniform(bytes4, Order{By: Sequential, Text: TextBetween}, IDsFirst),
		uniform(bytes4, Order{By: Sequential, Text: TextAfter}, IDsFirst),
		func(*Turn, int) Plan {
			return Plan{Split: Split{By: Bytes, Size: 2}, Order: Order{By: Shuffle}, IDs: IDsFirst, Seed: 2}
		},
		func(*Turn, int) Plan {
			return Plan{Split: Split{By: Bytes, Size: 3}, Order: Order{By: Shuffle}, IDs: IDsFirst, Seed: 3}
		},
		// Every call starts before any arguments, in order and rotated.
		headsFirst(false),
		headsFirst(true),
	)
	// Id styles.
	for _, ids := range []IDStyle{IDsEvery, IDsNoIndex} {
		for _, by := range []OrderKind{Sequential, RoundRobin} {
			m = append(m, uniform(bytes4, Order{By: by}, ids))
		}
	}
	return m
}()

// headsFirst schedules the first delta of every call before any argument,
// the last call first when rotated; the rest follows in order.
func headsFirst(rotated bool) func(*Turn, int) Plan {
	return func(t *Turn, _ int) Plan {
		p := Plan{Split: Split{By: Bytes, Size: 4}, Order: Order{By: RoundRobin}, IDs: IDsFirst, Seed: 1}
		n := len(t.Calls)
		if n < 2 {
			return p
		}
		var entries []string
		for k := range n {
			i := k
			if rotated {
				i = (k + n - 1) % n
			}
			entries = append(entries, slotName(i))
		}
		p.Order = Order{By: Scheduled, Schedule: strings.Join(entries, " ")}
		return p
	}
}

// randomPlan draws a plan for turn t.
func randomPlan(rng *rand.Rand, t *Turn, ti int) Plan {
	var sp Split
	switch rng.IntN(5) {
	case 0:
		sp.By = Whole
	case 1:
		sp = Split{By: Bytes, Size: 1 + rng.IntN(12)}
	case 2:
		sp = Split{By: Runes, Size: 1 + rng.IntN(8)}
	case 3:
		sp = Split{By: Words, Size: 1 + rng.IntN(3)}
	default:
		sp = Split{By: Random, Min: 1, Size: 2 + rng.IntN(14)}
	}
	if sp.By == Bytes || sp.By == Random {
		sp.MidRune = rng.IntN(3) == 0
	}
	sp.Escapes = rng.IntN(3) == 0
	if rng.IntN(6) == 0 {
		sp.Empty = 1 + rng.IntN(3)
	}
	sp.WithName = rng.IntN(5) == 0
	sp.NoArgs = rng.IntN(5) == 0
	kinds := []OrderKind{Sequential, RoundRobin, Reverse, Shuffle, Scheduled}
	placements := []Placement{TextBefore, TextBetween, TextAfter}
	styles := []IDStyle{IDsFirst, IDsEvery, IDsNoIndex}
	p := Plan{
		Split: sp,
		Order: Order{By: kinds[rng.IntN(len(kinds))], Text: placements[rng.IntN(len(placements))]},
		IDs:   styles[rng.IntN(len(styles))],
		Seed:  1 + rng.Uint64N(999),
	}
	if p.Order.By == Scheduled {
		p.Order = Order{By: Scheduled, Schedule: randomSchedule(rng, t, ti, p)}
		if p.Order.Schedule == "" {
			p.Order = Order{By: Shuffle, Text: placements[rng.IntN(len(placements))]}
		}
	}
	return p
}

// randomSchedule returns a random interleaving of every chunk of turn t
// under plan p, or "" when the turn has fewer than two streams.
func randomSchedule(rng *rand.Rand, t *Turn, ti int, p Plan) string {
	p.Order = Order{By: Sequential}
	left := map[int]int{}
	var slots []int
	for _, c := range planChunks(t, ti, p, nil, false) {
		slot := chunkSlot(t, ti, &c)
		if slot == slotEnd {
			continue
		}
		if left[slot] == 0 {
			slots = append(slots, slot)
		}
		left[slot]++
	}
	if len(slots) < 2 {
		return ""
	}
	var entries []string
	for len(slots) > 0 {
		k := rng.IntN(len(slots))
		slot := slots[k]
		entries = append(entries, slotName(slot))
		if left[slot]--; left[slot] == 0 {
			slots = slices.Delete(slots, k, k+1)
		}
	}
	return strings.Join(entries, " ")
}

// Words says in words how the turns of s stream, as Plans does in the
// script file's terms: "4-byte fragments, each call's arguments starting
// in its first chunk; calls interleaved" for split=bytes/4+with-name
// order=round-robin.
func (s *Script) Words() string {
	var parts []string
	same := true
	first := ""
	for i := range s.Turns {
		t := &s.Turns[i]
		if t.Fault != nil || t.Reasoning == "" && t.text() == "" && len(t.Calls) == 0 {
			continue
		}
		d := t.Plan.over(s.Plan).words(t)
		if first == "" {
			first = d
		} else if d != first {
			same = false
		}
		parts = append(parts, fmt.Sprintf("turn %d: %s", i+1, d))
	}
	switch {
	case len(parts) == 0:
		return "nothing streamed"
	case same:
		return first
	}
	return strings.Join(parts, "; ")
}

// words says plan p of turn t in words.
func (p Plan) words(t *Turn) string {
	sp := p.Split
	calls := len(t.Calls)
	size := func(def int) int {
		if sp.Size > 0 {
			return sp.Size
		}
		return def
	}
	var parts []string
	switch sp.By {
	case Whole:
		if sp.WithName && calls > 0 {
			parts = append(parts, "each call's name and arguments in one chunk")
		} else {
			parts = append(parts, "each stream whole")
		}
	case Runes:
		parts = append(parts, fmt.Sprintf("%d-character fragments", size(8)))
	case Words:
		parts = append(parts, fmt.Sprintf("%d-word fragments", size(1)))
	case Random:
		lo := sp.Min
		if lo <= 0 {
			lo = 1
		}
		parts = append(parts, fmt.Sprintf("random fragments of %d to %d bytes (seed %d)", lo, size(16), p.Seed))
	default:
		parts = append(parts, fmt.Sprintf("%d-byte fragments", size(8)))
	}
	if sp.WithName && sp.By != Whole && calls > 0 {
		parts = append(parts, "each call's arguments starting in its first chunk")
	}
	if sp.MidRune {
		parts = append(parts, "cut inside characters")
	}
	if sp.Escapes {
		parts = append(parts, "cut inside escapes")
	}
	if sp.Empty > 0 {
		parts = append(parts, fmt.Sprintf("an empty delta after every %s", words.Count(sp.Empty, "fragment", "fragments")))
	}
	if sp.NoArgs && calls > 0 {
		parts = append(parts, "no argument delta for a call without arguments")
	}
	out := strings.Join(parts, ", ")
	var order []string
	if calls > 1 {
		switch p.Order.By {
		case RoundRobin:
			order = append(order, "calls interleaved")
		case Reverse:
			order = append(order, "calls last first")
		case Shuffle:
			order = append(order, fmt.Sprintf("calls shuffled (seed %d)", p.Seed))
		case Scheduled:
			order = append(order, "scheduled "+p.Order.Schedule)
		default:
			order = append(order, "calls one after another")
		}
	}
	if calls > 0 && (t.text() != "" || len(t.Fragments) > 0) && p.Order.By != Scheduled {
		switch p.Order.Text {
		case TextBetween:
			order = append(order, "text between the calls")
		case TextAfter:
			order = append(order, "text after the calls")
		}
	}
	if calls > 0 {
		switch p.IDs {
		case IDsEvery:
			order = append(order, "the id on every delta")
		case IDsNoIndex:
			order = append(order, "no index")
		}
	}
	if len(order) > 0 {
		out += "; " + strings.Join(order, ", ")
	}
	return out
}
