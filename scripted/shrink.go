package scripted

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Simplification is one step towards the smallest script that still
// fails: a script made simpler in one way.
type Simplification struct {
	// What says what changed, as in "turn 1: order sequential" or
	// "turn 1: without call 2 (add_task)".
	What string
	// Script is the simpler script.
	Script Script
	// Own is the case's own script with the same content as Script: the
	// own script given to Simplify, or, when the step drops a call, that
	// script without the call. An exploration compares Script's run with
	// Own's, and a step that drops a call is only allowed when Own still
	// passes.
	Own Script
	// DropsCall says the step drops a call: Own differs from the own
	// script given to Simplify.
	DropsCall bool
	// Rewrites says the step streams the same chunks, written otherwise
	// (a turn spelled out, so that later steps can join its fragments):
	// it fails as the script before it does.
	Rewrites bool
}

// Simplify returns the ways s can be made one step simpler, the most
// promising first: without one of its calls (where the turn keeps
// something to say), then the arguments of a generated call (one with a
// Schema) simpler within its schema (an optional property left out, an
// item fewer, a shorter string, a number nearer 0), then, turn by turn, a
// simpler plan (the script's own
// plan, a simpler order, text before the calls, the OpenAI id style, a
// whole split, split options off, larger fragments), then each turn's
// fragments and schedule spelled out (the same stream), then, on spelled
// out turns, two adjacent fragments of a stream joined and two adjacent
// schedule entries swapped towards the order reasoning, text, calls.
// own is the case's own script with the content of s.
//
// A shrinker takes the first simplification that still fails and asks
// again, until none does: the result has the fewest calls, fragments and
// interleavings this search finds. Simplifications a wire cannot express
// are the caller's to skip ([Script.ValidateWire]).
func Simplify(s, own Script) []Simplification {
	var out []Simplification
	m := s.measure()
	add := func(what string, v Script) {
		if v.Validate() == nil && v.measure().less(m) {
			out = append(out, Simplification{What: what, Script: v, Own: own})
		}
	}
	for i := range s.Turns {
		for n, c := range s.Turns[i].Calls {
			t := &s.Turns[i]
			if len(t.Calls) == 1 && t.text() == "" && t.Reasoning == "" {
				continue // the turn would say nothing
			}
			v, o := s.withoutCall(i, n), own.withoutCall(i, n)
			if v.Validate() == nil && o.Validate() == nil && v.measure().less(m) {
				out = append(out, Simplification{What: fmt.Sprintf("turn %d: without call %d (%s)", i+1, n+1, c.Name), Script: v, Own: o, DropsCall: true})
			}
		}
	}
	for i := range s.Turns {
		for n, c := range s.Turns[i].Calls {
			for _, args := range simplerArgs(c) {
				v, o := s.clone(), own.clone()
				v.Turns[i].Calls[n].Args = args
				if i < len(o.Turns) && n < len(o.Turns[i].Calls) {
					o.Turns[i].Calls[n].Args = args
				}
				if v.Validate() == nil && v.measure().less(m) {
					out = append(out, Simplification{What: fmt.Sprintf("turn %d: call %d (%s) with the arguments %s", i+1, n+1, c.Name, args), Script: v, Own: o})
				}
			}
		}
	}
	for i := range s.Turns {
		t := &s.Turns[i]
		if t.Fault != nil || spelledOut(t, i) {
			continue
		}
		p := t.Plan.over(s.Plan)
		with := func(what string, q Plan) {
			v := s.clone()
			v.Turns[i].Plan = q
			if q.over(s.Plan) != p {
				add(fmt.Sprintf("turn %d: %s", i+1, what), v)
			}
		}
		with("the script's plan", Plan{First: t.Plan.First, Every: t.Plan.Every})
		q := p
		for _, by := range []OrderKind{Sequential, Reverse, RoundRobin, Shuffle} {
			if orderRank(by) >= orderRank(p.Order.By) {
				break
			}
			q.Order = Order{By: by, Text: p.Order.Text}
			with("order "+string(by), q)
		}
		if p.Order.Text != TextBefore && p.Order.By != Scheduled {
			q = p
			q.Order.Text = TextBefore
			with("text before the calls", q)
		}
		if p.IDs != IDsFirst {
			q = p
			q.IDs = IDsFirst
			with("ids first", q)
		}
		if p.Split.By != Whole {
			q = p
			q.Split.By, q.Split.Size, q.Split.Min = Whole, 0, 0
			with("split whole", q)
		}
		for _, off := range []struct {
			name string
			set  func(*Split)
		}{
			{"without escapes", func(sp *Split) { sp.Escapes = false }},
			{"without mid_rune", func(sp *Split) { sp.MidRune = false }},
			{"without empty deltas", func(sp *Split) { sp.Empty = 0 }},
			{"without with_name", func(sp *Split) { sp.WithName = false }},
			{"without no_args", func(sp *Split) { sp.NoArgs = false }},
		} {
			q = p
			off.set(&q.Split)
			with(off.name, q)
		}
		if p.Split.By != Whole && p.Split.size() < 1<<12 {
			q = p
			q.Split.Size = 2 * p.Split.size()
			if q.Split.By == Random && q.Split.Min < q.Split.Size/2 {
				q.Split.Min = q.Split.Size / 2
			}
			with(fmt.Sprintf("fragments of %d %s", q.Split.Size, p.Split.By), q)
		}
	}
	for i := range s.Turns {
		t := &s.Turns[i]
		if t.Fault != nil || spelledOut(t, i) || len(t.Calls) == 0 && len(Split.Cut(t.Plan.over(s.Plan).Split, t.text(), 0)) < 2 {
			continue
		}
		if v, ok := s.spellOut(i); ok && v.Validate() == nil {
			out = append(out, Simplification{What: fmt.Sprintf("turn %d: fragments and schedule spelled out", i+1), Script: v, Own: own, Rewrites: true})
		}
	}
	for i := range s.Turns {
		if t := &s.Turns[i]; t.Fault == nil && spelledOut(t, i) {
			for _, st := range s.joins(i) {
				add(st.What, st.Script)
			}
		}
	}
	for i := range s.Turns {
		if t := &s.Turns[i]; t.Fault == nil && spelledOut(t, i) {
			for _, st := range s.swaps(i) {
				add(st.What, st.Script)
			}
		}
	}
	return out
}

