package aguipb

import (
	"encoding/binary"
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/aguitest/aguitest/internal/jsvalue"
)

// Encoding follows @ag-ui/proto's encode for events that @ag-ui/core's
// schemas accept, byte for byte: the event is rewritten into the
// protobuf messages' shape (toWire), then each message writes its fields
// in number order, leaving out what the reference leaves out (empty
// strings of plain string fields, zero enums, absent optional fields).
// What the messages have no place for is not written; MarshalProto finds
// it by decoding the result and comparing.

// Encode encodes the event object o of type t as an envelope.
func Encode(t string, o *jsvalue.Object) []byte {
	arm := ArmByType[t]
	payload := appendMessage(nil, arm.Msg, toWire(t, o))
	b := protowire.AppendTag(make([]byte, 0, len(payload)+6), protowire.Number(arm.Num), protowire.BytesType)
	return protowire.AppendBytes(b, payload)
}

func appendMessage(b []byte, m *MessageType, o *jsvalue.Object) []byte {
	for i := range m.Fields {
		f := &m.Fields[i]
		v := o.Get(f.Name)
		num := protowire.Number(f.Num)
		switch f.Kind {
		case KindString:
			if f.Rep {
				for _, x := range arrayOf(v) {
					if isStr(x) {
						b = protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), strOf(x))
					}
				}
			} else if isStr(v) && (f.Opt || strOf(v) != "") {
				b = protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), strOf(v))
			}
		case KindBool:
			if isBool(v) {
				b = protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), protowire.EncodeBool(boolOf(v)))
			}
		case KindEnum:
			if isNum(v) && numOf(v) != 0 {
				b = protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), uint64(int64(numOf(v))))
			}
		case KindInt64:
			if isNum(v) && numOf(v) == math.Trunc(numOf(v)) && math.Abs(numOf(v)) <= MaxSafeInt {
				b = protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), uint64(int64(numOf(v))))
			}
		case KindValue:
			if defined(v) && (v != nil || !f.NullOK) {
				b = appendNested(b, num, appendValue(nil, v))
			}
		case KindStruct:
			if isObj(v) {
				b = appendNested(b, num, appendStruct(nil, objOf(v)))
			}
		case KindMessage:
			if f.Rep {
				for _, x := range arrayOf(v) {
					if isObj(x) {
						b = appendNested(b, num, appendMessage(nil, f.Msg, objOf(x)))
					}
				}
			} else if isObj(v) {
				b = appendNested(b, num, appendMessage(nil, f.Msg, objOf(v)))
			}
		}
	}
	return b
}

func appendNested(b []byte, num protowire.Number, payload []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), payload)
}

// appendValue writes v as a google.protobuf.Value (Value.wrap).
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return protowire.AppendVarint(protowire.AppendTag(b, 1, protowire.VarintType), 0)
	case float64:
		b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	case string:
		return protowire.AppendString(protowire.AppendTag(b, 3, protowire.BytesType), x)
	case bool:
		return protowire.AppendVarint(protowire.AppendTag(b, 4, protowire.VarintType), protowire.EncodeBool(x))
	case *jsvalue.Object:
		return appendNested(b, 5, appendStruct(nil, x))
	case *jsvalue.Array:
		var l []byte
		for _, x := range x.Elems {
			l = appendNested(l, 1, appendValue(nil, x))
		}
		return appendNested(b, 6, l)
	}
	return b
}

// appendStruct writes o as a google.protobuf.Struct, its entries in
// JavaScript's key order.
func appendStruct(b []byte, o *jsvalue.Object) []byte {
	for _, k := range o.Keys() {
		v := o.Get(k)
		if !defined(v) || k == "__proto__" {
			continue
		}
		var e []byte
		if k != "" {
			e = protowire.AppendString(protowire.AppendTag(e, 1, protowire.BytesType), k)
		}
		e = appendNested(e, 2, appendValue(nil, v))
		b = appendNested(b, 1, e)
	}
	return b
}

// normalizeMetadata keeps an object and drops anything else.
func normalizeMetadata(v any) any {
	if isObj(v) {
		return v
	}
	return jsvalue.Undef
}

func objOrEmpty(v any) *jsvalue.Object {
	if isObj(v) {
		return objOf(v)
	}
	return jsvalue.NewObject()
}

