package recorder

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonx"
)

// Redaction across a provider's stream: the text deltas of one text (a
// choice's content, a call's arguments, a content block) are scattered
// over many stream events, each a JSON object, so a key the model streams
// in pieces never stands whole in the response's bytes. Each wire says
// where its deltas are (providerWires); the deltas of one lane are decoded
// and joined, searched as one text, and a credential found is cut out of
// the response's bytes where its pieces are: the first piece gets
// "[REDACTED]", the later ones lose theirs.

// A providerWire says where one provider wire streams text in pieces. A
// wire plugs in by adding its entry: which of its stream events carry
// deltas (by their "type", or a member they have) and where, as JSON
// pointers. The framing needs nothing: the response is read as lines
// (server-sent events' "data:" lines, NDJSON, or frames a Transport
// records decoded, one JSON object after another), every JSON object in
// them an event.
type providerWire struct {
	name string
	// types, when set, are the values of the event's "type" member that
	// carry deltas.
	types []string
	// has, when set, is a member the event must have.
	has string
	// deltas are the pointers of the delta strings. A "*" segment matches
	// every element of an array, and the element's "index" member (or its
	// position) names its lane; "#" matches every element and names no
	// lane (Gemini's parts) but by a "thought" member. A pointer ending in "!" is JSON text (a
	// call's arguments).
	deltas []string
	// lane names members of the event whose values name the lane too.
	lane []string
}

// providerWires are the wires whose text deltas are joined.
var providerWires = []providerWire{
	{name: "openai-chat", has: "choices", deltas: []string{
		"/choices/*/delta/content", "/choices/*/delta/reasoning_content", "/choices/*/delta/reasoning",
		"/choices/*/delta/refusal", "/choices/*/delta/tool_calls/*/function/arguments!", "/choices/*/text",
	}},
	{name: "openai-responses", types: []string{
		"response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta",
		"response.reasoning_summary_text.delta", "response.output_audio_transcript.delta",
	}, deltas: []string{"/delta"}, lane: []string{"type", "item_id", "output_index", "content_index", "summary_index"}},
	{name: "openai-responses-args", types: []string{
		"response.function_call_arguments.delta", "response.custom_tool_call_input.delta", "response.mcp_call_arguments.delta",
	}, deltas: []string{"/delta!"}, lane: []string{"item_id", "output_index"}},
	{name: "anthropic", types: []string{"content_block_delta"},
		deltas: []string{"/delta/text", "/delta/thinking", "/delta/partial_json!"}, lane: []string{"index"}},
	{name: "gemini", has: "candidates", deltas: []string{"/candidates/*/content/parts/#/text"}},
	// Ollama's NDJSON (chat and generate) and Bedrock's ConverseStream
	// events, read as JSON.
	{name: "ollama", has: "done", deltas: []string{"/message/content", "/message/thinking", "/response"}},
	{name: "bedrock-converse", has: "contentBlockIndex",
		deltas: []string{"/delta/text", "/delta/reasoningContent/text", "/delta/toolUse/input!"}, lane: []string{"contentBlockIndex"}},
}

// wirePiece is one delta of a lane: its place in the lane's text and its
// string token in the response.
type wirePiece struct {
	lo, hi     int // in the lane's text
	tokS, tokE int // the string token (quotes included) in the response
	escaped    bool
}

type wireLane struct {
	json   bool
	text   []byte
	pieces []wirePiece
}

// wireSpans adds the spans of credentials split between the text deltas
// of a provider's stream in all, the response's bytes.
func (rd *Redact) wireSpans(all []byte, spans []span) []span {
	var lanes map[string]*wireLane
	var order []string
	forEachJSONObject(all, func(s, e int) {
		for wi := range providerWires {
			w := &providerWires[wi]
			if !w.carries(all, s) {
				continue
			}
			prefix := w.name
			for _, m := range w.lane {
				if vs, ve, ok := member(all, s, m); ok {
					prefix += "|" + string(all[vs:ve])
				}
			}
			for _, p := range w.deltas {
				json := strings.HasSuffix(p, "!")
				p = strings.TrimSuffix(p, "!")
				segs := strings.Split(p[1:], "/")
				findStrings(all, s, segs, prefix+"|"+p, func(key string, ts, te int) {
					if lanes == nil {
						lanes = map[string]*wireLane{}
					}
					l := lanes[key]
					if l == nil {
						l = &wireLane{json: json}
						lanes[key] = l
						order = append(order, key)
					}
					tok := all[ts:te]
					pc := wirePiece{lo: len(l.text), tokS: ts, tokE: te}
					if indexByte(tok, '\\') >= 0 {
						pc.escaped = true
						l.text = append(l.text, jsonStringValue(tok)...)
					} else {
						l.text = append(l.text, tok[1:len(tok)-1]...)
					}
					pc.hi = len(l.text)
					l.pieces = append(l.pieces, pc)
				})
			}
		}
	})
	for _, key := range order {
		l := lanes[key]
		if len(l.pieces) < 2 && !l.pieces[0].escaped {
			continue // one piece stands whole in the response: found there
		}
		found := mergeSpans(rd.laneSpans(l.text, l.json, nil))
		for _, f := range found {
			first := true
			for _, pc := range l.pieces {
				a, b := max(f.start, pc.lo), min(f.end, pc.hi)
				if a >= b {
					continue
				}
				ra, rb := rawRange(all, pc, a-pc.lo, b-pc.lo)
				if rb > ra {
					spans = append(spans, span{start: ra, end: rb, drop: !first})
				}
				first = false
			}
		}
	}
	return spans
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// carries reports whether the event at all[s] is one of the wire's.
func (w *providerWire) carries(all []byte, s int) bool {
	if w.has != "" {
		if _, _, ok := member(all, s, w.has); !ok {
			return false
		}
	}
	if len(w.types) > 0 {
		vs, ve, ok := member(all, s, "type")
		if !ok || all[vs] != '"' {
			return false
		}
		t := string(all[vs+1 : ve-1])
		for _, x := range w.types {
			if x == t {
				return true
			}
		}
		return false
	}
	return true
}

// forEachJSONObject calls f with the bounds of every JSON object of the
// response in all: each line, after an SSE "data:" prefix, read as JSON
// values one after another.
func forEachJSONObject(all []byte, f func(s, e int)) {
	for i := 0; i < len(all); {
		end := i
		for end < len(all) && all[end] != '\n' {
			end++
		}
		line := all[i:end]
		k := 0
		if len(line) >= 5 && string(line[:5]) == "data:" {
			k = 5
		}
		for k < len(line) {
			k = jsonx.SkipSpace(line, k)
			if k >= len(line) || line[k] != '{' {
				break
			}
			_, ve, _, err := jsonx.ScanValue(all[:end], i+k)
			if err != nil {
				break
			}
			f(i+k, ve)
			k = ve - i
		}
		i = end + 1
	}
}

// member returns the bounds of the value of the object at b[s]'s member
// name, a key written without escapes.
func member(b []byte, s int, name string) (int, int, bool) {
	i := jsonx.SkipSpace(b, s+1)
	for i < len(b) && b[i] == '"' {
		ke, _, err := jsonx.ScanString(b, i)
		if err != nil {
			return 0, 0, false
		}
		vs := jsonx.SkipSpace(b, ke)
		if vs >= len(b) || b[vs] != ':' {
			return 0, 0, false
		}
		vs = jsonx.SkipSpace(b, vs+1)
		_, ve, _, err := jsonx.ScanValue(b, vs)
		if err != nil {
			return 0, 0, false
		}
		if string(b[i+1:ke-1]) == name {
			return vs, ve, true
		}
		i = jsonx.SkipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i = jsonx.SkipSpace(b, i+1)
		}
	}
	return 0, 0, false
}

