package scripted

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/words"
)

// A Plan says how a turn is cut into deltas, how its parallel calls are
// ordered on the stream, how calls are identified, and how it is paced.
// Every plan is a pure function of the turn, its fields and Seed: the same
// plan gives the same stream on every run.
//
// The zero Plan cuts into 8-byte fragments (never inside a character),
// streams reasoning, then text, then each call whole one after another,
// identifies calls the OpenAI way, and does not delay.
type Plan struct {
	Split Split   `yaml:"split,omitempty" json:"split,omitzero"`
	Order Order   `yaml:"order,omitempty" json:"order,omitzero"`
	IDs   IDStyle `yaml:"ids,omitempty" json:"ids,omitempty"`
	// Seed drives the random split and the shuffle order.
	Seed uint64 `yaml:"seed,omitempty" json:"seed,omitempty"`
	// First is the delay before the first chunk (time to first token).
	First Duration `yaml:"first,omitempty" json:"first,omitempty"`
	// Every is the delay before each later chunk.
	Every Duration `yaml:"every,omitempty" json:"every,omitempty"`
}

// String describes the plan, seed included, for failure messages.
func (p Plan) String() string {
	p = p.over(Plan{})
	s := fmt.Sprintf("split=%s order=%s ids=%s seed=%d", p.Split, p.Order, p.IDs, p.Seed)
	if p.First != 0 || p.Every != 0 {
		s += fmt.Sprintf(" first=%s every=%s", p.First.String(), p.Every.String())
	}
	return s
}

// String returns the duration as a Go duration ("250ms").
func (d Duration) String() string { b, _ := d.MarshalText(); return string(b) }

// over fills the zero fields of p from def, then from the defaults.
func (p Plan) over(def Plan) Plan {
	if p.Split == (Split{}) {
		p.Split = def.Split
	}
	if p.Order == (Order{}) {
		p.Order = def.Order
	}
	if p.IDs == "" {
		p.IDs = def.IDs
	}
	if p.Seed == 0 {
		p.Seed = def.Seed
	}
	if p.First == 0 {
		p.First = def.First
	}
	if p.Every == 0 {
		p.Every = def.Every
	}
	if p.IDs == "" {
		p.IDs = IDsFirst
	}
	if p.Order.By == "" {
		p.Order.By = Sequential
	}
	if p.Order.Text == "" {
		p.Order.Text = TextBefore
	}
	return p
}

// Unit names how a [Split] measures fragments.
type Unit string

// The split units.
const (
	Bytes  Unit = "bytes"  // Size bytes per fragment (default 8)
	Runes  Unit = "runes"  // Size characters per fragment (default 8)
	Words  Unit = "words"  // Size word-like tokens per fragment (default 1)
	Random Unit = "random" // seeded sizes from Min to Size bytes (default 1 to 16)
	Whole  Unit = "whole"  // one fragment
)

// A Split says how a text or an arguments string is cut into deltas.
// Explicit fragments are given on the [Turn] or [Call] instead.
type Split struct {
	// By is the unit; empty means Bytes.
	By Unit `yaml:"by,omitempty" json:"by,omitempty"`
	// Size is the fragment size in units (the maximum, for Random).
	Size int `yaml:"size,omitempty" json:"size,omitempty"`
	// Min is the smallest fragment of a Random split, in bytes.
	Min int `yaml:"min,omitempty" json:"min,omitempty"`
	// Escapes adds a cut inside every backslash escape ("\" | "n",
	// "\u00" | "e9"), as providers do when they stream JSON text.
	Escapes bool `yaml:"escapes,omitempty" json:"escapes,omitempty"`
	// MidRune lets byte cuts fall between the bytes of a multi-byte
	// character. The Go-native stream delivers such fragments as they are;
	// a JSON wire cannot carry half a character, so the server holds the
	// leading bytes back and sends them with the next fragment of the
	// same string. Without MidRune, cuts move forward to the next
	// character boundary.
	MidRune bool `yaml:"mid_rune,omitempty" json:"mid_rune,omitempty"`
	// Empty inserts an empty delta after every Empty-th fragment.
	Empty int `yaml:"empty,omitempty" json:"empty,omitempty"`
	// WithName sends the first fragment of each call's arguments in the
	// call's first delta, with its id and name; with a Whole split, the
	// name and the full arguments arrive in one chunk, as
	// OpenAI-compatible servers that send a call whole do. Gemini always
	// sends calls so; the Responses and Anthropic wires cannot (their
	// first event of a call carries no arguments).
	WithName bool `yaml:"with_name,omitempty" json:"with_name,omitempty"`
	// NoArgs sends a call whose arguments are {} with no argument delta
	// at all, as Anthropic streams a call to a tool without parameters:
	// the client reads no arguments. The Responses and Gemini wires
	// cannot (they carry a call's arguments whole at its end).
	NoArgs bool `yaml:"no_args,omitempty" json:"no_args,omitempty"`
}