// orderRank ranks orders from the simplest.
func orderRank(by OrderKind) int {
	switch by {
	case Sequential, "":
		return 0
	case Reverse:
		return 1
	case RoundRobin:
		return 2
	case Shuffle:
		return 3
	}
	return 4
}

// spelledOut reports whether a turn's stream is given chunk by chunk: its
// text and call arguments as fragments, in an explicit schedule.
func spelledOut(t *Turn, ti int) bool {
	o := t.Plan.Order
	if o.By != Scheduled || !spelled.MatchString(o.Schedule) {
		return false
	}
	n := 0
	for _, c := range planChunks(t, ti, t.Plan, nil, false) {
		if c.Finish == "" && c.Usage == nil {
			n++
		}
	}
	return n == len(strings.Fields(o.Schedule))
}

// spelled matches the schedules spellOut writes, which name every stream
// by number: "text", "reasoning" and "#N" only.
var spelled = regexp.MustCompile(`^(?:(?:text|reasoning|#\d+)(?: |$))+$`)

// spellOut returns s with turn i's text and call arguments given as the
// fragments its plan cuts them into and its order as an explicit schedule
// of every chunk: the same stream, spelled out so that fragments can be
// joined and entries swapped one at a time. Reasoning has no explicit
// fragments and stays cut by the split.
func (s Script) spellOut(i int) (Script, bool) {
	v := s.clone()
	t := &v.Turns[i]
	p := t.Plan.over(s.Plan)
	chunks := planChunks(t, i, p, nil, false)
	var entries []string
	var text []string
	args := make([][]string, len(t.Calls))
	for k := range chunks {
		c := &chunks[k]
		slot := chunkSlot(t, i, c)
		if slot == slotEnd {
			continue
		}
		entries = append(entries, slotName(slot))
		switch {
		case slot == slotText:
			text = append(text, c.Text)
		case slot >= 0 && (c.Call.Name == "" || c.Call.Args != ""):
			args[slot] = append(args[slot], c.Call.Args)
		}
	}
	t.Text, t.Fragments = join(text), text
	if len(text) == 0 {
		t.Fragments = nil
	}
	for n := range t.Calls {
		c := &t.Calls[n]
		c.Fragments = args[n]
		if len(args[n]) == 0 && !(p.Split.NoArgs && c.noArgs()) {
			c.Fragments = nil
		}
		if len(c.Fragments) > 0 && join(c.Fragments) != c.args() {
			return s, false
		}
		if len(c.Fragments) > 0 {
			c.Args = ""
		}
	}
	if len(t.Fragments) > 0 && t.Text == join(t.Fragments) {
		t.Text = ""
	}
	p.Order = Order{By: Scheduled, Schedule: strings.Join(entries, " ")}
	t.Plan = p
	if v.Key(nil) != s.Key(nil) {
		return s, false // not the same stream: leave the turn as it is
	}
	return v, true
}

