package agui

import (
	"bytes"
	"strconv"

	"github.com/aguitest/aguitest/internal/jsonx"
)

// The compatibility boundary: what HttpAgent of @ag-ui/client 1.0.0 does to
// every event before validating it. Retired shapes are translated into
// their 1.0 equivalents, and nulls the pre-1.0 protocol tolerated are
// removed:
//
//   - THINKING_* events become REASONING_* events. A THINKING opener gets
//     an id minted by the client (the legacy events carry none); a
//     continuation with no opener gets a fresh minted id each time, which
//     the verifier then rejects for naming something never opened.
//   - rawEvent: null (any event), result: null (RUN_FINISHED and
//     SUBAGENT_FINISHED), parentMessageId: null (TOOL_CALL_START and
//     TOOL_CALL_CHUNK) and outcome: null (RUN_FINISHED) are dropped.
//   - In MESSAGES_SNAPSHOT messages and RUN_STARTED's input: metadata: null
//     on media content parts is dropped, legacy "binary" content parts are
//     upgraded to media parts, and the input's forwardedProps: null,
//     tools[].parameters: null and resume[].payload: null are dropped.
//
// The boundary keeps state between events of one stream (the THINKING
// ids); a Verifier holds one.

type compat struct {
	reasoningID string // "" when none is open
	messageID   string
	minted      int
}

// mint returns a new client-side id, as the client's randomUUID would.
func (b *compat) mint() string {
	b.minted++
	return "minted-" + strconv.Itoa(b.minted)
}

// Minted ids have this prefix; the client's are random UUIDs.
const mintedPrefix = "minted-"

// apply returns the event the client goes on with: e itself, or the
// event the boundary made of it.
func (b *compat) apply(e *Event) *Event {
	if !b.needed(e) {
		return e // the common case: no copy
	}
	if t, ok := b.rewrite(e); ok {
		return &t
	}
	return e
}

// rewrite returns the event the boundary makes of e, and whether it made
// one.
func (b *compat) rewrite(e *Event) (Event, bool) {
	var o objBuilder
	for _, m := range e.rawMembers() {
		o.raw(m.Key, m.Val)
	}
	if v, ok := o.get("rawEvent"); ok && string(v) == "null" {
		o.del("rawEvent")
	}
	if e.typ == RunFinished || e.typ == SubagentFinished {
		if v, ok := o.get("result"); ok && string(v) == "null" {
			o.del("result")
		}
	}
	switch e.typ {
	case ThinkingStart:
		b.reasoningID = b.mint()
		o.del("title")
		o.str("type", string(ReasoningStart)).str("messageId", b.reasoningID)
	case ThinkingTextMessageStart:
		b.messageID = b.mint()
		o.str("type", string(ReasoningMessageStart)).str("messageId", b.messageID).str("role", "reasoning")
	case ThinkingTextMessageContent:
		delta, hasDelta := o.get("delta")
		o.del("delta")
		id := b.messageID
		if id == "" {
			id = b.mint()
		}
		o.str("type", string(ReasoningMessageContent)).str("messageId", id)
		if hasDelta {
			o.raw("delta", delta)
		}
	case ThinkingTextMessageEnd:
		id := b.messageID
		if id == "" {
			id = b.mint()
		}
		b.messageID = ""
		o.str("type", string(ReasoningMessageEnd)).str("messageId", id)
	case ThinkingEnd:
		id := b.reasoningID
		if id == "" {
			id = b.mint()
		}
		b.reasoningID = ""
		o.str("type", string(ReasoningEnd)).str("messageId", id)
	case ToolCallStart, ToolCallChunk:
		if v, ok := o.get("parentMessageId"); ok && string(v) == "null" {
			o.del("parentMessageId")
		}
	case RunFinished:
		if v, ok := o.get("outcome"); ok && string(v) == "null" {
			o.del("outcome")
		}
	case MessagesSnapshot:
		if v, ok := o.get("messages"); ok {
			o.raw("messages", upgradeMessages(v))
		}
	case RunStarted:
		if v, ok := o.get("input"); ok {
			o.raw("input", upgradeInput(v))
		}
	}
	out, err := ParseEvent(o.bytes())
	if err != nil {
		return *e, false
	}
	return out, true
}

