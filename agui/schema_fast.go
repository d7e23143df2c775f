package agui

import "sync"

// The fast path of the schema stage: most events are flat (strings, an
// optional timestamp, opaque metadata), and one pass over their members
// tells that they are valid and need no stripping. Anything else — a
// member the fast path cannot judge alone, a missing field, a wrong kind —
// goes to the full checker, which finds the same answer with the
// validator's messages in the validator's order.

type fastKind uint8

const (
	fastAny          fastKind = iota // anything
	fastNotNull                      // anything but null
	fastString                       // a string
	fastObject                       // an object (metadata, activity content)
	fastSafeInt                      // a safe integer (timestamps)
	fastBool                         // true or false
	fastEnum                         // one of values (a literal is an enum of one)
	fastStringOr                     // a string, or something only the full checker can tell
	fastNumber                       // any number (0.0.59's timestamps)
	fastStringOrNull                 // a string or null (0.0.59's parentMessageId)
	fastArray                        // an array of anything (0.0.59's STATE_DELTA)
	fastDeep                         // only the full checker can tell
)

type fastField struct {
	name     string
	kind     fastKind
	optional bool
	values   []string
}

type fastTable struct {
	fields   []fastField
	required uint64 // bit i: fields[i] is required
	open     bool
	// For events whose members are all indexed (Event.other unset): the
	// slot of each field in Event.f (-1 when not indexed), and the slots
	// the schema knows.
	slots   []int
	allowed uint16
}

var (
	fastOnce   sync.Once
	fastTables [cSubagentError + 1]*fastTable // by type code
)

func fastTableOf(c typeCode) *fastTable {
	fastOnce.Do(func() {
		for t, s := range eventSchemas {
			fastTables[codeOf(t)] = newFastTable(s)
		}
	})
	if int(c) >= len(fastTables) {
		return nil
	}
	return fastTables[c]
}

// find returns the position of the field named key, or -1.
func (ft *fastTable) find(key []byte) int {
	for i := range ft.fields {
		if ft.fields[i].name == string(key) {
			return i
		}
	}
	return -1
}

func newFastTable(s *schema) *fastTable {
	ft := &fastTable{open: s.open}
	for i, f := range s.fields {
		k := fastDeep
		switch f.s.kind {
		case sAny:
			k = fastAny
		case sAnyNotNull:
			k = fastNotNull
		case sAnyPresent:
			k = fastAny
		case sString:
			k = fastString
		case sRecordAny:
			k = fastObject
		case sInt:
			if f.s.min == minSafeInt && f.s.max == maxSafeInt {
				k = fastSafeInt
			}
		case sBool:
			k = fastBool
		case sLiteral, sEnum:
			k = fastEnum
			if f.name == "type" {
				k = fastAny // the schema was chosen by this very value
			}
		case sUnion:
			for _, o := range f.s.options {
				if o.kind == sString {
					k = fastStringOr
				}
			}
		}
		if f.s.nullable {
			k = fastDeep
		}
		ft.fields = append(ft.fields, fastField{name: f.name, kind: k, optional: f.optional, values: f.s.values})
		slot := indexOf([]byte(f.name))
		ft.slots = append(ft.slots, slot)
		if slot >= 0 {
			ft.allowed |= 1 << slot
		}
		if !f.optional && i < 64 {
			ft.required |= 1 << i
		}
	}
	return ft
}

// fastValid reports whether the event is valid and needs no stripping, as
// far as one pass can tell. false means "ask the full checker".
func fastValid(e *Event) bool {
	ft := fastTableOf(e.code)
	if ft == nil || len(ft.fields) > 64 {
		return false
	}
	return fastValidWith(e, ft)
}

// fastValidWith is fastValid with the table of the event's type.
func fastValidWith(e *Event, ft *fastTable) bool {
	if !e.other {
		return fastIndexed(e, ft)
	}
	var seen uint64
	ok := true
	_ = eachMember(e.raw, func(key []byte, escaped bool, v span) bool {
		if escaped {
			ok = false
			return false
		}
		i := ft.find(key[1 : len(key)-1])
		if i < 0 {
			ok = ft.open
			return ok
		}
		if seen&(1<<i) != 0 {
			ok = false // a repeated key: the full checker knows which one counts
			return false
		}
		seen |= 1 << i
		ok = fastKindOK(e, &ft.fields[i], v)
		return ok
	})
	return ok && seen&ft.required == ft.required
}

// fastIndexed is fastValid for an event whose members are all indexed: no
// pass over its bytes is needed.
func fastIndexed(e *Event, ft *fastTable) bool {
	var present uint16
	for i := range e.f {
		if e.f[i].Kind != kindAbsent {
			present |= 1 << i
		}
	}
	if present&^ft.allowed != 0 && !ft.open {
		return false // a member the schema does not know: it is stripped
	}
	for i := range ft.fields {
		slot := ft.slots[i]
		if slot < 0 {
			if !ft.fields[i].optional {
				return false // required and absent
			}
			continue
		}
		v := e.f[slot]
		if v.Kind == kindAbsent {
			if !ft.fields[i].optional {
				return false
			}
			continue
		}
		if !fastKindOK(e, &ft.fields[i], v) {
			return false
		}
	}
	return true
}

func fastKindOK(e *Event, f *fastField, v span) bool {
	switch f.kind {
	case fastAny:
		return true
	case fastNotNull:
		return v.Kind != kindNull
	case fastString, fastStringOr:
		return v.Kind == kindString
	case fastObject:
		return v.Kind == kindObject
	case fastBool:
		return v.Kind == kindBool
	case fastNumber:
		return v.Kind == kindNumber
	case fastStringOrNull:
		return v.Kind == kindString || v.Kind == kindNull
	case fastArray:
		return v.Kind == kindArray
	case fastSafeInt:
		return v.Kind == kindNumber && isSafeIntText(e.raw[v.Start:v.End])
	case fastEnum:
		if v.Kind == kindString && !v.Escaped {
			for _, want := range f.values {
				if string(e.raw[v.Start+1:v.End-1]) == want {
					return true
				}
			}
		}
	}
	return false
}

// isSafeIntText reports whether a JSON number is written as an integer of
// at most 15 digits: certainly a safe integer. Other numbers go to the full
// checker.
func isSafeIntText(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
