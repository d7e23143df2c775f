package golden

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Difference is one entry that differs between a golden and a new stream.
// Index and WantIndex count from 0; messages number entries from 1, so
// that "event N" of a golden is its line N.
type Difference struct {
	// Index is the entry's index in got; for a missing entry, the index in
	// got where it was expected.
	Index int
	// WantIndex is the entry's index in want, or -1 for an unexpected
	// entry.
	WantIndex int
	// Want is the golden entry, nil when got has an entry the golden does
	// not.
	Want Entry
	// Got is the new entry, nil when it is missing.
	Got Entry
	// IDs are the ids the entry carries (of Got, or of Want when missing).
	IDs []string
	// Diff is the difference, (-want +got), in lines: the golden line of
	// Want after "- " and that of Got after "+ " (one of them alone for a
	// missing or unexpected entry), with the golden's ids renamed as
	// Compare explains; then, for an entry in both, one line for each
	// value that differs, by its path in the entry:
	//
	//	  .args.unit: got "F", want none
	Diff string
}

// String describes the difference on one line followed by the indented
// diff. Entries are numbered from 1:
//
//	event 4 (TOOL_CALL call-2 msg-1): (-want +got)
//	event 5 (TEXT_MESSAGE msg-2), event 4 in want: (-want +got)
//	event 6 (STEP_STARTED) unexpected: (-want +got)
//	event 3 in want (STEP_FINISHED) missing before event 7: (-want +got)
func (d Difference) String() string {
	var b strings.Builder
	e, n, in := d.Got, d.Index, ""
	if d.Got == nil {
		e, n, in = d.Want, d.WantIndex, " in want"
	}
	fmt.Fprintf(&b, "event %d%s (%s", n+1, in, e.Type())
	for _, id := range d.IDs {
		b.WriteString(" " + id)
	}
	b.WriteString(")")
	switch {
	case d.Got == nil:
		fmt.Fprintf(&b, " missing before event %d", d.Index+1)
	case d.Want == nil:
		b.WriteString(" unexpected")
	case d.WantIndex != d.Index:
		fmt.Fprintf(&b, ", event %d in want", d.WantIndex+1)
	}
	b.WriteString(": (-want +got)\n")
	for _, line := range strings.Split(strings.TrimRight(d.Diff, "\n"), "\n") {
		b.WriteString("\t" + line + "\n")
	}
	return b.String()
}

// Compare aligns want and got entry by entry and returns what differs, in
// order.
//
// Entries are aligned on their type and the kinds of their ids (a longest
// common subsequence), so that one inserted or missing entry is reported as
// such and does not make every later entry differ. Placeholders are
// numbered by first appearance, so one extra id renumbers every later one
// of its kind: the ids of aligned entries are therefore matched one to one,
// and the golden's ids are renamed to the new stream's before comparing. A
// changed identity (one id where the golden has two, or the reverse) still
// shows. Aligned entries that are not equal are compared value by value.
func Compare(want, got []Entry) []Difference {
	pairs := align(want, got)
	rename := matchIDs(want, got, pairs)
	var diffs []Difference
	for _, p := range pairs {
		var w, g Entry
		if p.w >= 0 {
			w = want[p.w]
		}
		if p.g >= 0 {
			g = got[p.g]
		}
		rw := w
		if w != nil {
			rw = renameIDs(w, rename).(Entry)
		}
		if w != nil && g != nil && string(Marshal([]Entry{rw})) == string(Marshal([]Entry{g})) {
			continue
		}
		d := Difference{Index: p.g, WantIndex: p.w, Want: w, Got: g, Diff: diff(rw, g)}
		if g != nil {
			d.IDs = g.IDs()
		} else {
			d.IDs = w.IDs()
			d.Index = p.at
		}
		diffs = append(diffs, d)
	}
	return diffs
}

// Limits of a difference's text: the longest golden line and value shown
// whole, and the most value lines listed.
const (
	maxLine   = 2000
	maxValue  = 200
	maxValues = 20
)

