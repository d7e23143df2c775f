package agui

import (
	"fmt"
	"strconv"
)

// The rewrites between the protobuf messages and the events' JSON form, as
// @ag-ui/proto 1.0.0 makes them on each side: the base event's fields move
// to the top, outcomes become objects, patch operations get their names,
// content parts and activity content find their JSON field.

// decodeProtoJS decodes one frame's message into the JSON object the
// reference decoder produces.
func decodeProtoJS(data []byte) (*jsObj, []Loss, error) {
	d := &pbDec{data: data}
	var (
		arm   *pbArm
		o     *jsObj
		known int // the known envelope field seen, with any wire type
	)
	for i := 0; i < len(data); {
		num, wt, next, err := d.tag(i, len(data))
		if err != nil {
			return nil, d.losses, err
		}
		// A group is skipped whatever its number, as the reference skips it.
		if num <= len(pbArms) && wt != 3 && wt != 4 {
			if known != 0 && known != num {
				return nil, d.losses, d.fail(i, "the frame carries two events (%s and %s)", pbArms[known-1].typ, pbArms[num-1].typ)
			}
			known = num
			if wt == 2 {
				a := &pbArms[num-1]
				s, e, err := d.bytesAt(next, len(data))
				if err != nil {
					return nil, d.losses, err
				}
				if o == nil {
					o = newObject(a.msg)
				}
				arm = a
				if err := d.message(s, e, a.msg, o, "", 1); err != nil {
					return nil, d.losses, err
				}
				i = e
				continue
			}
		}
		if wt == 4 {
			return nil, d.losses, d.fail(i, "an end-group tag with no group open")
		}
		if i, err = d.skip(num, wt, next, len(data), 0); err != nil {
			return nil, d.losses, err
		}
		if num > len(pbArms) {
			d.lose("/#"+strconv.Itoa(num), fmt.Sprintf("unknown envelope field %d (wire type %d) dropped", num, wt))
		}
	}
	if o == nil {
		if known == 0 && namesOnlyFutureArms(data) {
			return nil, d.losses, errFutureEvent
		}
		if known != 0 {
			return nil, d.losses, fmt.Errorf("the frame's %s event is not a length-delimited message", pbArms[known-1].typ)
		}
		return nil, d.losses, fmt.Errorf("the frame holds no event")
	}
	base := o.get("baseEvent")
	if base.kind != pjObject {
		return nil, d.losses, fmt.Errorf("the %s event has no base event (field 1)", arm.typ)
	}
	declared := "undefined"
	if n := int(base.obj.get("type").num); n >= 0 && n < len(pbEnumTypes) {
		declared = string(pbEnumTypes[n])
	} else if n == -1 {
		declared = "UNRECOGNIZED"
	}
	if declared != string(arm.typ) {
		return nil, d.losses, fmt.Errorf("the envelope carries %s but the base event declares %s", arm.typ, declared)
	}
	o.set("type", jsStr(string(arm.typ)))
	o.set("timestamp", base.obj.get("timestamp"))
	o.set("rawEvent", base.obj.get("rawEvent"))
	if md := base.obj.get("metadata"); md.defined() {
		o.set("metadata", md)
	}
	o.del("baseEvent")
	if err := d.rewrite(arm.typ, o); err != nil {
		return nil, d.losses, err
	}
	return o, d.losses, nil
}

func arrayOf(v jsValue) []jsValue {
	if v.kind == pjArray {
		return v.arr.v
	}
	return nil
}