func cloneObj(o *jsvalue.Object) *jsvalue.Object {
	return o.Spread()
}

// toWire rewrites an event into its envelope arm's message.
func toWire(t string, ev *jsvalue.Object) *jsvalue.Object {
	w := jsvalue.NewObject()
	base := jsvalue.NewObject()
	base.Set("type", float64(EnumByType[t]))
	base.Set("timestamp", ev.Get("timestamp"))
	base.Set("rawEvent", ev.Get("rawEvent"))
	base.Set("metadata", normalizeMetadata(ev.Get("metadata")))
	w.Set("baseEvent", base)
	for _, k := range ev.Keys() {
		switch k {
		case "type", "timestamp", "rawEvent", "metadata", "baseEvent":
		default:
			w.Set(k, ev.Get(k))
		}
	}
	switch t {
	case "MESSAGES_SNAPSHOT":
		var msgs []any
		for _, m := range arrayOf(ev.Get("messages")) {
			msgs = append(msgs, toWireMessage(m))
		}
		w.Set("messages", newArray(msgs))
	case "RUN_FINISHED":
		oc := ev.Get("outcome")
		w.Set("pendingToolCallIds", newArray(nil))
		w.Set("interrupts", newArray(nil))
		var ty any = jsvalue.Undef
		if isObj(oc) {
			ty = objOf(oc).Get("type")
		}
		switch {
		case !defined(oc) || oc == nil:
			w.Set("outcome", "")
		case isStr(ty) && strOf(ty) == "success":
			w.Set("outcome", ty)
			w.Set("pendingToolCallIds", objOf(oc).Get("pendingToolCallIds"))
		case isStr(ty) && strOf(ty) == "interrupt":
			w.Set("outcome", ty)
			w.Set("interrupts", objOf(oc).Get("interrupts"))
		case isStr(ty):
			w.Set("outcome", ty)
		default:
			w.Set("outcome", "")
		}
	case "SUBAGENT_FINISHED":
		oc := ev.Get("outcome")
		w.Set("interruptIds", newArray(nil))
		var ty any = jsvalue.Undef
		if isObj(oc) {
			ty = objOf(oc).Get("type")
		}
		switch {
		case isStr(ty) && strOf(ty) == "suspended":
			w.Set("outcome", ty)
			w.Set("interruptIds", objOf(oc).Get("interruptIds"))
		case isStr(ty):
			w.Set("outcome", ty)
		default:
			w.Set("outcome", "")
		}
	case "STATE_DELTA", "ACTIVITY_DELTA":
		key := "delta"
		if t == "ACTIVITY_DELTA" {
			key = "patch"
		}
		var ops []any
		for _, op := range arrayOf(ev.Get(key)) {
			if !isObj(op) || !isStr(objOf(op).Get("op")) {
				continue // the reference fails on it
			}
			n := -1
			up := strings.ToUpper(strOf(objOf(op).Get("op")))
			for i, name := range pbPatchOps {
				if strings.ToUpper(name) == up {
					n = i
				}
			}
			if n < 0 {
				continue // no enum value: the reference fails on it
			}
			c := cloneObj(objOf(op))
			c.Set("op", float64(n))
			ops = append(ops, c)
		}
		w.Set(key, newArray(ops))
	case "TOOL_CALL_RESULT":
		if c := ev.Get("content"); isArr(c) {
			w.Set("contentParts", newArray(toWireParts(c)))
			w.Set("content", jsvalue.Undef)
		}
	case "RUN_STARTED":
		if in := ev.Get("input"); isObj(in) {
			w.Set("input", toWireInput(objOf(in)))
		} else {
			w.Set("input", jsvalue.Undef)
		}
	}
	return w
}

