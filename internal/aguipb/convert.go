package aguipb

import (
	"fmt"
	"strconv"

	"github.com/aguitest/aguitest/internal/jsvalue"
)

// The rewrites between the protobuf messages and the events' JSON form, as
// @ag-ui/proto 1.0.0 makes them on each side: the base event's fields move
// to the top, outcomes become objects, patch operations get their names,
// content parts and activity content find their JSON field.

// Decode decodes one frame's message into the JSON object the
// reference decoder produces.
func Decode(data []byte) (*jsvalue.Object, []Loss, error) {
	d := &pbDec{data: data}
	var (
		arm   *Arm
		o     *jsvalue.Object
		known int // the known envelope field seen, with any wire type
	)
	for i := 0; i < len(data); {
		num, wt, next, err := d.tag(i, len(data))
		if err != nil {
			return nil, d.losses, err
		}
		// A group is skipped whatever its number, as the reference skips it.
		if num <= len(Arms) && wt != 3 && wt != 4 {
			if known != 0 && known != num {
				return nil, d.losses, d.fail(i, "the frame carries two events (%s and %s)", Arms[known-1].Typ, Arms[num-1].Typ)
			}
			known = num
			if wt == 2 {
				a := &Arms[num-1]
				s, e, err := d.bytesAt(next, len(data))
				if err != nil {
					return nil, d.losses, err
				}
				if o == nil {
					o = newObject(a.Msg)
				}
				arm = a
				if err := d.message(s, e, a.Msg, o, "", 1); err != nil {
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
		if num > len(Arms) {
			d.lose("/#"+strconv.Itoa(num), fmt.Sprintf("unknown envelope field %d (wire type %d) dropped", num, wt))
		}
	}
	if o == nil {
		if known == 0 && namesOnlyFutureArms(data) {
			return nil, d.losses, ErrFutureEvent
		}
		if known != 0 {
			return nil, d.losses, fmt.Errorf("the frame's %s event is not a length-delimited message", Arms[known-1].Typ)
		}
		return nil, d.losses, fmt.Errorf("the frame holds no event")
	}
	base := o.Get("baseEvent")
	if !isObj(base) {
		return nil, d.losses, fmt.Errorf("the %s event has no base event (field 1)", arm.Typ)
	}
	declared := "undefined"
	if n := int(numOf(objOf(base).Get("type"))); n >= 0 && n < len(EnumTypes) {
		declared = string(EnumTypes[n])
	} else if n == -1 {
		declared = "UNRECOGNIZED"
	}
	if declared != string(arm.Typ) {
		return nil, d.losses, fmt.Errorf("the envelope carries %s but the base event declares %s", arm.Typ, declared)
	}
	o.Set("type", string(arm.Typ))
	o.Set("timestamp", objOf(base).Get("timestamp"))
	o.Set("rawEvent", objOf(base).Get("rawEvent"))
	if md := objOf(base).Get("metadata"); defined(md) {
		o.Set("metadata", md)
	}
	o.Del("baseEvent")
	if err := d.rewrite(arm.Typ, o); err != nil {
		return nil, d.losses, err
	}
	return o, d.losses, nil
}

// rewrite turns the decoded message into the event's JSON form.
func (d *pbDec) rewrite(t string, o *jsvalue.Object) error {
	switch t {
	case "MESSAGES_SNAPSHOT":
		for i, m := range arrayOf(o.Get("messages")) {
			msg, err := d.fromWireMessage(objOf(m), "/messages/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			arrOf(o.Get("messages")).Elems[i] = msg
		}
	case "RUN_FINISHED":
		outcome := strOf(o.Get("outcome"))
		pending, interrupts := o.Get("pendingToolCallIds"), o.Get("interrupts")
		o.Del("pendingToolCallIds")
		o.Del("interrupts")
		o.Del("outcome")
		if outcome == "" {
			if len(arrayOf(pending)) > 0 {
				o.Set("pendingToolCallIds", pending)
			}
			if len(arrayOf(interrupts)) > 0 {
				o.Set("interrupts", interrupts)
			}
		} else {
			oc := jsvalue.NewObject()
			oc.Set("type", outcome)
			if outcome == "interrupt" {
				oc.Set("interrupts", newArray(arrayOf(interrupts)))
			}
			if len(arrayOf(pending)) > 0 {
				oc.Set("pendingToolCallIds", pending)
			}
			if outcome != "interrupt" && len(arrayOf(interrupts)) > 0 {
				oc.Set("interrupts", interrupts)
			}
			o.Set("outcome", oc)
		}
		if len(arrayOf(o.Get("usage"))) == 0 {
			o.Del("usage")
		}
	case "SUBAGENT_FINISHED":
		outcome := strOf(o.Get("outcome"))
		ids := o.Get("interruptIds")
		o.Del("interruptIds")
		o.Del("outcome")
		if outcome == "" {
			if len(arrayOf(ids)) > 0 {
				o.Set("interruptIds", ids)
			}
		} else {
			oc := jsvalue.NewObject()
			oc.Set("type", outcome)
			if len(arrayOf(ids)) > 0 {
				oc.Set("interruptIds", ids)
			}
			o.Set("outcome", oc)
		}
	case "STATE_DELTA", "ACTIVITY_DELTA":
		key := "delta"
		if t == "ACTIVITY_DELTA" {
			key = "patch"
		}
		for _, op := range arrayOf(o.Get(key)) {
			n := int(numOf(objOf(op).Get("op")))
			name := strconv.Itoa(n)
			if n >= 0 && n < len(pbPatchOps) {
				name = pbPatchOps[n]
			}
			objOf(op).Set("op", name)
		}
	case "RUN_ERROR":
		if len(arrayOf(o.Get("usage"))) == 0 {
			o.Del("usage")
		}
	case "TOOL_CALL_RESULT":
		parts := arrayOf(o.Get("contentParts"))
		if defined(o.Get("content")) && len(parts) > 0 {
			return fmt.Errorf("the TOOL_CALL_RESULT event carries both string content and content parts")
		}
		if !defined(o.Get("content")) {
			c, err := d.fromParts(parts, "/content")
			if err != nil {
				return err
			}
			o.Set("content", c)
		}
		o.Del("contentParts")
	case "RUN_STARTED":
		if in := o.Get("input"); defined(in) {
			w, err := d.fromWireInput(objOf(in))
			if err != nil {
				return err
			}
			o.Set("input", w)
		}
	}
	return nil
}

var knownRoles = map[string]bool{"developer": true, "system": true, "assistant": true, "user": true, "tool": true, "activity": true, "reasoning": true}

// fromWireMessage gives a Message its JSON form: content from the field
// its role uses.
func (d *pbDec) fromWireMessage(w *jsvalue.Object, path string) (*jsvalue.Object, error) {
	m := w.Spread()
	role := strOf(w.Get("role"))
	known := knownRoles[role]
	content, activity := w.Get("content"), w.Get("activityContent")
	parts := arrayOf(w.Get("contentParts"))
	var usesParts, usesMap bool
	if known {
		usesParts = role == "user" || role == "tool"
		usesMap = role == "activity"
	} else {
		usesParts = len(parts) > 0
		usesMap = !usesParts && defined(activity)
	}
	if !known {
		n := 0
		for _, b := range []bool{defined(content), len(parts) > 0, defined(activity)} {
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
		case defined(activity) && !usesMap:
			return nil, fmt.Errorf("%s: the message carries activity content for a non-activity role", path)
		case usesMap && defined(content):
			return nil, fmt.Errorf("%s: activity content cannot ride with other content forms", path)
		case usesParts && defined(content) && len(parts) > 0:
			return nil, fmt.Errorf("%s: the message carries both string content and content parts", path)
		}
	}
	if usesParts && !defined(content) {
		c, err := d.fromParts(parts, path+"/content")
		if err != nil {
			return nil, err
		}
		m.Set("content", c)
	}
	if usesMap && defined(activity) {
		m.Set("content", activity)
	}
	m.Del("activityContent")
	m.Del("contentParts")
	if len(arrayOf(w.Get("toolCalls"))) == 0 {
		m.Del("toolCalls")
	}
	return m, nil
}

// fromParts maps InputContent parts to content parts; a part of no kind
// this version knows is dropped, as the reference drops it.
func (d *pbDec) fromParts(parts []any, path string) (any, error) {
	out := []any{}
	for i, p := range parts {
		c, err := fromPart(objOf(p))
		if err != nil {
			return jsvalue.Undef, fmt.Errorf("%s/%d: %w", path, i, err)
		}
		if !defined(c) {
			d.lose(path+"/"+strconv.Itoa(i), "a content part of no kind this version knows is dropped")
			continue
		}
		out = append(out, c)
	}
	return newArray(out), nil
}

func fromPart(p *jsvalue.Object) (any, error) {
	var kind string
	var part *jsvalue.Object
	for _, k := range []string{"text", "image", "audio", "video", "document"} {
		if v := p.Get(k); defined(v) {
			if kind != "" {
				return jsvalue.Undef, fmt.Errorf("the content part carries more than one kind")
			}
			kind, part = k, objOf(v)
		}
	}
	if kind == "" {
		return jsvalue.Undef, nil
	}
	c := jsvalue.NewObject()
	c.Set("type", kind)
	c.Set("id", part.Get("id"))
	if kind == "text" {
		c.Set("text", part.Get("text"))
	} else {
		src := part.Get("source")
		var s any
		if defined(src) {
			var err error
			if s, err = fromSource(objOf(src)); err != nil {
				return jsvalue.Undef, err
			}
			if !defined(s) {
				return jsvalue.Undef, nil
			}
		}
		c.Set("source", s)
	}
	c.Set("metadata", part.Get("metadata"))
	return c, nil
}

func fromSource(src *jsvalue.Object) (any, error) {
	var kind string
	var s *jsvalue.Object
	for _, k := range []string{"data", "url", "file"} {
		if v := src.Get(k); defined(v) {
			if kind != "" {
				return jsvalue.Undef, fmt.Errorf("the content source carries more than one kind")
			}
			kind, s = k, objOf(v)
		}
	}
	if kind == "" {
		return jsvalue.Undef, nil
	}
	o := jsvalue.NewObject()
	o.Set("type", kind)
	o.Set("value", s.Get("value"))
	if kind == "file" {
		o.Set("provider", s.Get("provider"))
	}
	o.Set("mimeType", s.Get("mimeType"))
	return o, nil
}

func (d *pbDec) fromWireInput(w *jsvalue.Object) (*jsvalue.Object, error) {
	o := jsvalue.NewObject()
	for _, k := range []string{"threadId", "runId", "protocolVersion", "parentRunId", "state"} {
		if v := w.Get(k); defined(v) {
			o.Set(k, v)
		}
	}
	var msgs []any
	for i, m := range arrayOf(w.Get("messages")) {
		mm, err := d.fromWireMessage(objOf(m), "/input/messages/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, mm)
	}
	o.Set("messages", newArray(msgs))
	o.Set("tools", newArray(arrayOf(w.Get("tools"))))
	o.Set("context", newArray(arrayOf(w.Get("context"))))
	if v := w.Get("forwardedProps"); defined(v) {
		o.Set("forwardedProps", v)
	}
	o.Set("resume", newArray(arrayOf(w.Get("resume"))))
	return o, nil
}