// rewrite turns the decoded message into the event's JSON form.
func (d *pbDec) rewrite(t EventType, o *jsObj) error {
	switch t {
	case MessagesSnapshot:
		for i, m := range arrayOf(o.get("messages")) {
			msg, err := d.fromWireMessage(m.obj, "/messages/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			o.get("messages").arr.v[i] = jsObjVal(msg)
		}
	case RunFinished:
		outcome := o.get("outcome").str
		pending, interrupts := o.get("pendingToolCallIds"), o.get("interrupts")
		o.del("pendingToolCallIds")
		o.del("interrupts")
		o.del("outcome")
		if outcome == "" {
			if len(arrayOf(pending)) > 0 {
				o.set("pendingToolCallIds", pending)
			}
			if len(arrayOf(interrupts)) > 0 {
				o.set("interrupts", interrupts)
			}
		} else {
			oc := &jsObj{}
			oc.set("type", jsStr(outcome))
			if outcome == "interrupt" {
				oc.set("interrupts", jsArrVal(arrayOf(interrupts)))
			}
			if len(arrayOf(pending)) > 0 {
				oc.set("pendingToolCallIds", pending)
			}
			if outcome != "interrupt" && len(arrayOf(interrupts)) > 0 {
				oc.set("interrupts", interrupts)
			}
			o.set("outcome", jsObjVal(oc))
		}
		if len(arrayOf(o.get("usage"))) == 0 {
			o.del("usage")
		}
	case SubagentFinished:
		outcome := o.get("outcome").str
		ids := o.get("interruptIds")
		o.del("interruptIds")
		o.del("outcome")
		if outcome == "" {
			if len(arrayOf(ids)) > 0 {
				o.set("interruptIds", ids)
			}
		} else {
			oc := &jsObj{}
			oc.set("type", jsStr(outcome))
			if len(arrayOf(ids)) > 0 {
				oc.set("interruptIds", ids)
			}
			o.set("outcome", jsObjVal(oc))
		}
	case StateDelta, ActivityDelta:
		key := "delta"
		if t == ActivityDelta {
			key = "patch"
		}
		for _, op := range arrayOf(o.get(key)) {
			n := int(op.obj.get("op").num)
			name := strconv.Itoa(n)
			if n >= 0 && n < len(pbPatchOps) {
				name = pbPatchOps[n]
			}
			op.obj.set("op", jsStr(name))
		}
	case RunError:
		if len(arrayOf(o.get("usage"))) == 0 {
			o.del("usage")
		}
	case ToolCallResult:
		parts := arrayOf(o.get("contentParts"))
		if o.get("content").defined() && len(parts) > 0 {
			return fmt.Errorf("the TOOL_CALL_RESULT event carries both string content and content parts")
		}
		if !o.get("content").defined() {
			c, err := d.fromParts(parts, "/content")
			if err != nil {
				return err
			}
			o.set("content", c)
		}
		o.del("contentParts")
	case RunStarted:
		if in := o.get("input"); in.defined() {
			w, err := d.fromWireInput(in.obj)
			if err != nil {
				return err
			}
			o.set("input", jsObjVal(w))
		}
	}
	return nil
}

var knownRoles = map[string]bool{"developer": true, "system": true, "assistant": true, "user": true, "tool": true, "activity": true, "reasoning": true}

// fromWireMessage gives a Message its JSON form: content from the field
// its role uses.
func (d *pbDec) fromWireMessage(w *jsObj, path string) (*jsObj, error) {
	m := &jsObj{keys: append([]string(nil), w.keys...), vals: append([]jsValue(nil), w.vals...), nIdx: w.nIdx}
	role := w.get("role").str
	known := knownRoles[role]
	content, activity := w.get("content"), w.get("activityContent")
	parts := arrayOf(w.get("contentParts"))
	var usesParts, usesMap bool
	if known {
		usesParts = role == "user" || role == "tool"
		usesMap = role == "activity"
	} else {
		usesParts = len(parts) > 0
		usesMap = !usesParts && activity.defined()
	}
	if !known {
		n := 0
		for _, b := range []bool{content.defined(), len(parts) > 0, activity.defined()} {
			if b {
				n++
			}
		}
		if n > 1 {
			return nil, fmt.Errorf("%s: the message carries more than one content form", path)
		}
	} else {
		switch {
		case !usesParts && len(parts) > 0:
			return nil, fmt.Errorf("%s: the message carries content parts for a role that has none", path)
		case activity.defined() && !usesMap:
			return nil, fmt.Errorf("%s: the message carries activity content for a non-activity role", path)
		case usesMap && content.defined():
			return nil, fmt.Errorf("%s: activity content cannot ride with other content forms", path)
		case usesParts && content.defined() && len(parts) > 0:
			return nil, fmt.Errorf("%s: the message carries both string content and content parts", path)
		}
	}
	if usesParts && !content.defined() {
		c, err := d.fromParts(parts, path+"/content")
		if err != nil {
			return nil, err
		}
		m.set("content", c)
	}
	if usesMap && activity.defined() {
		m.set("content", activity)
	}
	m.del("activityContent")
	m.del("contentParts")
	if len(arrayOf(w.get("toolCalls"))) == 0 {
		m.del("toolCalls")
	}
	return m, nil
}

// fromParts maps InputContent parts to content parts; a part of no kind
// this version knows is dropped, as the reference drops it.
func (d *pbDec) fromParts(parts []jsValue, path string) (jsValue, error) {
	out := []jsValue{}
	for i, p := range parts {
		c, err := fromPart(p.obj)
		if err != nil {
			return jsUndef, fmt.Errorf("%s/%d: %w", path, i, err)
		}
		if !c.defined() {
			d.lose(path+"/"+strconv.Itoa(i), "a content part of no kind this version knows is dropped")
			continue
		}
		out = append(out, c)
	}
	return jsArrVal(out), nil
}

func fromPart(p *jsObj) (jsValue, error) {
	var kind string
	var part *jsObj
	for _, k := range []string{"text", "image", "audio", "video", "document"} {
		if v := p.get(k); v.defined() {
			if kind != "" {
				return jsUndef, fmt.Errorf("the content part carries more than one kind")
			}
			kind, part = k, v.obj
		}
	}
	if kind == "" {
		return jsUndef, nil
	}
	c := &jsObj{}
	c.set("type", jsStr(kind))
	c.set("id", part.get("id"))
	if kind == "text" {
		c.set("text", part.get("text"))
	} else {
		src := part.get("source")
		var s jsValue
		if src.defined() {
			var err error
			if s, err = fromSource(src.obj); err != nil {
				return jsUndef, err
			}
			if !s.defined() {
				return jsUndef, nil
			}
		}
		c.set("source", s)
	}
	c.set("metadata", part.get("metadata"))
	return jsObjVal(c), nil
}

func fromSource(src *jsObj) (jsValue, error) {
	var kind string
	var s *jsObj
	for _, k := range []string{"data", "url", "file"} {
		if v := src.get(k); v.defined() {
			if kind != "" {
				return jsUndef, fmt.Errorf("the content source carries more than one kind")
			}
			kind, s = k, v.obj
		}
	}
	if kind == "" {
		return jsUndef, nil
	}
	o := &jsObj{}
	o.set("type", jsStr(kind))
	o.set("value", s.get("value"))
	if kind == "file" {
		o.set("provider", s.get("provider"))
	}
	o.set("mimeType", s.get("mimeType"))
	return jsObjVal(o), nil
}

func (d *pbDec) fromWireInput(w *jsObj) (*jsObj, error) {
	o := &jsObj{}
	for _, k := range []string{"threadId", "runId", "protocolVersion", "parentRunId", "state"} {
		if v := w.get(k); v.defined() {
			o.set(k, v)
		}
	}
	var msgs []jsValue
	for i, m := range arrayOf(w.get("messages")) {
		mm, err := d.fromWireMessage(m.obj, "/input/messages/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, jsObjVal(mm))
	}
	o.set("messages", jsArrVal(msgs))
	o.set("tools", jsArrVal(arrayOf(w.get("tools"))))
	o.set("context", jsArrVal(arrayOf(w.get("context"))))
	if v := w.get("forwardedProps"); v.defined() {
		o.set("forwardedProps", v)
	}
	o.set("resume", jsArrVal(arrayOf(w.get("resume"))))
	return o, nil
}