func toWireMessage(v any) *jsvalue.Object {
	m := objOrEmpty(v)
	w := cloneObj(m)
	w.Set("contentParts", newArray(nil))
	w.Set("metadata", normalizeMetadata(m.Get("metadata")))
	var calls []any
	for _, c := range arrayOf(m.Get("toolCalls")) {
		cc := cloneObj(objOrEmpty(c))
		cc.Set("metadata", normalizeMetadata(cc.Get("metadata")))
		calls = append(calls, cc)
	}
	w.Set("toolCalls", newArray(calls))
	if c := m.Get("content"); isArr(c) {
		w.Set("contentParts", newArray(toWireParts(c)))
		w.Set("content", jsvalue.Undef)
	} else if r := m.Get("role"); isStr(r) && strOf(r) == "activity" {
		ac := normalizeMetadata(c)
		if !defined(ac) {
			ac = jsvalue.NewObject()
		}
		w.Set("activityContent", ac)
		w.Set("content", jsvalue.Undef)
	}
	return w
}

func toWireParts(c any) []any {
	var parts []any
	for _, p := range arrayOf(c) {
		if q := toWirePart(p); q != nil {
			parts = append(parts, q)
		}
	}
	return parts
}

func one(k string, v *jsvalue.Object) *jsvalue.Object {
	o := jsvalue.NewObject()
	o.Set(k, v)
	return o
}

func toWirePart(v any) *jsvalue.Object {
	if !isObj(v) {
		return nil
	}
	p := objOf(v)
	ty := p.Get("type")
	if !isStr(ty) {
		return nil
	}
	switch strOf(ty) {
	case "text":
		o := jsvalue.NewObject()
		o.Set("id", p.Get("id"))
		o.Set("text", p.Get("text"))
		o.Set("metadata", p.Get("metadata"))
		return one("text", o)
	case "image", "audio", "video", "document":
		o := jsvalue.NewObject()
		o.Set("id", p.Get("id"))
		if s := toWireSource(p.Get("source")); s != nil {
			o.Set("source", s)
		}
		o.Set("metadata", p.Get("metadata"))
		return one(strOf(ty), o)
	case "binary":
		// The retired binary part travels as a document part with marker
		// metadata.
		var src *jsvalue.Object
		mime := p.Get("mimeType")
		switch {
		case jsvalue.Truthy(p.Get("data")):
			src = one("data", sourceArm(p.Get("data"), mime))
		case jsvalue.Truthy(p.Get("url")):
			src = one("url", sourceArm(p.Get("url"), mime))
		case jsvalue.Truthy(p.Get("id")):
			src = one("url", sourceArm(p.Get("id"), mime))
		default:
			return nil
		}
		md := jsvalue.NewObject()
		md.Set("legacyBinary", true)
		md.Set("filename", p.Get("filename"))
		md.Set("id", p.Get("id"))
		o := jsvalue.NewObject()
		o.Set("source", src)
		o.Set("metadata", md)
		return one("document", o)
	}
	return nil
}

func sourceArm(value, mime any) *jsvalue.Object {
	o := jsvalue.NewObject()
	o.Set("value", value)
	o.Set("mimeType", mime)
	return o
}

func toWireSource(v any) *jsvalue.Object {
	if !isObj(v) {
		return nil
	}
	s := objOf(v)
	ty := s.Get("type")
	if !isStr(ty) {
		return nil
	}
	switch strOf(ty) {
	case "data", "url":
		return one(strOf(ty), sourceArm(s.Get("value"), s.Get("mimeType")))
	case "file":
		o := sourceArm(s.Get("value"), s.Get("mimeType"))
		o.Set("provider", s.Get("provider"))
		return one("file", o)
	}
	return nil
}

func toWireInput(in *jsvalue.Object) *jsvalue.Object {
	w := jsvalue.NewObject()
	for _, k := range []string{"threadId", "runId", "protocolVersion", "parentRunId", "state", "forwardedProps"} {
		w.Set(k, in.Get(k))
	}
	var msgs, tools, resume []any
	for _, m := range arrayOf(in.Get("messages")) {
		msgs = append(msgs, toWireMessage(m))
	}
	for _, t := range arrayOf(in.Get("tools")) {
		tools = append(tools, withMetadata(t))
	}
	for _, r := range arrayOf(in.Get("resume")) {
		resume = append(resume, withMetadata(r))
	}
	w.Set("messages", newArray(msgs))
	w.Set("tools", newArray(tools))
	w.Set("context", in.Get("context"))
	w.Set("resume", newArray(resume))
	return w
}

func withMetadata(v any) *jsvalue.Object {
	o := cloneObj(objOrEmpty(v))
	o.Set("metadata", normalizeMetadata(o.Get("metadata")))
	return o
}
