package scripted

import (
	"math/rand/v2"
	"strings"
)

// A Chunk is one streamed piece of a turn. Exactly one of its fields is
// set, except that a Chunk with an empty Text is a deliberate empty delta.
type Chunk struct {
	// Text is a delta of the visible text.
	Text string
	// Reasoning is a delta of the reasoning text.
	Reasoning string
	// Call is a delta of a tool call.
	Call *CallDelta
	// Finish is the finish reason, on the last chunk before usage.
	Finish string
	// Usage is the token usage, on the last chunk.
	Usage *Usage
}

// A CallDelta is a piece of a tool call, identified by the plan's IDStyle.
type CallDelta struct {
	// Index is the call's position in the turn; -1 when the style omits it.
	Index int
	// ID and Name are set on a call's first delta, and ID on every delta
	// when the style says so.
	ID, Name string
	// Args is a fragment of the arguments JSON text.
	Args string
}

// kind of a planned delta, for the encoders.
type deltaKind uint8

const (
	kindText deltaKind = iota
	kindReasoning
	kindCall
	kindFinish
	kindUsage
)

func (c *Chunk) kind() deltaKind {
	switch {
	case c.Call != nil:
		return kindCall
	case c.Reasoning != "":
		return kindReasoning
	case c.Finish != "":
		return kindFinish
	case c.Usage != nil:
		return kindUsage
	}
	return kindText
}

// mix derives the seed of one string of one turn from the plan seed.
func mix(seed uint64, turn, slot int) uint64 {
	x := seed ^ uint64(turn)*0x9e3779b97f4a7c15 ^ uint64(slot+3)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	return x ^ x>>29
}

// planChunks builds the chunks of turn ti under plan p, ending with the
// finish chunk and, if usage is not nil, a usage chunk. wholeArgs keeps
// each call's arguments in one delta, for a wire that sends calls whole.
func planChunks(t *Turn, ti int, p Plan, usage *Usage, wholeArgs bool) []Chunk {
	var reasoning, text []Chunk
	for _, f := range p.Split.Cut(t.Reasoning, mix(p.Seed, ti, slotReasoning)) {
		if f == "" {
			continue // an empty reasoning delta reads as a text delta
		}
		reasoning = append(reasoning, Chunk{Reasoning: f})
	}
	frags := t.Fragments
	if len(frags) == 0 {
		frags = p.Split.Cut(t.Text, mix(p.Seed, ti, slotText))
	}
	for _, f := range frags {
		text = append(text, Chunk{Text: f})
	}

	calls := make([][]Chunk, len(t.Calls))
	for n, c := range t.Calls {
		id := c.callID(ti, n)
		idx := n
		if p.IDs == IDsNoIndex {
			idx = -1
		}
		head := &CallDelta{Index: idx, ID: id, Name: c.Name}
		calls[n] = append(calls[n], Chunk{Call: head})
		frags := c.Fragments
		switch {
		case wholeArgs && c.args() != "":
			frags = []string{c.args()}
		case p.Split.NoArgs && c.noArgs():
			frags = nil
		case len(frags) == 0:
			frags = p.Split.Cut(c.args(), mix(p.Seed, ti, n))
		}
		if p.Split.WithName && len(frags) > 0 {
			head.Args, frags = frags[0], frags[1:]
		}
		for _, f := range frags {
			d := &CallDelta{Index: idx, Args: f}
			if p.IDs != IDsFirst {
				d.ID = id
			}
			calls[n] = append(calls[n], Chunk{Call: d})
		}
	}

	out := make([]Chunk, 0, len(reasoning)+len(text)+len(calls)*4+2)
	if p.Order.By == Scheduled {
		out = schedule(out, p.Order, t.Calls, ti, reasoning, text, calls)
	} else {
		out = append(out, reasoning...)
		steps := callSteps(p, ti, calls)
		switch {
		case len(steps) == 0 || p.Order.Text == TextBefore:
			out = append(out, text...)
			out = append(out, steps...)
		case p.Order.Text == TextAfter:
			out = append(out, steps...)
			out = append(out, text...)
		default: // between: text delta j goes before call step (j+1)*S/(T+1)
			S, T := len(steps), len(text)
			j := 0
			for s := range steps {
				for j < T && (j+1)*S/(T+1) <= s {
					out = append(out, text[j])
					j++
				}
				out = append(out, steps[s])
			}
			out = append(out, text[j:]...)
		}
	}
	out = append(out, Chunk{Finish: t.finish()})
	if usage != nil {
		out = append(out, Chunk{Usage: usage})
	}
	return out
}