// entryOf returns the index in entries of the k-th entry naming name.
func entryOf(entries []string, name string, k int) int {
	for i, e := range entries {
		if e == name {
			if k == 0 {
				return i
			}
			k--
		}
	}
	return -1
}

// joins returns turn i (spelled out) with two adjacent fragments of one of
// its streams joined, for every such pair.
func (s Script) joins(i int) []Simplification {
	t := &s.Turns[i]
	p := t.Plan.over(s.Plan)
	entries := strings.Fields(p.Order.Schedule)
	var out []Simplification
	join2 := func(what string, frags []string, name string, off int, set func(t *Turn, frags []string)) {
		for j := 0; j+1 < len(frags); j++ {
			e := entryOf(entries, name, j+1+off)
			if e < 0 {
				continue
			}
			v := s.clone()
			vt := &v.Turns[i]
			nf := slices.Clone(frags)
			nf[j] += nf[j+1]
			nf = slices.Delete(nf, j+1, j+2)
			set(vt, nf)
			vt.Plan.Order.Schedule = strings.Join(slices.Delete(slices.Clone(entries), e, e+1), " ")
			out = append(out, Simplification{What: fmt.Sprintf("turn %d: %s fragments %d and %d joined", i+1, what, j+1, j+2), Script: v})
		}
	}
	if len(t.Fragments) > 1 {
		join2("text", t.Fragments, "text", 0, func(t *Turn, f []string) { t.Fragments = f })
	}
	for n, c := range t.Calls {
		if len(c.Fragments) < 2 {
			continue
		}
		off := 1 // the first entry of a call is its header
		if p.Split.WithName {
			off = 0
		}
		join2(fmt.Sprintf("call %d", n+1), c.Fragments, slotName(n), off, func(t *Turn, f []string) { t.Calls[n].Fragments = f })
	}
	return out
}

// swaps returns turn i (spelled out) with two adjacent schedule entries of
// different streams swapped, for every pair out of the order reasoning,
// text, calls by number.
func (s Script) swaps(i int) []Simplification {
	entries := strings.Fields(s.Turns[i].Plan.over(s.Plan).Order.Schedule)
	rank := func(e string) int {
		switch e {
		case "reasoning":
			return -2
		case "text":
			return -1
		}
		n, _ := strconv.Atoi(strings.TrimPrefix(e, "#"))
		return n
	}
	var out []Simplification
	for j := 0; j+1 < len(entries); j++ {
		if rank(entries[j]) <= rank(entries[j+1]) {
			continue
		}
		v := s.clone()
		ne := slices.Clone(entries)
		ne[j], ne[j+1] = ne[j+1], ne[j]
		v.Turns[i].Plan.Order.Schedule = strings.Join(ne, " ")
		out = append(out, Simplification{What: fmt.Sprintf("turn %d: %s before %s", i+1, ne[j], ne[j+1]), Script: v})
	}
	return out
}