// diff returns the difference of two entries, (-want +got): their golden
// lines, then the values that differ.
func diff(want, got Entry) string {
	var b strings.Builder
	if want != nil {
		b.WriteString("- " + clip(strings.TrimSuffix(string(Marshal([]Entry{want})), "\n"), maxLine) + "\n")
	}
	if got != nil {
		b.WriteString("+ " + clip(strings.TrimSuffix(string(Marshal([]Entry{got})), "\n"), maxLine) + "\n")
	}
	if want == nil || got == nil {
		return b.String()
	}
	var lines []string
	values("", map[string]any(want), map[string]any(got), true, &lines)
	for i, l := range lines {
		if i == maxValues {
			fmt.Fprintf(&b, "  ... and %d more\n", len(lines)-maxValues)
			break
		}
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// values appends a line for each value that differs between want and got,
// named by its path (.key, [index]): "path: got X, want Y", where a value
// missing on one side is "none".
func values(path string, want, got any, top bool, out *[]string) {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		union := make(map[string]any, len(wm)+len(gm))
		for k := range wm {
			union[k] = nil
		}
		for k := range gm {
			union[k] = nil
		}
		for _, k := range orderedKeys(union, top) {
			w, inW := wm[k]
			g, inG := gm[k]
			p := path + key(k)
			switch {
			case !inW:
				*out = append(*out, clipMiddle(p, maxValue)+": got "+show(g)+", want none")
			case !inG:
				*out = append(*out, clipMiddle(p, maxValue)+": got none, want "+show(w))
			default:
				values(p, w, g, false, out)
			}
		}
		return
	}
	wa, wok := want.([]any)
	ga, gok := got.([]any)
	if wok && gok {
		for i := range max(len(wa), len(ga)) {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(wa):
				*out = append(*out, clipMiddle(p, maxValue)+": got "+show(ga[i])+", want none")
			case i >= len(ga):
				*out = append(*out, clipMiddle(p, maxValue)+": got none, want "+show(wa[i]))
			default:
				values(p, wa[i], ga[i], false, out)
			}
		}
		return
	}
	if w, g := canonical(want), canonical(got); w != g {
		if path == "" {
			path = "."
		}
		*out = append(*out, clipMiddle(path, maxValue)+": got "+clip(g, maxValue)+", want "+clip(w, maxValue))
	}
}

// canonical returns a value as golden JSON.
func canonical(v any) string {
	var b bytes.Buffer
	writeValue(&b, v, false)
	return b.String()
}

// key returns the path step of an object key: .name, or .["any key"].
func key(k string) string {
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 && !(k[0] >= '0' && k[0] <= '9') {
		return "." + k
	}
	var b bytes.Buffer
	writeString(&b, k)
	return ".[" + b.String() + "]"
}

// show returns a value as golden JSON, clipped.
func show(v any) string { return clip(canonical(v), maxValue) }

// clipMiddle shortens a path to about n bytes, keeping its start and its
// end.
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n/2, len(s)-n/2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + "…" + s[tail:]
}

// clip shortens s to about n bytes, on a rune boundary, saying how long
// it was.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

// matchIDs pairs the ids of aligned entries, position by position, one to
// one: the first pairing of an id wins.
func matchIDs(want, got []Entry, pairs []pair) map[string]string {
	rename := make(map[string]string)
	taken := make(map[string]bool)
	for _, p := range pairs {
		if p.w < 0 || p.g < 0 {
			continue
		}
		wi, gi := want[p.w].IDs(), got[p.g].IDs()
		for i := range min(len(wi), len(gi)) {
			if _, done := rename[wi[i]]; done || taken[gi[i]] {
				continue
			}
			rename[wi[i]] = gi[i]
			taken[gi[i]] = true
		}
	}
	// A golden id left unmatched must not pass for the new stream's id of
	// the same name, which stands for another golden id.
	for _, e := range want {
		for _, id := range e.IDs() {
			if _, done := rename[id]; !done && taken[id] {
				rename[id] = "golden:" + id
			}
		}
	}
	return rename
}

