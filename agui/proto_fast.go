package agui

import (
	"math"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/aguitest/aguitest/internal/aguipb"
)

// The fast path for the events that make up most of a stream (text,
// tool-call, reasoning and step events, run starts and ends): flat
// messages of strings whose JSON form needs no rewriting. It writes the JSON straight from the wire
// and gives up (ok false) on anything the general decoder must judge:
// other fields, repeated fields, invalid UTF-8, base fields other than
// the type and timestamp.

// pbFlat marks the arms the fast path may decode.
var pbFlat = func() (flat [32]bool) {
	for _, a := range aguipb.Arms {
		switch EventType(a.Typ) {
		case TextMessageStart, TextMessageContent, TextMessageEnd, TextMessageChunk,
			ToolCallStart, ToolCallArgs, ToolCallEnd, ToolCallChunk, StepStarted, StepFinished,
			ReasoningStart, ReasoningMessageStart, ReasoningMessageContent, ReasoningMessageEnd,
			ReasoningMessageChunk, ReasoningEnd, ReasoningEncryptedValue, SubagentStarted, SubagentError,
			ToolCallResult, RunStarted, RunError:
			flat[a.Num] = true
		}
	}
	return flat
}()

// fastVarint reads a varint of at most ten bytes at b[i:].
func fastVarint(b []byte, i int) (uint64, int, bool) {
	var v uint64
	for n := 0; n < 10 && i+n < len(b); n++ {
		c := b[i+n]
		v |= uint64(c&0x7f) << (7 * n)
		if c < 0x80 {
			return v, i + n + 1, n < 9 || c <= 1
		}
	}
	return 0, 0, false
}

// decodeFlat appends the event's JSON to out, or reports false. The
// Event it returns is already indexed, its spans relative to where the
// JSON starts in out; its raw bytes are to be set by the caller.
func decodeFlat(b, out []byte) ([]byte, Event, bool) {
	var ev Event
	if len(b) < 2 {
		return nil, ev, false
	}
	tag, i, ok := fastVarint(b, 0)
	num := int(tag >> 3)
	if !ok || tag&7 != 2 || num < 1 || num > 31 || !pbFlat[num] {
		return nil, ev, false
	}
	n, i, ok := fastVarint(b, i)
	if !ok || uint64(len(b)-i) != n {
		return nil, ev, false // more than the one arm
	}
	arm := &aguipb.Arms[num-1]
	var spans [8][2]int // by field number: the last value's bytes
	var seen uint32
	hasBase, typ, ts, hasTS := false, uint64(0), int64(0), false
	for j := i; j < len(b); {
		t, k, ok := fastVarint(b, j)
		if !ok {
			return nil, ev, false
		}
		f := int(t >> 3)
		if t&7 != 2 || f < 1 || f >= len(spans) || f > len(arm.Msg.Fields) {
			return nil, ev, false
		}
		l, k, ok := fastVarint(b, k)
		if !ok || l > uint64(len(b)-k) {
			return nil, ev, false
		}
		end := k + int(l)
		if f == 1 {
			hasBase = true
			for p := k; p < end; {
				bt, q, ok := fastVarint(b, p)
				if !ok {
					return nil, ev, false
				}
				v, q, ok := fastVarint(b, q)
				switch {
				case !ok:
					return nil, ev, false
				case bt == 1<<3:
					typ = v
				case bt == 2<<3:
					ts, hasTS = int64(v), true
				default:
					return nil, ev, false
				}
				p = q
			}
		} else {
			if arm.Msg.Fields[f-1].Kind != aguipb.KindString || !utf8.Valid(b[k:end]) {
				return nil, ev, false
			}
			spans[f] = [2]int{k, end}
			seen |= 1 << f
		}
		j = end
	}
	if arm.Typ == string(ToolCallResult) && seen&(1<<5) == 0 {
		return nil, ev, false // no string content: the content parts become it
	}
	if !hasBase || typ >= uint64(len(aguipb.EnumTypes)) || aguipb.EnumTypes[typ] != arm.Typ || ts > aguipb.MaxSafeInt || ts < -aguipb.MaxSafeInt {
		return nil, ev, false
	}
	base := len(out)
	out = append(out, '{')
	for _, f := range arm.Msg.Fields[1:] {
		present := seen&(1<<f.Num) != 0
		if !present && (f.Opt || f.Kind != aguipb.KindString) {
			continue // fields of other kinds are absent here
		}
		if len(out) > base+1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, f.Name...)
		out = append(out, '"', ':')
		sp := spans[f.Num]
		start := len(out)
		out = appendQuotedUTF8(out, b[sp[0]:sp[1]])
		if x := indexOf([]byte(f.Name)); x >= 0 {
			ev.f[x] = span{Start: int32(start - base), End: int32(len(out) - base), Kind: kindString,
				Escaped: len(out)-start != sp[1]-sp[0]+2}
		} else {
			ev.other = true
		}
	}
	if len(out) > base+1 {
		out = append(out, ',')
	}
	out = append(out, `"type":`...)
	start := len(out)
	out = append(out, '"')
	out = append(out, arm.Typ...)
	out = append(out, '"')
	ev.f[fType] = span{Start: int32(start - base), End: int32(len(out) - base), Kind: kindString}
	ev.typ, ev.code = internType([]byte(arm.Typ))
	if hasTS {
		out = append(out, `,"timestamp":`...)
		start := len(out)
		out = append(out, formatJSNumber(float64(ts))...)
		if x := indexOf([]byte("timestamp")); x >= 0 {
			ev.f[x] = span{Start: int32(start - base), End: int32(len(out) - base), Kind: kindNumber}
		} else {
			ev.other = true
		}
	}
	return append(out, '}'), ev, true
}