// findStrings calls f with the lane key and the bounds of every string the
// pointer segs reaches from the value at b[i].
func findStrings(b []byte, i int, segs []string, key string, f func(key string, ts, te int)) {
	if len(segs) == 0 {
		if b[i] == '"' {
			_, te, _, err := jsonx.ScanValue(b, i)
			if err == nil {
				f(key, i, te)
			}
		}
		return
	}
	seg := segs[0]
	switch seg {
	case "*", "#":
		if b[i] != '[' {
			return
		}
		k := jsonx.SkipSpace(b, i+1)
		for n := 0; k < len(b) && b[k] != ']'; n++ {
			_, ve, _, err := jsonx.ScanValue(b, k)
			if err != nil {
				return
			}
			sub := key
			if seg == "*" {
				name := strconv.Itoa(n)
				if b[k] == '{' {
					if vs, ve2, ok := member(b, k, "index"); ok {
						name = string(b[vs:ve2])
					}
				}
				sub += "|" + name
			}
			if b[k] == '{' {
				// Gemini's thought parts are a text of their own.
				if vs, ve2, ok := member(b, k, "thought"); ok {
					sub += "|thought=" + string(b[vs:ve2])
				}
			}
			findStrings(b, k, segs[1:], sub, f)
			k = jsonx.SkipSpace(b, ve)
			if k < len(b) && b[k] == ',' {
				k = jsonx.SkipSpace(b, k+1)
			}
		}
	default:
		if b[i] != '{' {
			return
		}
		if vs, _, ok := member(b, i, seg); ok {
			findStrings(b, vs, segs[1:], key, f)
		}
	}
}

// rawRange returns the bytes of the response holding the decoded bytes
// [a, b) of a piece: whole escapes, so that what replaces them leaves the
// string valid.
func rawRange(all []byte, pc wirePiece, a, b int) (int, int) {
	if !pc.escaped {
		return pc.tokS + 1 + a, pc.tokS + 1 + b
	}
	// Walk the token, decoding, until the decoded offsets are passed.
	tok := all[pc.tokS:pc.tokE]
	ra, rb := -1, -1
	d := 0 // decoded bytes so far
	for r := 1; r < len(tok)-1; {
		n, w := 1, 1 // decoded and raw widths of this unit
		if tok[r] == '\\' && r+1 < len(tok)-1 {
			w = 2
			if tok[r+1] == 'u' && r+6 <= len(tok)-1 {
				w = 6
				v, _ := strconv.ParseUint(string(tok[r+2:r+6]), 16, 32)
				ru := rune(v)
				if utf16.IsSurrogate(ru) && r+12 <= len(tok)-1 && tok[r+6] == '\\' && tok[r+7] == 'u' {
					v2, _ := strconv.ParseUint(string(tok[r+8:r+12]), 16, 32)
					if p := utf16.DecodeRune(ru, rune(v2)); p != utf8.RuneError {
						ru = p
						w = 12
					}
				}
				if utf16.IsSurrogate(ru) {
					ru = utf8.RuneError
				}
				n = utf8.RuneLen(ru)
			}
		} else if tok[r] >= utf8.RuneSelf {
			_, size := utf8.DecodeRune(tok[r : len(tok)-1])
			n, w = size, size
		}
		if ra < 0 && d+n > a {
			ra = r
		}
		if d+n >= b {
			rb = r + w
			break
		}
		d += n
		r += w
	}
	if ra < 0 {
		return 0, 0
	}
	if rb < 0 {
		rb = len(tok) - 1
	}
	return pc.tokS + ra, pc.tokS + rb
}
