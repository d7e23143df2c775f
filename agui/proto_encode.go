package agui

import (
	"encoding/binary"
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Encoding follows @ag-ui/proto's encode for events that @ag-ui/core's
// schemas accept, byte for byte: the event is rewritten into the
// protobuf messages' shape (toWire), then each message writes its fields
// in number order, leaving out what the reference leaves out (empty
// strings of plain string fields, zero enums, absent optional fields).
// What the messages have no place for is not written; MarshalProto finds
// it by decoding the result and comparing.

// encodeProtoJS encodes the event object o of type t as an envelope.
func encodeProtoJS(t EventType, o *jsObj) []byte {
	arm := pbArmByType[t]
	payload := appendMessage(nil, arm.msg, toWire(t, o))
	b := protowire.AppendTag(make([]byte, 0, len(payload)+6), protowire.Number(arm.num), protowire.BytesType)
	return protowire.AppendBytes(b, payload)
}

func appendMessage(b []byte, m *pbMessageType, o *jsObj) []byte {
	for i := range m.fields {
		f := &m.fields[i]
		v := o.get(f.name)
		num := protowire.Number(f.num)
		switch f.kind {
		case pbString:
			if f.rep {
				for _, x := range arrayOf(v) {
					if x.kind == pjString {
						b = protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), x.str)
					}
				}
			} else if v.kind == pjString && (f.opt || v.str != "") {
				b = protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), v.str)
			}
		case pbBool:
			if v.kind == pjBool {
				b = protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), protowire.EncodeBool(v.b))
			}
		case pbEnum:
			if v.kind == pjNumber && v.num != 0 {
				b = protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), uint64(int64(v.num)))
			}
		case pbInt64:
			if v.kind == pjNumber && v.num == math.Trunc(v.num) && math.Abs(v.num) <= maxSafeInt {
				b = protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), uint64(int64(v.num)))
			}
		case pbValue:
			if v.defined() && (v.kind != pjNull || !f.nullOK) {
				b = appendNested(b, num, appendValue(nil, v))
			}
		case pbStruct:
			if v.kind == pjObject {
				b = appendNested(b, num, appendStruct(nil, v.obj))
			}
		case pbMessage:
			if f.rep {
				for _, x := range arrayOf(v) {
					if x.kind == pjObject {
						b = appendNested(b, num, appendMessage(nil, f.msg, x.obj))
					}
				}
			} else if v.kind == pjObject {
				b = appendNested(b, num, appendMessage(nil, f.msg, v.obj))
			}
		}
	}
	return b
}

func appendNested(b []byte, num protowire.Number, payload []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), payload)
}

// appendValue writes v as a google.protobuf.Value (Value.wrap).
func appendValue(b []byte, v jsValue) []byte {
	switch v.kind {
	case pjNull:
		return protowire.AppendVarint(protowire.AppendTag(b, 1, protowire.VarintType), 0)
	case pjNumber:
		b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.num))
	case pjString:
		return protowire.AppendString(protowire.AppendTag(b, 3, protowire.BytesType), v.str)
	case pjBool:
		return protowire.AppendVarint(protowire.AppendTag(b, 4, protowire.VarintType), protowire.EncodeBool(v.b))
	case pjObject:
		return appendNested(b, 5, appendStruct(nil, v.obj))
	case pjArray:
		var l []byte
		for _, x := range v.arr.v {
			l = appendNested(l, 1, appendValue(nil, x))
		}
		return appendNested(b, 6, l)
	}
	return b
}