// encodeFlat encodes an event of a flat type whose fields all have a
// place in its message, with no loss: strings where strings go, an
// integer timestamp, and every required string present. Anything else
// (reports false) takes the general path, which finds the losses.
func encodeFlat(e Event) ([]byte, bool) {
	arm := aguipb.ArmByType[string(e.typ)]
	if arm == nil || !pbFlat[arm.Num] || len(e.raw) == 0 {
		return nil, false
	}
	var vals [8]span
	var seen uint32
	ts, hasTS, ok := int64(0), false, true
	eachMember(e.raw, func(key []byte, escaped bool, v span) bool {
		if escaped {
			ok = false
			return false
		}
		k := key[1 : len(key)-1]
		switch string(k) {
		case "type":
			return true
		case "timestamp":
			f, err := strconv.ParseFloat(string(e.raw[v.Start:v.End]), 64)
			if v.Kind != kindNumber || err != nil || f != math.Trunc(f) || math.Abs(f) > aguipb.MaxSafeInt {
				ok = false
				return false
			}
			ts, hasTS = int64(f), true
			return true
		}
		f := arm.Msg.ByName[string(k)]
		if f == nil || f.Kind != aguipb.KindString || f.Num >= len(vals) || v.Kind != kindString ||
			v.Escaped && loneSurrogate(e.raw[v.Start:v.End]) {
			ok = false
			return false
		}
		vals[f.Num] = v
		seen |= 1 << f.Num
		return true
	})
	if !ok {
		return nil, false
	}
	payload := make([]byte, 0, len(e.raw))
	base := protowire.AppendVarint(nil, 1<<3)
	base = protowire.AppendVarint(base, uint64(aguipb.EnumByType[string(e.typ)]))
	if aguipb.EnumByType[string(e.typ)] == 0 {
		base = base[:0]
	}
	if hasTS {
		base = protowire.AppendVarint(protowire.AppendVarint(base, 2<<3), uint64(ts))
	}
	payload = protowire.AppendBytes(protowire.AppendVarint(payload, 1<<3|2), base)
	for _, f := range arm.Msg.Fields[1:] {
		present := seen&(1<<f.Num) != 0
		if f.Kind != aguipb.KindString {
			continue // absent: not a member
		}
		if !present {
			if !f.Opt {
				return nil, false // comes back as "": a loss
			}
			continue
		}
		s := e.spanString(vals[f.Num])
		if s == "" && !f.Opt {
			continue
		}
		payload = protowire.AppendString(protowire.AppendVarint(payload, uint64(f.Num)<<3|2), s)
	}
	if arm.Typ == string(ToolCallResult) && seen&(1<<5) == 0 {
		return nil, false // no string content
	}
	b := protowire.AppendVarint(make([]byte, 0, len(payload)+4), uint64(arm.Num)<<3|2)
	return protowire.AppendBytes(b, payload), true
}

// loneSurrogate reports whether a JSON string literal escapes a surrogate
// (which may be unpaired: its UTF-8 form would not give it back).
func loneSurrogate(lit []byte) bool {
	for i := 0; i+2 < len(lit); i++ {
		if lit[i] == '\\' && lit[i+1] == 'u' && (lit[i+2] == 'd' || lit[i+2] == 'D') {
			return true
		}
		if lit[i] == '\\' {
			i++ // skip the escaped byte
		}
	}
	return false
}