// callSteps orders the call deltas by the plan's OrderKind.
func callSteps(p Plan, ti int, calls [][]Chunk) []Chunk {
	var out []Chunk
	switch p.Order.By {
	case Reverse:
		for n := len(calls) - 1; n >= 0; n-- {
			out = append(out, calls[n]...)
		}
	case RoundRobin:
		for k := 0; ; k++ {
			more := false
			for _, c := range calls {
				if k < len(c) {
					out = append(out, c[k])
					more = true
				}
			}
			if !more {
				break
			}
		}
	case Shuffle:
		var who []int
		for n, c := range calls {
			for range c {
				who = append(who, n)
			}
		}
		rng := rand.New(rand.NewPCG(mix(p.Seed, ti, -10), 0x2545f4914f6cdd1d))
		rng.Shuffle(len(who), func(i, j int) { who[i], who[j] = who[j], who[i] })
		next := make([]int, len(calls))
		for _, n := range who {
			out = append(out, calls[n][next[n]])
			next[n]++
		}
	default:
		for _, c := range calls {
			out = append(out, c...)
		}
	}
	return out
}

// schedule orders the deltas by an explicit schedule; streams the schedule
// leaves unfinished follow in order: reasoning, text, calls.
func schedule(out []Chunk, o Order, cs []Call, ti int, reasoning, text []Chunk, calls [][]Chunk) []Chunk {
	// Reasoning and text that the schedule does not name keep their
	// places: reasoning first, the text where Order.Text puts it (before
	// the calls unless it says after; "between" has no meaning next to an
	// explicit schedule and counts as before).
	namesReasoning, namesText := false, false
	for _, e := range strings.Fields(o.Schedule) {
		switch slot, err := resolve(e, cs, ti); {
		case err != nil:
		case slot == slotReasoning:
			namesReasoning = true
		case slot == slotText:
			namesText = true
		}
	}
	next := make([]int, len(calls))
	var nr, nt int
	if !namesReasoning {
		out = append(out, reasoning...)
		nr = len(reasoning)
	}
	if !namesText && o.Text != TextAfter {
		out = append(out, text...)
		nt = len(text)
	}
	for _, e := range strings.Fields(o.Schedule) {
		slot, err := resolve(e, cs, ti)
		if err != nil {
			continue // Validate rejected it already
		}
		switch {
		case slot == slotReasoning:
			if nr < len(reasoning) {
				out = append(out, reasoning[nr])
				nr++
			}
		case slot == slotText:
			if nt < len(text) {
				out = append(out, text[nt])
				nt++
			}
		case next[slot] < len(calls[slot]):
			out = append(out, calls[slot][next[slot]])
			next[slot]++
		}
	}
	out = append(out, reasoning[nr:]...)
	if namesText {
		out = append(out, text[nt:]...)
	}
	for n, c := range calls {
		out = append(out, c[next[n]:]...)
	}
	if !namesText {
		out = append(out, text[nt:]...) // empty unless Order.Text is after
	}
	return out
}

// chunkSlot returns the stream a chunk of turn t (turn index ti) belongs
// to: slotReasoning, slotText, a call's index, or slotEnd for the finish and
// usage chunks.
func chunkSlot(t *Turn, ti int, c *Chunk) int {
	switch c.kind() {
	case kindReasoning:
		return slotReasoning
	case kindText:
		return slotText
	case kindCall:
		if c.Call.Index >= 0 {
			return c.Call.Index
		}
		for n, call := range t.Calls {
			if call.callID(ti, n) == c.Call.ID {
				return n
			}
		}
	}
	return slotEnd
}

const slotEnd = -3

// lastChunks returns the index of the last chunk of each stream.
func lastChunks(a *answer) map[int]int {
	last := make(map[int]int, len(a.t.Calls)+2)
	for i := range a.chunks {
		last[chunkSlot(a.t, a.turn, &a.chunks[i])] = i
	}
	return last
}

// slotOrder returns the streams of an answer in the order they start.
func slotOrder(a *answer) []int {
	var order []int
	seen := map[int]bool{slotEnd: true}
	for i := range a.chunks {
		if s := chunkSlot(a.t, a.turn, &a.chunks[i]); !seen[s] {
			seen[s] = true
			order = append(order, s)
		}
	}
	return order
}