// String describes the split, e.g. "bytes/8+escapes".
func (sp Split) String() string {
	by := sp.By
	if by == "" {
		by = Bytes
	}
	s := string(by)
	if by != Whole {
		s += "/" + strconv.Itoa(sp.size())
	}
	if by == Random {
		s = fmt.Sprintf("random/%d-%d", sp.min(), sp.size())
	}
	if sp.Escapes {
		s += "+escapes"
	}
	if sp.MidRune {
		s += "+midrune"
	}
	if sp.Empty > 0 {
		s += fmt.Sprintf("+empty/%d", sp.Empty)
	}
	if sp.WithName {
		s += "+with-name"
	}
	if sp.NoArgs {
		s += "+no-args"
	}
	return s
}

func (sp Split) size() int {
	if sp.Size > 0 {
		return sp.Size
	}
	switch sp.By {
	case Words:
		return 1
	case Random:
		return 16
	}
	return 8
}

func (sp Split) min() int {
	if sp.Min > 0 {
		return sp.Min
	}
	return 1
}

func (sp Split) validate() error {
	switch sp.By {
	case "", Bytes, Runes, Words, Random, Whole:
	default:
		return fmt.Errorf("unknown split %q: want bytes, runes, words, random or whole", sp.By)
	}
	if sp.Size < 0 || sp.Min < 0 || sp.Empty < 0 {
		return errors.New("split size, min and empty must not be negative")
	}
	if sp.By == Random && sp.min() > sp.size() {
		return fmt.Errorf("random split: min %d is above size %d", sp.min(), sp.size())
	}
	return nil
}

// Cut cuts s into fragments by the split; seed drives a Random split.
// The fragments always join back to s; Cut is a pure function of its
// arguments. The empty string has no fragments.
func (sp Split) Cut(s string, seed uint64) []string {
	if s == "" {
		return nil
	}
	cuts := sp.cuts(s, seed)
	if sp.Escapes {
		cuts = append(cuts, escapeCuts(s)...)
		slices.Sort(cuts)
	}
	if !sp.MidRune {
		for i, c := range cuts {
			for c < len(s) && !utf8.RuneStart(s[c]) {
				c++
			}
			cuts[i] = c
		}
	}
	cuts = slices.Compact(cuts)
	out := make([]string, 0, len(cuts)+1)
	prev, n := 0, 0
	add := func(frag string) {
		out = append(out, frag)
		n++
		if sp.Empty > 0 && n%sp.Empty == 0 {
			out = append(out, "")
		}
	}
	for _, c := range cuts {
		if c <= prev || c >= len(s) {
			continue
		}
		add(s[prev:c])
		prev = c
	}
	add(s[prev:])
	return out
}