// withoutCall returns s without call n of turn i. Later calls of the turn
// keep their ids: the default ones in the expectations of later turns are
// renumbered with them, and a schedule naming calls by number skips the
// dropped call.
func (s Script) withoutCall(i, n int) Script {
	v := s.clone()
	t := &v.Turns[i]
	dropped := t.Calls[n].callID(i, n)
	renamed := map[string]string{}
	for m := n + 1; m < len(t.Calls); m++ {
		if t.Calls[m].ID == "" {
			renamed[t.Calls[m].callID(i, m)] = t.Calls[m].callID(i, m-1)
		}
	}
	t.Calls = slices.Delete(t.Calls, n, n+1)
	if t.Plan.Order.By == Scheduled {
		var entries []string
		for _, e := range strings.Fields(t.Plan.Order.Schedule) {
			k, err := strconv.Atoi(strings.TrimPrefix(e, "#"))
			switch {
			case !strings.HasPrefix(e, "#") || err != nil:
				if e == dropped {
					continue
				}
			case k == n+1:
				continue
			case k > n+1:
				e = "#" + strconv.Itoa(k-1)
			}
			if r, ok := renamed[e]; ok {
				e = r
			}
			entries = append(entries, e)
		}
		t.Plan.Order.Schedule = strings.Join(entries, " ")
		if len(entries) == 0 {
			t.Plan.Order = Order{By: Sequential}
		}
	}
	for j := i + 1; j < len(v.Turns); j++ {
		e := &v.Turns[j].Expect
		var ids []string
		for _, id := range e.ToolResults {
			if id == dropped {
				continue
			}
			if r, ok := renamed[id]; ok {
				id = r
			}
			ids = append(ids, id)
		}
		e.ToolResults = ids
	}
	return v
}

// Tidy returns s written with fewer fields: each turn's plan without the
// fields that do not change what it streams on the given wires (an id
// style or seed the plan does not use, a split that cuts nothing left to
// cut, the plan as a whole when the script's plan streams the turn alike).
// The result has the same [Script.Key].
func (s Script) Tidy(wires []Wire) Script {
	key := s.Key(wires)
	v := s.clone()
	zero := []func(p *Plan){
		func(p *Plan) { *p = Plan{First: p.First, Every: p.Every} },
		func(p *Plan) { p.Split = Split{} },
		func(p *Plan) { p.Order = Order{} },
		func(p *Plan) { p.IDs = "" },
		func(p *Plan) { p.Seed = 0 },
		func(p *Plan) { p.Order.Text = "" },
		func(p *Plan) { p.Split.Size = 0 },
		func(p *Plan) { p.Split.Min = 0 },
		func(p *Plan) { p.Split.Escapes = false },
		func(p *Plan) { p.Split.MidRune = false },
		func(p *Plan) { p.Split.Empty = 0 },
		func(p *Plan) { p.Split.WithName = false },
		func(p *Plan) { p.Split.NoArgs = false },
	}
	for i := range v.Turns {
		t := &v.Turns[i]
		if t.Fault == nil && spelledOut(t, i) {
			v.Turns[i] = v.unspell(i, wires, key)
		}
		if len(t.Fragments) == 1 {
			old := *t
			t.Text, t.Fragments = t.Fragments[0], nil
			if v.Key(wires) != key {
				*t = old
			}
		}
		for n := range t.Calls {
			if c := &t.Calls[n]; len(c.Fragments) == 1 {
				old := *c
				c.Args, c.Fragments = c.Fragments[0], nil
				if c.Args == "{}" {
					c.Args = ""
				}
				if v.Key(wires) != key || v.Validate() != nil {
					*c = old
				}
			}
		}
		for _, z := range zero {
			old := v.Turns[i].Plan
			z(&v.Turns[i].Plan)
			if v.Turns[i].Plan == old {
				continue
			}
			if v.Validate() != nil || !expressibleOn(&v, wires) || v.Key(wires) != key {
				v.Turns[i].Plan = old
			}
		}
	}
	return v
}