// appendStruct writes o as a google.protobuf.Struct, its entries in
// JavaScript's key order.
func appendStruct(b []byte, o *jsObj) []byte {
	for i, k := range o.keys {
		v := o.vals[i]
		if !v.defined() || k == "__proto__" {
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
func normalizeMetadata(v jsValue) jsValue {
	if v.kind == pjObject {
		return v
	}
	return jsUndef
}

func objOrEmpty(v jsValue) *jsObj {
	if v.kind == pjObject {
		return v.obj
	}
	return &jsObj{}
}

func cloneObj(o *jsObj) *jsObj {
	return &jsObj{keys: append([]string(nil), o.keys...), vals: append([]jsValue(nil), o.vals...), nIdx: o.nIdx}
}

// truthy is JavaScript's truthiness of a JSON value.
func truthy(v jsValue) bool {
	switch v.kind {
	case pjUndefined, pjNull:
		return false
	case pjBool:
		return v.b
	case pjNumber:
		return v.num != 0 && !math.IsNaN(v.num)
	case pjString:
		return v.str != ""
	}
	return true
}

// toWire rewrites an event into its envelope arm's message.
func toWire(t EventType, ev *jsObj) *jsObj {
	w := &jsObj{}
	base := &jsObj{}
	base.set("type", jsNum(float64(pbEnumByType[t])))
	base.set("timestamp", ev.get("timestamp"))
	base.set("rawEvent", ev.get("rawEvent"))
	base.set("metadata", normalizeMetadata(ev.get("metadata")))
	w.set("baseEvent", jsObjVal(base))
	for i, k := range ev.keys {
		switch k {
		case "type", "timestamp", "rawEvent", "metadata", "baseEvent":
		default:
			w.set(k, ev.vals[i])
		}
	}
	switch t {
	case MessagesSnapshot:
		var msgs []jsValue
		for _, m := range arrayOf(ev.get("messages")) {
			msgs = append(msgs, jsObjVal(toWireMessage(m)))
		}
		w.set("messages", jsArrVal(msgs))
	case RunFinished:
		oc := ev.get("outcome")
		w.set("pendingToolCallIds", jsArrVal(nil))
		w.set("interrupts", jsArrVal(nil))
		ty := jsUndef
		if oc.kind == pjObject {
			ty = oc.obj.get("type")
		}
		switch {
		case !oc.defined() || oc.kind == pjNull:
			w.set("outcome", jsStr(""))
		case ty.kind == pjString && ty.str == "success":
			w.set("outcome", ty)
			w.set("pendingToolCallIds", oc.obj.get("pendingToolCallIds"))
		case ty.kind == pjString && ty.str == "interrupt":
			w.set("outcome", ty)
			w.set("interrupts", oc.obj.get("interrupts"))
		case ty.kind == pjString:
			w.set("outcome", ty)
		default:
			w.set("outcome", jsStr(""))
		}
	case SubagentFinished:
		oc := ev.get("outcome")
		w.set("interruptIds", jsArrVal(nil))
		ty := jsUndef
		if oc.kind == pjObject {
			ty = oc.obj.get("type")
		}
		switch {
		case ty.kind == pjString && ty.str == "suspended":
			w.set("outcome", ty)
			w.set("interruptIds", oc.obj.get("interruptIds"))
		case ty.kind == pjString:
			w.set("outcome", ty)
		default:
			w.set("outcome", jsStr(""))
		}
	case StateDelta, ActivityDelta:
		key := "delta"
		if t == ActivityDelta {
			key = "patch"
		}
		var ops []jsValue
		for _, op := range arrayOf(ev.get(key)) {
			if op.kind != pjObject || op.obj.get("op").kind != pjString {
				continue // the reference fails on it
			}
			n := -1
			up := strings.ToUpper(op.obj.get("op").str)
			for i, name := range pbPatchOps {
				if strings.ToUpper(name) == up {
					n = i
				}
			}
			if n < 0 {
				continue // no enum value: the reference fails on it
			}
			c := cloneObj(op.obj)
			c.set("op", jsNum(float64(n)))
			ops = append(ops, jsObjVal(c))
		}
		w.set(key, jsArrVal(ops))
	case ToolCallResult:
		if c := ev.get("content"); c.kind == pjArray {
			w.set("contentParts", jsArrVal(toWireParts(c)))
			w.set("content", jsUndef)
		}
	case RunStarted:
		if in := ev.get("input"); in.kind == pjObject {
			w.set("input", jsObjVal(toWireInput(in.obj)))
		} else {
			w.set("input", jsUndef)
		}
	}
	return w
}

func toWireMessage(v jsValue) *jsObj {
	m := objOrEmpty(v)
	w := cloneObj(m)
	w.set("contentParts", jsArrVal(nil))
	w.set("metadata", normalizeMetadata(m.get("metadata")))
	var calls []jsValue
	for _, c := range arrayOf(m.get("toolCalls")) {
		cc := cloneObj(objOrEmpty(c))
		cc.set("metadata", normalizeMetadata(cc.get("metadata")))
		calls = append(calls, jsObjVal(cc))
	}
	w.set("toolCalls", jsArrVal(calls))
	if c := m.get("content"); c.kind == pjArray {
		w.set("contentParts", jsArrVal(toWireParts(c)))
		w.set("content", jsUndef)
	} else if r := m.get("role"); r.kind == pjString && r.str == "activity" {
		ac := normalizeMetadata(c)
		if !ac.defined() {
			ac = jsObjVal(&jsObj{})
		}
		w.set("activityContent", ac)
		w.set("content", jsUndef)
	}
	return w
}

func toWireParts(c jsValue) []jsValue {
	var parts []jsValue
	for _, p := range arrayOf(c) {
		if q := toWirePart(p); q != nil {
			parts = append(parts, jsObjVal(q))
		}
	}
	return parts
}

func one(k string, v *jsObj) *jsObj {
	o := &jsObj{}
	o.set(k, jsObjVal(v))
	return o
}

func toWirePart(v jsValue) *jsObj {
	if v.kind != pjObject {
		return nil
	}
	p := v.obj
	ty := p.get("type")
	if ty.kind != pjString {
		return nil
	}
	switch ty.str {
	case "text":
		o := &jsObj{}
		o.set("id", p.get("id"))
		o.set("text", p.get("text"))
		o.set("metadata", p.get("metadata"))
		return one("text", o)
	case "image", "audio", "video", "document":
		o := &jsObj{}
		o.set("id", p.get("id"))
		if s := toWireSource(p.get("source")); s != nil {
			o.set("source", jsObjVal(s))
		}
		o.set("metadata", p.get("metadata"))
		return one(ty.str, o)
	case "binary":
		// The retired binary part travels as a document part with marker
		// metadata.
		var src *jsObj
		mime := p.get("mimeType")
		switch {
		case truthy(p.get("data")):
			src = one("data", sourceArm(p.get("data"), mime))
		case truthy(p.get("url")):
			src = one("url", sourceArm(p.get("url"), mime))
		case truthy(p.get("id")):
			src = one("url", sourceArm(p.get("id"), mime))
		default:
			return nil
		}
		md := &jsObj{}
		md.set("legacyBinary", jsBoolean(true))
		md.set("filename", p.get("filename"))
		md.set("id", p.get("id"))
		o := &jsObj{}
		o.set("source", jsObjVal(src))
		o.set("metadata", jsObjVal(md))
		return one("document", o)
	}
	return nil
}

func sourceArm(value, mime jsValue) *jsObj {
	o := &jsObj{}
	o.set("value", value)
	o.set("mimeType", mime)
	return o
}

func toWireSource(v jsValue) *jsObj {
	if v.kind != pjObject {
		return nil
	}
	s := v.obj
	ty := s.get("type")
	if ty.kind != pjString {
		return nil
	}
	switch ty.str {
	case "data", "url":
		return one(ty.str, sourceArm(s.get("value"), s.get("mimeType")))
	case "file":
		o := sourceArm(s.get("value"), s.get("mimeType"))
		o.set("provider", s.get("provider"))
		return one("file", o)
	}
	return nil
}

func toWireInput(in *jsObj) *jsObj {
	w := &jsObj{}
	for _, k := range []string{"threadId", "runId", "protocolVersion", "parentRunId", "state", "forwardedProps"} {
		w.set(k, in.get(k))
	}
	var msgs, tools, resume []jsValue
	for _, m := range arrayOf(in.get("messages")) {
		msgs = append(msgs, jsObjVal(toWireMessage(m)))
	}
	for _, t := range arrayOf(in.get("tools")) {
		tools = append(tools, jsObjVal(withMetadata(t)))
	}
	for _, r := range arrayOf(in.get("resume")) {
		resume = append(resume, jsObjVal(withMetadata(r)))
	}
	w.set("messages", jsArrVal(msgs))
	w.set("tools", jsArrVal(tools))
	w.set("context", in.get("context"))
	w.set("resume", jsArrVal(resume))
	return w
}

func withMetadata(v jsValue) *jsObj {
	o := cloneObj(objOrEmpty(v))
	o.set("metadata", normalizeMetadata(o.get("metadata")))
	return o
}