// cuts returns the cut offsets of the unit, ascending, each in (0, len(s)).
func (sp Split) cuts(s string, seed uint64) []int {
	var cuts []int
	size := sp.size()
	switch sp.By {
	case Whole:
	case Runes:
		n := 0
		for i := range s {
			if n > 0 && n%size == 0 {
				cuts = append(cuts, i)
			}
			n++
		}
	case Words:
		for n, c := range wordCuts(s) {
			if (n+1)%size == 0 {
				cuts = append(cuts, c)
			}
		}
	case Random:
		rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		lo := sp.min()
		for i := 0; ; {
			i += lo + rng.IntN(size-lo+1)
			if i >= len(s) {
				break
			}
			cuts = append(cuts, i)
		}
	default:
		for i := size; i < len(s); i += size {
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// wordCuts returns the end offset of each word-like token but the last:
// a run of letters or digits with at most one leading space, a run of
// other white space, or a single other character.
func wordCuts(s string) []int {
	var cuts []int
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == ' ' && i+n < len(s) {
			if r2, _ := utf8.DecodeRuneInString(s[i+n:]); isWord(r2) {
				i += n
				r, n = utf8.DecodeRuneInString(s[i:])
			}
		}
		switch {
		case isWord(r):
			for i < len(s) {
				r, n = utf8.DecodeRuneInString(s[i:])
				if !isWord(r) {
					break
				}
				i += n
			}
		case unicode.IsSpace(r):
			for i < len(s) {
				r, n = utf8.DecodeRuneInString(s[i:])
				if !unicode.IsSpace(r) {
					break
				}
				i += n
			}
		default:
			i += n
		}
		if i < len(s) {
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// escapeCuts returns a cut right after every backslash of an escape
// sequence, and one in the middle of the hex digits of \uXXXX.
func escapeCuts(s string) []int {
	var cuts []int
	for i := 0; i < len(s)-1; i++ {
		if s[i] != '\\' {
			continue
		}
		cuts = append(cuts, i+1)
		if s[i+1] == 'u' && i+4 < len(s) {
			cuts = append(cuts, i+4)
		}
		i++ // the escaped character is not the start of another escape
	}
	return cuts
}

// OrderKind names how the deltas of parallel calls are ordered.
type OrderKind string

// The call orders.
const (
	Sequential OrderKind = "sequential"  // each call whole, in index order
	RoundRobin OrderKind = "round-robin" // one delta of each call in turn
	Reverse    OrderKind = "reverse"     // each call whole, last index first
	Shuffle    OrderKind = "shuffle"     // seeded shuffle; each call's deltas stay in order
	Scheduled  OrderKind = "schedule"    // Order.Schedule
)

// Placement says where text goes relative to the calls.
type Placement string

// The text placements.
const (
	TextBefore  Placement = "before"  // all text, then the calls
	TextBetween Placement = "between" // text deltas spread evenly between call deltas
	TextAfter   Placement = "after"   // the calls, then all text
)

// An Order says how the deltas of a turn follow each other on the stream.
// Reasoning always comes first unless a schedule places it.
type Order struct {
	// By is the call order; empty means Sequential.
	By OrderKind `yaml:"by,omitempty" json:"by,omitempty"`
	// Schedule, for By: schedule, lists which stream sends its next delta,
	// separated by spaces, e.g. "a b a c b". An entry names a call by id,
	// by name (when no other call of the turn has it) or by number from 1
	// ("#1" is the first call);
	// "text" and "reasoning" name those streams. A call's first delta
	// carries its id and name. Entries past the end of a stream are
	// skipped; what the schedule leaves out follows in Sequential order.
	Schedule string `yaml:"schedule,omitempty" json:"schedule,omitempty"`
	// Text places the text; empty means TextBefore. Ignored for a
	// schedule that names "text".
	Text Placement `yaml:"text,omitempty" json:"text,omitempty"`
}

// String describes the order, e.g. "schedule(a b a)".
func (o Order) String() string {
	s := string(o.By)
	if o.By == Scheduled {
		s += "(" + o.Schedule + ")"
	}
	if o.Text != TextBefore && o.Text != "" {
		s += ",text-" + string(o.Text)
	}
	return s
}

func (o Order) validate(calls []Call, turn int) error {
	switch o.By {
	case "", Sequential, RoundRobin, Reverse, Shuffle:
		if o.Schedule != "" {
			return fmt.Errorf("a schedule needs order by: schedule, not %q", o.By)
		}
	case Scheduled:
		if strings.TrimSpace(o.Schedule) == "" {
			return errors.New("order by schedule needs a schedule")
		}
	default:
		return fmt.Errorf("unknown order %q: want sequential, round-robin, reverse, shuffle or schedule", o.By)
	}
	switch o.Text {
	case "", TextBefore, TextBetween, TextAfter:
	default:
		return fmt.Errorf("unknown text placement %q: want before, between or after", o.Text)
	}
	if o.By == Scheduled && turn >= 0 {
		for _, e := range strings.Fields(o.Schedule) {
			if _, err := resolve(e, calls, turn); err != nil {
				return err
			}
		}
	}
	return nil
}

// Stream slots used by a schedule, besides call indexes 0..n-1.
const (
	slotText      = -1
	slotReasoning = -2
)

// resolve maps a schedule entry to a call index or a slot. turn is used to
// derive default ids; -1 matches explicit ids only.
func resolve(e string, calls []Call, turn int) (int, error) {
	for i, c := range calls {
		if c.ID != "" && c.ID == e || turn >= 0 && c.callID(turn, i) == e {
			return i, nil
		}
	}
	if rest, ok := strings.CutPrefix(e, "#"); ok {
		if i, err := strconv.Atoi(rest); err == nil && i >= 1 && i <= len(calls) {
			return i - 1, nil
		}
		return 0, fmt.Errorf("schedule entry %q: the turn has %s, #1 to #%d", e, words.Count(len(calls), "call", "calls"), len(calls))
	}
	switch e {
	case "text":
		return slotText, nil
	case "reasoning":
		return slotReasoning, nil
	}
	found := -1
	for i, c := range calls {
		if c.Name == e {
			if found >= 0 {
				return 0, fmt.Errorf("schedule entry %q: several calls have that name; use an id or #number", e)
			}
			found = i
		}
	}
	if found < 0 {
		var names []string
		for i, c := range calls {
			names = append(names, fmt.Sprintf("#%d %s", i+1, c.Name))
		}
		return 0, fmt.Errorf("schedule entry %q names no call of the turn (calls: %s)", e, strings.Join(names, ", "))
	}
	return found, nil
}

// IDStyle says how call deltas are identified on the wire.
type IDStyle string

// The id styles.
const (
	// IDsFirst is OpenAI's: index on every delta, id and name on the
	// first delta of a call only.
	IDsFirst IDStyle = "first"
	// IDsEvery puts the index and the id on every delta, the name on the
	// first only.
	IDsEvery IDStyle = "every"
	// IDsNoIndex omits the index, as some providers do, and puts the id on
	// every delta so interleaved calls can still be told apart. In the
	// Go-native stream, CallDelta.Index is -1.
	IDsNoIndex IDStyle = "no-index"
)

func (p Plan) validate(calls []Call, turn int) error {
	var errs []error
	if err := p.Split.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := p.Order.validate(calls, turn); err != nil {
		errs = append(errs, err)
	}
	switch p.IDs {
	case "", IDsFirst, IDsEvery, IDsNoIndex:
	default:
		errs = append(errs, fmt.Errorf("unknown ids style %q: want first, every or no-index", p.IDs))
	}
	return errors.Join(errs...)
}