// unspell returns turn i of s, spelled out, as a plan that streams it the
// same (key) without explicit fragments and schedule, if one of the
// plain ones does; the turn as it is otherwise.
func (s Script) unspell(i int, wires []Wire, key string) Turn {
	t := s.Turns[i]
	joined := t
	joined.Text, joined.Fragments = t.text(), nil
	joined.Calls = slices.Clone(t.Calls)
	for n := range joined.Calls {
		c := &joined.Calls[n]
		if len(c.Fragments) > 0 {
			c.Args, c.Fragments = join(c.Fragments), nil
		}
	}
	p := t.Plan
	for _, sp := range []Split{{By: Whole}, {By: Bytes, Size: 1}, {By: Runes, Size: 1}, {By: Words, Size: 1}} {
		sp.WithName, sp.NoArgs = p.Split.WithName, p.Split.NoArgs
		for _, o := range []Order{{By: Sequential}, {By: RoundRobin}, {By: Reverse}, {By: Sequential, Text: TextAfter}, {By: RoundRobin, Text: TextAfter}, {By: RoundRobin, Text: TextBetween}} {
			v := s.clone()
			v.Turns[i] = joined
			v.Turns[i].Plan = Plan{Split: sp, Order: o, IDs: p.IDs, First: p.First, Every: p.Every}
			if v.Validate() == nil && expressibleOn(&v, wires) && v.Key(wires) == key {
				return v.Turns[i]
			}
		}
	}
	return t
}

// complexity orders scripts from the simplest: fewer calls, then fewer
// plan options (split options, id style, order kind, text placement),
// then fewer fragments, then fewer switches between streams, then a
// shorter literal.
type complexity [5]int

func (a complexity) less(b complexity) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// measure returns the complexity of s. Every step Simplify returns but
// those that rewrite the same stream lowers it, so shrinking ends.
func (s *Script) measure() complexity {
	var m complexity
	for i := range s.Turns {
		t := &s.Turns[i]
		m[0] += len(t.Calls)
		if t.Fault != nil {
			continue
		}
		p := t.Plan.over(s.Plan)
		for _, on := range []bool{p.Split.Escapes, p.Split.MidRune, p.Split.Empty > 0, p.Split.WithName, p.Split.NoArgs, p.IDs != IDsFirst, p.Order.Text != TextBefore && p.Order.Text != ""} {
			if on {
				m[1]++
			}
		}
		if len(t.Calls) > 1 {
			m[1] += orderRank(p.Order.By)
		}
		last := slotEnd
		for k, c := range planChunks(t, i, p, nil, false) {
			slot := chunkSlot(t, i, &c)
			if slot == slotEnd {
				continue
			}
			if c.Call == nil || c.Call.Name == "" || c.Call.Args != "" {
				m[2]++
			}
			if k > 0 && slot != last {
				m[3]++
			}
			last = slot
		}
	}
	m[4] = len(s.GoString())
	return m
}

// simplerArgs returns simpler arguments of a call generated from its
// tool's schema, at most a few, each still meeting the schema.
func simplerArgs(c Call) []string {
	if len(c.Schema) == 0 || len(c.Fragments) > 0 {
		return nil
	}
	sc, err := readSchema(c.Name, c.Schema)
	if err != nil {
		return nil
	}
	v, err := parseValue([]byte(c.args()))
	if err != nil {
		return nil
	}
	var out []string
	for _, sv := range sc.simpler(v) {
		out = append(out, string(sv.append(nil)))
		if len(out) == 12 {
			break
		}
	}
	return out
}
