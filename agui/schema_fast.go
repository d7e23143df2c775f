package agui

import (
	"sync"

	"github.com/aguitest/aguitest/internal/schema"
)

// The fast path of the schema stage: most events are flat (strings, an
// optional timestamp, opaque metadata), and one pass over their members
// tells that they are valid and need no stripping. Anything else — a
// member the fast path cannot judge alone, a missing field, a wrong kind —
// goes to the full checker, which finds the same answer with the
// validator's messages in the validator's order.

type fastTable struct {
	fields   []schema.FlatField
	required uint64 // bit i: fields[i] is required
	open     bool
	// For events whose members are all indexed (Event.other unset): the
	// slot of each field in Event.f (-1 when not indexed), and the slots
	// the schema knows.
	slots   []int
	allowed uint16
}

var (
	fastOnce       sync.Once
	fastTables     [cSubagentError + 1]*fastTable // by type code
	fast0059Tables [cSubagentError + 1]*fastTable
)

func fastTableOf(c typeCode) *fastTable {
	fastOnce.Do(buildFastTables)
	if c == 0 || int(c) >= len(fastTables) {
		return nil
	}
	return fastTables[c]
}

func fastTable0059Of(c typeCode) *fastTable {
	fastOnce.Do(buildFastTables)
	if c == 0 || int(c) >= len(fast0059Tables) {
		return nil
	}
	return fast0059Tables[c]
}

func buildFastTables() {
	for _, t := range EventTypes {
		if fl, ok := schema.FlatEvent(string(t)); ok {
			fastTables[codeOf(t)] = newFastTable(fl)
		}
		if fl, ok := schema.FlatEvent0059(string(t)); ok {
			fast0059Tables[codeOf(t)] = newFastTable(fl)
		}
	}
}

// find returns the position of the field named key, or -1.
func (ft *fastTable) find(key []byte) int {
	for i := range ft.fields {
		if ft.fields[i].Name == string(key) {
			return i
		}
	}
	return -1
}

// newFastTable indexes a flat schema by the slots of Event.f.
func newFastTable(fl schema.Flat) *fastTable {
	ft := &fastTable{fields: fl.Fields, open: fl.Open}
	for i, f := range fl.Fields {
		slot := indexOf([]byte(f.Name))
		ft.slots = append(ft.slots, slot)
		if slot >= 0 {
			ft.allowed |= 1 << slot
		}
		if !f.Optional && i < 64 {
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

// fastValid0059 reports whether the event is valid under @ag-ui/core
// 0.0.59's schema as far as one pass can tell; false means "ask
// schema.Check0059".
func fastValid0059(e *Event) bool {
	ft := fastTable0059Of(e.code)
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
			if !ft.fields[i].Optional {
				return false // required and absent
			}
			continue
		}
		v := e.f[slot]
		if v.Kind == kindAbsent {
			if !ft.fields[i].Optional {
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

func fastKindOK(e *Event, f *schema.FlatField, v span) bool {
	switch f.Kind {
	case schema.FlatAny:
		return true
	case schema.FlatNotNull:
		return v.Kind != kindNull
	case schema.FlatString, schema.FlatStringOr:
		return v.Kind == kindString
	case schema.FlatObject:
		return v.Kind == kindObject
	case schema.FlatBool:
		return v.Kind == kindBool
	case schema.FlatNumber:
		return v.Kind == kindNumber
	case schema.FlatStringOrNull:
		return v.Kind == kindString || v.Kind == kindNull
	case schema.FlatArray:
		return v.Kind == kindArray
	case schema.FlatSafeInt:
		return v.Kind == kindNumber && isSafeIntText(e.raw[v.Start:v.End])
	case schema.FlatEnum:
		if v.Kind == kindString && !v.Escaped {
			for _, want := range f.Values {
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
