package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/aguitest/aguitest/internal/jsonx"
)

// Event is one AG-UI event. It keeps the JSON bytes exactly as they were
// received: unknown fields, unknown event types, field order and nulls all
// survive, and MarshalJSON writes the same bytes back. The typed accessors
// read the fields that tools need; a field that is absent or not a string
// reads as "".
//
// An Event is a small value; copying it shares the underlying bytes, which
// must not be modified.
type Event struct {
	raw  []byte
	typ  EventType
	code typeCode
	// other says a member is not in the index (or its key is escaped, or
	// an indexed key repeats): the index alone does not tell the event's
	// shape.
	other bool
	// valid says the event was built by one of this package's typed
	// constructors, which write only fields of its schema with their
	// types: the schema stage has nothing to check (TestConstructorsValid).
	valid bool
	f     [nIndexed]span
}

// The top-level fields indexed when an event is parsed. Others are found on
// demand by Field.
// The index holds what the verifier reads on every event, so that an Event
// stays small to copy.
const (
	fType = iota
	fMessageID
	fToolCallID
	fParentMessageID
	fStepName
	fDelta
	fSubagentRunID
	fTimestamp
	fRole
	fToolCallName
	nIndexed
)

func indexOf(key []byte) int {
	switch string(key) {
	case "type":
		return fType
	case "messageId":
		return fMessageID
	case "toolCallId":
		return fToolCallID
	case "parentMessageId":
		return fParentMessageID
	case "stepName":
		return fStepName
	case "delta":
		return fDelta
	case "subagentRunId":
		return fSubagentRunID
	case "timestamp":
		return fTimestamp
	case "role":
		return fRole
	case "toolCallName":
		return fToolCallName
	}
	return -1
}

// ErrNotObject is returned (wrapped) when an event is valid JSON but not an
// object.
var ErrNotObject = errors.New("event is not a JSON object")

// ErrNoType is returned (wrapped) when an event has no string "type" field.
var ErrNoType = errors.New(`event has no string "type" field`)

// ParseEvent parses one event from its JSON text. The event keeps data (it is
// not copied): the caller must not modify data afterwards. Surrounding JSON
// white space (space, tab, CR, LF) is trimmed. Invalid JSON, invalid UTF-8, input that is not an object,
// an object without a string "type" and nesting deeper than MaxDepth are
// errors.
func ParseEvent(data []byte) (Event, error) {
	var e Event
	err := e.parse(data)
	return e, err
}

func (e *Event) parse(data []byte) error {
	data = trimJSONSpace(data)
	*e = Event{raw: data}
	if len(data) == 0 {
		return errors.New("empty event")
	}
	if data[0] != '{' {
		sp, end, err := scanValue(data, 0)
		if err != nil {
			return err
		}
		if end != len(data) {
			return syntaxErr(end, "unexpected data after the value")
		}
		_ = sp
		return ErrNotObject
	}
	// One pass validates the object and records its top-level members.
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == '}' {
		i++
	} else {
		for {
			if i >= len(data) {
				return syntaxErr(i, "unexpected end of input inside object")
			}
			if data[i] != '"' {
				return syntaxErr(i, "object key expected, found %q", data[i])
			}
			ke, esc, err := scanString(data, i)
			if err != nil {
				return err
			}
			key := data[i+1 : ke-1]
			if esc {
				key = []byte(unquote(data[i:ke]))
			}
			i = skipSpace(data, ke)
			if i >= len(data) || data[i] != ':' {
				return syntaxErr(i, "':' expected after object key")
			}
			v, next, err := scanValue(data, i+1)
			if err != nil {
				return err
			}
			if f := indexOf(key); f >= 0 && !esc {
				if e.f[f].Kind != kindAbsent {
					e.other = true // a repeated key
				}
				e.f[f] = v // the last duplicate wins, as with JSON.parse
			} else {
				e.other = true
				if f >= 0 {
					e.f[f] = v
				}
			}
			i = skipSpace(data, next)
			if i >= len(data) {
				return syntaxErr(i, "unexpected end of input, ',' or '}' expected")
			}
			if data[i] == '}' {
				i++
				break
			}
			if data[i] != ',' {
				return syntaxErr(i, "',' or '}' expected, found %q", data[i])
			}
			i = skipSpace(data, i+1)
		}
	}
	if i != len(data) {
		return syntaxErr(i, "unexpected data after the event object")
	}
	t := e.f[fType]
	if t.Kind != kindString {
		return ErrNoType
	}
	tb := data[t.Start+1 : t.End-1]
	if t.Escaped {
		e.typ = EventType(unquote(data[t.Start:t.End]))
		e.code = codeOf(e.typ)
	} else if k, c := internType(tb); c != 0 {
		e.typ, e.code = k, c
	} else {
		e.typ = EventType(tb)
	}
	return nil
}

// eachMember calls fn for each member of the valid JSON object in data, with
// the key (with its quotes) and the value's span. It stops when fn returns
// false.
func eachMember(data []byte, fn func(key []byte, escaped bool, v span) bool) error {
	return jsonx.EachMember(data, fn)
}

// Type returns the event's type.
func (e Event) Type() EventType { return e.typ }

// Raw returns the event's JSON exactly as received. The caller must not
// modify it.
func (e Event) Raw() []byte { return e.raw }

