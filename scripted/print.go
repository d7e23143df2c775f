package scripted

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// GoString returns s as a Go composite literal to paste into a test, as in
//
//	scripted.Script{Turns: []scripted.Turn{{Text: "Hello!"}}}
//
// Zero fields are left out, the package's constants are named
// (scripted.RoundRobin), and a string holding double quotes is written
// between backquotes when it can be. It also makes %#v print a script so.
func (s Script) GoString() string {
	var b strings.Builder
	writeGo(&b, reflect.ValueOf(s), true, 0)
	return b.String()
}

// YAML returns s in the script file format, as [Load] reads it: zero
// fields left out, durations as Go durations.
func (s Script) YAML() string {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		// Every field of a Script has a YAML form; this is a bug.
		panic("scripted: encoding a script as YAML: " + err.Error())
	}
	_ = enc.Close()
	return b.String()
}

// constNames names the values of the package's string types.
var constNames = map[any]string{
	Bytes: "Bytes", Runes: "Runes", Words: "Words", Random: "Random", Whole: "Whole",
	Sequential: "Sequential", RoundRobin: "RoundRobin", Reverse: "Reverse", Shuffle: "Shuffle", Scheduled: "Scheduled",
	TextBefore: "TextBefore", TextBetween: "TextBetween", TextAfter: "TextAfter",
	IDsFirst: "IDsFirst", IDsEvery: "IDsEvery", IDsNoIndex: "IDsNoIndex",
	FaultStatus: "FaultStatus", FaultError: "FaultError", FaultDisconnect: "FaultDisconnect", FaultMalformed: "FaultMalformed", FaultStall: "FaultStall",
}

// lineWidth is how long a literal may be on one line.
const lineWidth = 100

// writeGo writes v as a Go expression; typed says the type must be
// written (false inside a slice or map of that type).
func writeGo(b *strings.Builder, v reflect.Value, typed bool, indent int) {
	if one := goLine(v, typed); len(one) <= lineWidth && !strings.Contains(one, "\n") || !multiline(v) {
		b.WriteString(one)
		return
	}
	pad := strings.Repeat("\t", indent+1)
	switch v.Kind() {
	case reflect.Pointer:
		b.WriteString("&")
		writeGo(b, v.Elem(), true, indent)
	case reflect.Struct:
		if typed {
			b.WriteString(typeName(v.Type()))
		}
		b.WriteString("{\n")
		for _, f := range fields(v) {
			b.WriteString(pad + f.name + ": ")
			writeGo(b, f.v, true, indent+1)
			b.WriteString(",\n")
		}
		b.WriteString(strings.Repeat("\t", indent) + "}")
	case reflect.Slice:
		b.WriteString(typeName(v.Type()) + "{\n")
		for i := range v.Len() {
			b.WriteString(pad)
			writeGo(b, v.Index(i), false, indent+1)
			b.WriteString(",\n")
		}
		b.WriteString(strings.Repeat("\t", indent) + "}")
	}
}

// multiline reports whether v may be written over several lines.
func multiline(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return multiline(v.Elem())
	case reflect.Struct:
		return len(fields(v)) > 1 || len(fields(v)) == 1 && multiline(fields(v)[0].v)
	case reflect.Slice:
		return v.Len() > 1 || v.Len() == 1 && multiline(v.Index(0))
	}
	return false
}

type field struct {
	name string
	v    reflect.Value
}

// fields returns the exported, non-zero fields of a struct that a script
// file can hold.
func fields(v reflect.Value) []field {
	var out []field
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() || f.Tag.Get("yaml") == "-" || v.Field(i).IsZero() {
			continue
		}
		out = append(out, field{f.Name, v.Field(i)})
	}
	return out
}

// typeName is the name of a type as a user of the package writes it.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Pointer:
		return "*" + typeName(t.Elem())
	}
	if t.PkgPath() == reflect.TypeFor[Script]().PkgPath() {
		return "scripted." + t.Name()
	}
	return t.String()
}

// goLine returns v as a Go expression on one line.
func goLine(v reflect.Value, typed bool) string {
	switch v.Kind() {
	case reflect.Pointer:
		return "&" + goLine(v.Elem(), true)
	case reflect.Struct:
		var parts []string
		for _, f := range fields(v) {
			parts = append(parts, f.name+": "+goLine(f.v, true))
		}
		s := "{" + strings.Join(parts, ", ") + "}"
		if typed {
			s = typeName(v.Type()) + s
		}
		return s
	case reflect.Slice:
		var parts []string
		for i := range v.Len() {
			parts = append(parts, goLine(v.Index(i), false))
		}
		return typeName(v.Type()) + "{" + strings.Join(parts, ", ") + "}"
	case reflect.String:
		if name, ok := constNames[v.Interface()]; ok {
			return "scripted." + name
		}
		s := quote(v.String())
		if v.Type() != reflect.TypeFor[string]() {
			s = typeName(v.Type()) + "(" + s + ")"
		}
		return s
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int64:
		if v.Type() == reflect.TypeFor[Duration]() {
			return "scripted.Duration(" + durationExpr(time.Duration(v.Int())) + ")"
		}
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	}
	return fmt.Sprintf("%#v", v.Interface())
}

// quote writes s between backquotes when it holds a double quote and can
// be written so, and as a Go string otherwise.
func quote(s string) string {
	if strings.Contains(s, `"`) && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return r == '`' || r < ' ' || r == 0x7f || r == '\uFEFF'
	}) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// durationExpr writes d as a Go expression with the time package's units.
func durationExpr(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "time.Hour"}, {time.Minute, "time.Minute"}, {time.Second, "time.Second"}, {time.Millisecond, "time.Millisecond"}, {time.Microsecond, "time.Microsecond"}} {
		if d%u.d == 0 {
			if d == u.d {
				return u.name
			}
			return strconv.FormatInt(int64(d/u.d), 10) + " * " + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10)
}