// needed reports whether the boundary may change e: a cheap test that
// lets ordinary events through untouched.
func (b *compat) needed(e *Event) bool {
	switch e.typ {
	case ThinkingStart, ThinkingEnd, ThinkingTextMessageStart, ThinkingTextMessageContent, ThinkingTextMessageEnd:
		return true
	case MessagesSnapshot, RunStarted:
		return bytes.Contains(e.raw, []byte("null")) || bytes.Contains(e.raw, []byte(`"binary"`))
	}
	if e.f[fParentMessageID].Kind == kindNull {
		return true
	}
	// rawEvent, result and outcome are not indexed: an event whose members
	// all are has none of them.
	return e.other && bytes.Contains(e.raw, []byte("null"))
}

// rawMember is a top-level member with its key unescaped.
type rawMember = jsonx.Member

// rawMembers returns the event's members; a repeated key keeps its first
// position and takes its last value, as JSON.parse does.
func (e *Event) rawMembers() []rawMember {
	return objectMembers(e.raw)
}

func objectMembers(obj []byte) []rawMember { return jsonx.Members(obj) }

// mapArray returns the array raw with each element replaced by fn's
// result; raw itself when it is not an array or nothing changed.
func mapArray(raw []byte, fn func(elem []byte) []byte) []byte {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return raw
	}
	var elems [][]byte
	changed := false
	jsonx.EachElement(raw, span{Start: 0, End: int32(len(raw)), Kind: kindArray}, func(_ int, v span) {
		el := raw[v.Start:v.End]
		n := fn(el)
		if !bytes.Equal(n, el) {
			changed = true
		}
		elems = append(elems, n)
	})
	if !changed {
		return raw
	}
	out := []byte{'['}
	for i, el := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, el...)
	}
	return append(out, ']')
}

// editObject returns the object raw rebuilt by fn, or raw when it is not
// an object or fn changed nothing.
func editObject(raw []byte, fn func(o *objBuilder) bool) []byte {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return raw
	}
	var o objBuilder
	for _, m := range objectMembers(raw) {
		o.raw(m.Key, m.Val)
	}
	if !fn(&o) {
		return raw
	}
	return o.bytes()
}

// dropNull removes member k of o when it is null, reporting whether it did.
func dropNull(o *objBuilder, k string) bool {
	if v, ok := o.get(k); ok && string(v) == "null" {
		o.del(k)
		return true
	}
	return false
}

func upgradeMessages(raw []byte) []byte { return mapArray(raw, upgradeMessage) }

// upgradeMessage drops null metadata of media parts and upgrades legacy
// binary parts of one message's content.
func upgradeMessage(msg []byte) []byte {
	return editObject(msg, func(o *objBuilder) bool {
		content, ok := o.get("content")
		if !ok {
			return false
		}
		parts := mapArray(content, func(part []byte) []byte {
			return editObject(part, func(p *objBuilder) bool {
				switch t, _ := p.get("type"); string(t) {
				case `"image"`, `"audio"`, `"video"`, `"document"`:
					return dropNull(p, "metadata")
				}
				return false
			})
		})
		parts = upgradeBinary(parts)
		if bytes.Equal(parts, trimJSONSpace(content)) {
			return false
		}
		o.raw("content", parts)
		return true
	})
}

// upgradeBinary turns legacy {"type":"binary","mimeType":...} parts into
// media parts, dropping one that repeats a modern part already present.
func upgradeBinary(parts []byte) []byte {
	if len(parts) == 0 || parts[0] != '[' || !bytes.Contains(parts, []byte(`"binary"`)) {
		return parts
	}
	var all [][]byte
	jsonx.EachElement(parts, span{End: int32(len(parts)), Kind: kindArray}, func(_ int, v span) {
		all = append(all, parts[v.Start:v.End])
	})
	out := []byte{'['}
	n := 0
	for _, part := range all {
		conv, drop := convertBinary(part, all)
		if drop {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, conv...)
		n++
	}
	return append(out, ']')
}

