package schema

// The flat view of an event's schema, for a fast path: most events are
// flat (strings, an optional timestamp, opaque metadata), and one pass over
// their members tells that they are valid and need no stripping. A field
// whose kind is FlatDeep, or anything the pass cannot judge alone (an
// escaped key, a repeated key), goes to the full checker, which finds the
// same answer with the validator's messages in the validator's order.

// FlatKind is what a field's value must be, as far as one look at its
// kind (and, for an enum, its unescaped text) can tell.
type FlatKind uint8

const (
	FlatAny          FlatKind = iota // anything
	FlatNotNull                      // anything but null
	FlatString                       // a string
	FlatObject                       // an object (metadata, activity content)
	FlatSafeInt                      // a safe integer (timestamps)
	FlatBool                         // true or false
	FlatEnum                         // one of Values (a literal is an enum of one)
	FlatStringOr                     // a string, or something only the full checker can tell
	FlatNumber                       // any number (0.0.59's timestamps)
	FlatStringOrNull                 // a string or null (0.0.59's parentMessageId)
	FlatArray                        // an array of anything (0.0.59's STATE_DELTA)
	FlatDeep                         // only the full checker can tell
)

// FlatField is one field of an event's schema.
type FlatField struct {
	Name     string
	Kind     FlatKind
	Optional bool
	Values   []string // FlatEnum: the strings accepted
}

// Flat is an event type's schema seen field by field.
type Flat struct {
	Fields []FlatField
	Open   bool // fields the schema does not name are kept, not stripped
}

// FlatEvent returns the flat view of event type typ's schema in
// @ag-ui/core 1.0.0; false when the type is not one of its events.
func FlatEvent(typ string) (Flat, bool) {
	s := Event(typ)
	if s == nil {
		return Flat{}, false
	}
	ft := Flat{Open: s.open}
	for _, f := range s.fields {
		k := FlatDeep
		switch f.s.kind {
		case sAny:
			k = FlatAny
		case sAnyNotNull:
			k = FlatNotNull
		case sAnyPresent:
			k = FlatAny
		case sString:
			k = FlatString
		case sRecordAny:
			k = FlatObject
		case sInt:
			if f.s.min == minSafeInt && f.s.max == maxSafeInt {
				k = FlatSafeInt
			}
		case sBool:
			k = FlatBool
		case sLiteral, sEnum:
			k = FlatEnum
			if f.name == "type" {
				k = FlatAny // the schema was chosen by this very value
			}
		case sUnion:
			for _, o := range f.s.options {
				if o.kind == sString {
					k = FlatStringOr
				}
			}
		}
		if f.s.nullable {
			k = FlatDeep
		}
		ft.Fields = append(ft.Fields, FlatField{Name: f.name, Kind: k, Optional: f.optional, Values: f.s.values})
	}
	return ft, true
}

// FlatEvent0059 is FlatEvent for @ag-ui/core 0.0.59's schemas.
func FlatEvent0059(typ string) (Flat, bool) {
	s := z3Event(typ)
	if s == nil {
		return Flat{}, false
	}
	ft := Flat{Open: s.unknown == z3Passthrough}
	for _, f := range s.fields {
		inner, optional := f.s, false
		if inner.kind == z3Optional {
			inner, optional = inner.inner, true
		}
		k := FlatDeep
		var values []string
		switch inner.kind {
		case z3Any:
			k, optional = FlatAny, true // any accepts undefined
		case z3String:
			k = FlatString
		case z3Nullable:
			if inner.inner.kind == z3String {
				k = FlatStringOrNull
			}
		case z3Array:
			if inner.elem.kind == z3Any && inner.minLen == 0 {
				k = FlatArray
			}
		case z3Number:
			if !inner.isInt && !inner.nonneg {
				k = FlatNumber
			}
		case z3Bool:
			k = FlatBool
		case z3Record:
			if inner.elem.kind == z3Any {
				k = FlatObject
			}
		case z3Literal, z3Enum:
			k, values = FlatEnum, inner.values
			if f.name == "type" {
				k = FlatAny
			}
		case z3Union:
			k = FlatEnum
			for _, o := range inner.options {
				if o.kind != z3Literal {
					k = FlatDeep
					break
				}
				values = append(values, o.values[0])
			}
		}
		ft.Fields = append(ft.Fields, FlatField{Name: f.name, Kind: k, Optional: optional, Values: values})
	}
	return ft, true
}

// Known0059 reports whether typ is one of @ag-ui/core 0.0.59's event types.
func Known0059(typ string) bool { return z3Event(typ) != nil }

// z3Event returns 0.0.59's schema of event type typ, or nil.
func z3Event(typ string) *z3 {
	for _, o := range z3EventSchemas.options {
		if o.literalOf("type") == typ {
			return o
		}
	}
	return nil
}