// MarshalJSON returns the event's bytes unchanged.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.raw == nil {
		return []byte("null"), nil
	}
	return e.raw, nil
}

// UnmarshalJSON parses an event, keeping a copy of data.
func (e *Event) UnmarshalJSON(data []byte) error {
	return e.parse(bytes.Clone(data))
}

// String returns the event's JSON.
func (e Event) String() string { return string(e.raw) }

func (e Event) str(i int) string { return e.spanString(e.f[i]) }

func (e Event) strField(name string) string { return e.spanString(e.field(name)) }

func (e Event) spanString(sp span) string {
	if sp.Kind != kindString {
		return ""
	}
	return unquote(e.raw[sp.Start:sp.End])
}

// MessageID returns the messageId field.
func (e Event) MessageID() string { return e.str(fMessageID) }

// ToolCallID returns the toolCallId field.
func (e Event) ToolCallID() string { return e.str(fToolCallID) }

// ToolCallName returns the toolCallName field.
func (e Event) ToolCallName() string { return e.strField("toolCallName") }

// ParentMessageID returns the parentMessageId field.
func (e Event) ParentMessageID() string { return e.strField("parentMessageId") }

// StepName returns the stepName field.
func (e Event) StepName() string { return e.strField("stepName") }

// Delta returns the delta field when it is a string (text, arguments and
// reasoning content). STATE_DELTA's delta is a JSON Patch array: read it with
// Field("delta").
func (e Event) Delta() string { return e.str(fDelta) }

// Role returns the role field.
func (e Event) Role() string { return e.strField("role") }

// SubagentRunID returns the subagentRunId field.
func (e Event) SubagentRunID() string { return e.str(fSubagentRunID) }

// RunID returns the runId field.
func (e Event) RunID() string { return e.strField("runId") }

// ThreadID returns the threadId field.
func (e Event) ThreadID() string { return e.strField("threadId") }

// Name returns the name field (SUBAGENT_STARTED, CUSTOM, TEXT_MESSAGE_START).
func (e Event) Name() string { return e.strField("name") }

// Timestamp returns the timestamp field (milliseconds since the Unix epoch)
// and whether it is present as a number.
func (e Event) Timestamp() (int64, bool) {
	sp := e.field("timestamp")
	if sp.Kind != kindNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(e.raw[sp.Start:sp.End]), 64)
	if err != nil {
		return 0, false
	}
	return int64(f), true
}

// Field returns the raw JSON of a top-level field and whether it is present.
// A field present as null returns "null" and true.
func (e Event) Field(name string) (json.RawMessage, bool) {
	sp := e.field(name)
	if !sp.Present() {
		return nil, false
	}
	return json.RawMessage(e.raw[sp.Start:sp.End]), true
}

// field finds a top-level field by name; indexed fields are found at once.
func (e Event) field(name string) span {
	if i := indexOf([]byte(name)); i >= 0 {
		return e.f[i]
	}
	var found span
	if len(e.raw) == 0 || !e.other {
		return found // every member is indexed: name is not one
	}
	_ = eachMember(e.raw, func(key []byte, escaped bool, v span) bool {
		k := key[1 : len(key)-1]
		if escaped {
			k = []byte(unquote(key))
		}
		if string(k) == name {
			found = v // keep scanning: the last duplicate wins
		}
		return true
	})
	return found
}

// Has reports whether a top-level field is present (null counts as present).
func (e Event) Has(name string) bool { return e.field(name).Present() }

// Decode unmarshals the event into v with encoding/json.
func (e Event) Decode(v any) error { return json.Unmarshal(e.raw, v) }

// Members returns the event's top-level fields in their order on the wire.
// Duplicate keys appear as often as they occur.
func (e Event) Members() []Member {
	var ms []Member
	if len(e.raw) == 0 {
		return nil
	}
	_ = eachMember(e.raw, func(key []byte, _ bool, v span) bool {
		ms = append(ms, Member{Key: unquote(key), Value: json.RawMessage(e.raw[v.Start:v.End])})
		return true
	})
	return ms
}

// Member is one top-level field of an event.
type Member struct {
	Key   string
	Value json.RawMessage
}

// NewEvent builds an event of type t from key/value pairs, in that order
// after "type". Values are encoded with encoding/json; a json.RawMessage is
// written as is. It panics on an odd number of arguments, a non-string key,
// or a value that does not encode: those are programming errors.
func NewEvent(t EventType, kv ...any) Event {
	if len(kv)%2 != 0 {
		panic("agui.NewEvent: odd number of key/value arguments")
	}
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	writeJSON(&b, string(t))
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			panic(fmt.Sprintf("agui.NewEvent: key %d is %T, not a string", i/2, kv[i]))
		}
		b.WriteByte(',')
		writeJSON(&b, k)
		b.WriteByte(':')
		writeJSON(&b, kv[i+1])
	}
	b.WriteByte('}')
	e, err := ParseEvent(b.Bytes())
	if err != nil {
		panic("agui.NewEvent: " + err.Error())
	}
	return e
}

func writeJSON(b *bytes.Buffer, v any) {
	if r, ok := v.(json.RawMessage); ok {
		b.Write(r)
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("agui.NewEvent: %v", err))
	}
	// Encode appends a newline.
	b.Truncate(b.Len() - 1)
}