// convertBinary converts one legacy binary part, or returns part as it is.
// drop says the converted part repeats a modern one of all.
func convertBinary(part []byte, all [][]byte) ([]byte, bool) {
	if len(part) == 0 || part[0] != '{' {
		return part, false
	}
	ms := objectMembers(part)
	get := func(k string) []byte {
		for _, m := range ms {
			if m.Key == k {
				return m.Val
			}
		}
		return nil
	}
	if string(get("type")) != `"binary"` {
		return part, false
	}
	mime := get("mimeType")
	if len(mime) == 0 || mime[0] != '"' {
		return part, false
	}
	mt := unquote(mime)
	kind := "document"
	switch {
	case hasPrefix(mt, "image/"):
		kind = "image"
	case hasPrefix(mt, "audio/"):
		kind = "audio"
	case hasPrefix(mt, "video/"):
		kind = "video"
	}
	var srcType string
	var value []byte
	if d := get("data"); jsTruthy(d) {
		srcType, value = "data", d
	} else if u := get("url"); jsTruthy(u) {
		srcType, value = "url", u
	} else {
		return part, false
	}
	filename := get("filename")
	var src, o objBuilder
	src.str("type", srcType).raw("value", value).raw("mimeType", mime)
	o.str("type", kind).raw("source", src.bytes())
	if jsTruthy(filename) {
		var md objBuilder
		md.raw("filename", filename)
		o.raw("metadata", md.bytes())
	}
	conv := o.bytes()
	for _, other := range all {
		if sameModernPart(other, kind, srcType, value, mime, filename) {
			return conv, true
		}
	}
	return conv, false
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// jsTruthy reports whether a JSON value is truthy in JavaScript.
func jsTruthy(v []byte) bool {
	switch {
	case v == nil, string(v) == "null", string(v) == "false", string(v) == `""`:
		return false
	case len(v) > 0 && (v[0] == '-' || isDigit(v[0])):
		f, err := strconv.ParseFloat(string(v), 64)
		return err != nil || f != 0
	}
	return true
}

// sameModernPart reports whether part is the modern form of a converted
// binary part (type, source type, value and MIME type equal, and the
// filename kept in its metadata when there is one).
func sameModernPart(part []byte, kind, srcType string, value, mime, filename []byte) bool {
	if len(part) == 0 || part[0] != '{' {
		return false
	}
	p := objectMembers(part)
	val := func(ms []rawMember, k string) []byte {
		for _, m := range ms {
			if m.Key == k {
				return m.Val
			}
		}
		return nil
	}
	if !jsonx.StringIs(val(p, "type"), kind) {
		return false
	}
	src := val(p, "source")
	if len(src) == 0 || src[0] != '{' {
		return false
	}
	s := objectMembers(src)
	if !jsonx.StringIs(val(s, "type"), srcType) || !sameJSONString(val(s, "value"), value) || !sameJSONString(val(s, "mimeType"), mime) {
		return false
	}
	if !jsTruthy(filename) {
		return true
	}
	md := val(p, "metadata")
	if len(md) == 0 || md[0] != '{' {
		return false
	}
	return sameJSONString(val(objectMembers(md), "filename"), filename)
}

// sameJSONString reports whether a and b are equal JSON strings, as ===
// compares them.
func sameJSONString(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 || a[0] != '"' || b[0] != '"' {
		return false
	}
	return unquote(a) == unquote(b)
}

// upgradeInput normalises a RUN_STARTED input as the client does.
func upgradeInput(raw []byte) []byte {
	return editObject(raw, func(o *objBuilder) bool {
		changed := dropNull(o, "forwardedProps")
		for _, f := range [...]struct{ list, field string }{{"tools", "parameters"}, {"resume", "payload"}} {
			if v, ok := o.get(f.list); ok {
				n := mapArray(v, func(el []byte) []byte {
					return editObject(el, func(x *objBuilder) bool { return dropNull(x, f.field) })
				})
				if !bytes.Equal(n, trimJSONSpace(v)) {
					o.raw(f.list, n)
					changed = true
				}
			}
		}
		if v, ok := o.get("messages"); ok {
			if n := upgradeMessages(v); !bytes.Equal(n, trimJSONSpace(v)) {
				o.raw("messages", n)
				changed = true
			}
		}
		return changed
	})
}
