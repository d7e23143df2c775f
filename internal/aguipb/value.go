package aguipb

import (
	"strconv"

	"github.com/aguitest/aguitest/internal/jsonpointer"
	"github.com/aguitest/aguitest/internal/jsvalue"
)

// The protobuf codec works on JSON values as JavaScript holds them
// (internal/jsvalue), because the reference decoder is JavaScript: it
// builds objects field by field, deletes and re-adds keys, and
// JSON.stringify writes what it built. Key order is therefore JavaScript's:
// integer-like keys first, ascending, then the others in insertion order;
// assigning an existing key keeps its place. Its strings are UTF-8
// (jsvalue.ParseUTF8).

// The accessors below read a value as the codec expects it, with the zero
// value for any other kind.

func strOf(v any) string { s, _ := v.(string); return s }

func numOf(v any) float64 { f, _ := v.(float64); return f }

func boolOf(v any) bool { b, _ := v.(bool); return b }

func objOf(v any) *jsvalue.Object { o, _ := v.(*jsvalue.Object); return o }

func arrOf(v any) *jsvalue.Array { a, _ := v.(*jsvalue.Array); return a }

func isStr(v any) bool { _, ok := v.(string); return ok }

func isNum(v any) bool { _, ok := v.(float64); return ok }

func isBool(v any) bool { _, ok := v.(bool); return ok }

func isObj(v any) bool { _, ok := v.(*jsvalue.Object); return ok }

func isArr(v any) bool { _, ok := v.(*jsvalue.Array); return ok }

func defined(v any) bool { _, undef := v.(jsvalue.Undefined); return !undef }

func newArray(elems []any) *jsvalue.Array { return &jsvalue.Array{Elems: elems} }

// arrayOf returns the elements of an array, nil for anything else.
func arrayOf(v any) []any {
	if a, ok := v.(*jsvalue.Array); ok {
		return a.Elems
	}
	return nil
}

// appendJSONValue appends v as JSON.stringify writes it; undefined, which
// it leaves out, writes null.
func appendJSONValue(b []byte, v any) []byte {
	if out, ok := jsvalue.AppendJSON(b, v); ok {
		return out
	}
	return append(b, "null"...)
}

// Diff appends a Loss for every place where got differs from want.
func Diff(path string, want, got any, out []Loss) []Loss {
	if jsvalue.SameJSON(want, got) {
		return out
	}
	wo, wObj := want.(*jsvalue.Object)
	go_, gObj := got.(*jsvalue.Object)
	wa, wArr := want.(*jsvalue.Array)
	ga, gArr := got.(*jsvalue.Array)
	switch {
	case !defined(got):
		return append(out, Loss{Path: path, Reason: "not carried (was " + jsShort(want) + ")"})
	case !defined(want):
		return append(out, Loss{Path: path, Reason: "added as " + jsShort(got)})
	case wObj && gObj:
		for _, k := range wo.Keys() {
			out = Diff(path+"/"+jsonpointer.Escape(k), wo.Get(k), go_.Get(k), out)
		}
		for _, k := range go_.Keys() {
			if _, ok := wo.Own(k); !ok {
				out = Diff(path+"/"+jsonpointer.Escape(k), jsvalue.Undef, go_.Get(k), out)
			}
		}
		return out
	case wArr && gArr && len(wa.Elems) == len(ga.Elems):
		for i := range wa.Elems {
			out = Diff(path+"/"+strconv.Itoa(i), wa.Elems[i], ga.Elems[i], out)
		}
		return out
	}
	return append(out, Loss{Path: path, Reason: "changed from " + jsShort(want) + " to " + jsShort(got)})
}

// jsShort is v's JSON, cut to a length fit for a message.
func jsShort(v any) string {
	s := string(appendJSONValue(nil, v))
	if len(s) > 60 {
		cut := 57
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