// renameIDs returns a copy of v with every string equal to a renamed id
// replaced.
func renameIDs(v any, rename map[string]string) any {
	switch x := v.(type) {
	case string:
		if r, ok := rename[x]; ok {
			return r
		}
	case Entry:
		return Entry(renameIDs(map[string]any(x), rename).(map[string]any))
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, y := range x {
			c[k] = renameIDs(y, rename)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, y := range x {
			c[i] = renameIDs(y, rename)
		}
		return c
	}
	return v
}

// Report formats differences for a test failure or a command's output:
// one paragraph per entry, as Difference.String.
func Report(diffs []Difference) string {
	var b strings.Builder
	for _, d := range diffs {
		b.WriteString(d.String())
	}
	return b.String()
}

// pair is one step of an alignment: indexes in want and got, -1 for none.
// For a missing entry, at is where in got it was expected.
type pair struct{ w, g, at int }

// maxCells bounds the LCS table; beyond it the middle is aligned by index.
const maxCells = 1 << 22

// align matches want and got on entry keys: common prefix and suffix first,
// then a longest common subsequence of the middle in which a pair whose
// content (ids aside) is equal counts double, so that of two candidates the
// equal one is matched.
func align(want, got []Entry) []pair {
	wk, gk := keys(want, got)
	pre := 0
	for pre < len(wk) && pre < len(gk) && wk[pre] == gk[pre] {
		pre++
	}
	suf := 0
	for suf < len(wk)-pre && suf < len(gk)-pre && wk[len(wk)-1-suf] == gk[len(gk)-1-suf] {
		suf++
	}
	var out []pair
	for i := 0; i < pre; i++ {
		out = append(out, pair{i, i, i})
	}
	mw, mg := wk[pre:len(wk)-suf], gk[pre:len(gk)-suf]
	n, m := len(mw), len(mg)
	weight := func(i, j int) int32 {
		switch {
		case mw[i] == mg[j]:
			return 2
		case mw[i].kinds == mg[j].kinds:
			return 1
		}
		return 0
	}
	if n*m > maxCells {
		for i := 0; i < max(n, m); i++ {
			p := pair{-1, -1, pre + min(i, m)}
			if i < n {
				p.w = pre + i
			}
			if i < m {
				p.g = pre + i
			}
			out = append(out, p)
		}
	} else {
		// l[i][j] is the best score aligning mw[i:] with mg[j:].
		l := make([][]int32, n+1)
		for i := range l {
			l[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				l[i][j] = max(l[i+1][j], l[i][j+1])
				if w := weight(i, j); w > 0 {
					l[i][j] = max(l[i][j], l[i+1][j+1]+w)
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && weight(i, j) > 0 && l[i][j] == l[i+1][j+1]+weight(i, j):
				out = append(out, pair{pre + i, pre + j, pre + j})
				i++
				j++
			case j < m && (i == n || l[i][j+1] >= l[i+1][j]):
				out = append(out, pair{-1, pre + j, pre + j})
				j++
			default:
				out = append(out, pair{pre + i, -1, pre + j})
				i++
			}
		}
	}
	for k := 0; k < suf; k++ {
		out = append(out, pair{len(wk) - suf + k, len(gk) - suf + k, len(gk) - suf + k})
	}
	return out
}

// entryKey is what alignment compares: the type and kinds of an entry's
// ids, and its content without ids, each interned as a number.
type entryKey struct{ kinds, content int }

// keys returns the alignment keys of the entries of want and got: kinds
// from the type and the kinds of the ids ("msg" for "msg-2"), content from
// the golden text without the ids.
func keys(want, got []Entry) (wk, gk []entryKey) {
	intern := make(map[string]int)
	num := func(s string) int {
		n, ok := intern[s]
		if !ok {
			n = len(intern)
			intern[s] = n
		}
		return n
	}
	of := func(entries []Entry) []entryKey {
		ks := make([]entryKey, len(entries))
		for i, e := range entries {
			var b strings.Builder
			b.WriteString(e.Type())
			for _, id := range e.IDs() {
				b.WriteByte(0)
				kind, _, _ := strings.Cut(id, "-")
				b.WriteString(kind)
			}
			ks[i] = entryKey{num(b.String()), num(withoutIDs(e))}
		}
		return ks
	}
	return of(want), of(got)
}
