// Package jsonpatch applies JSON Patch (RFC 6902) as the reference AG-UI
// client does, with fast-json-patch 3.1.1, on the JavaScript values of
// internal/jsvalue. The view (agui.View) applies STATE_DELTA and
// ACTIVITY_DELTA through it, and the agent package its state updates.
package jsonpatch

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/internal/jsonpointer"
	"github.com/aguitest/aguitest/internal/jsvalue"
)

// The reference client applies STATE_DELTA and ACTIVITY_DELTA with
// fast-json-patch 3.1.1: applyPatch(document, patch, validate=true,
// mutate=false). When the patch throws, the client keeps the document as
// it was. This file reproduces that applier's results, including where
// they depart from RFC 6902:
//
//   - an array index may have leading zeros ("/a/01" is index 1), is read
//     as a 32-bit integer ("/a/4294967297" is index 1 to add), and the
//     empty token is index 0;
//   - a move or copy to an array index past the end appends;
//   - a name every object inherits (toString, constructor, ...) counts as
//     present: replacing or removing it succeeds, copying it from gives a
//     function, which the client cannot clone;
//   - "__proto__", and "prototype" after "constructor", are refused;
//   - an operation on a primitive document other than null (a number, a
//     string) changes nothing and succeeds when the path exists on it
//     ("/length" of a string) or the document is falsy;
//   - test compares with fast-json-patch's deep equality, which throws
//     when the expected object has an own "hasOwnProperty" member;
//   - a move or copy of a missing path to the root leaves no document
//     (undefined).
//
// A patch whose copies would grow the document past maxPatchValues values
// fails here; in the client it would exhaust memory.
//
// An operation whose shape @ag-ui/core's JsonPatch schema rejects is an
// error here, where fast-json-patch may go on: the client fails such an
// event before it reaches the applier. A move of the whole document into
// itself makes a cycle, as in fast-json-patch; a later operation may undo
// it, but a patch that ends with one is an error (no JSON can hold it).

// Error says why a JSON Patch does not apply. The reference client
// then keeps its state (or the activity's content) as it was.
type Error struct {
	// Index is the operation, counting from 0.
	Index int
	// Name is fast-json-patch's error name (OPERATION_PATH_UNRESOLVABLE,
	// TEST_OPERATION_FAILED, ...), or TypeError or DataCloneError for
	// what JavaScript itself throws.
	Name string
	// Message describes the problem.
	Message string
}

// Error returns "operation N: NAME: message".
func (e *Error) Error() string {
	return fmt.Sprintf("operation %d: %s: %s", e.Index, e.Name, e.Message)
}

// Names of the errors (Error.Name), as fast-json-patch names them, and
// as JavaScript names what it throws itself (TypeError, DataCloneError);
// the last three are this package's.
const (
	NotArray       = "SEQUENCE_NOT_AN_ARRAY"
	NotObject      = "OPERATION_NOT_AN_OBJECT"
	OpInvalid      = "OPERATION_OP_INVALID"
	PathInvalid    = "OPERATION_PATH_INVALID"
	FromRequired   = "OPERATION_FROM_REQUIRED"
	ValueRequired  = "OPERATION_VALUE_REQUIRED"
	CannotAdd      = "OPERATION_PATH_CANNOT_ADD"
	Unresolvable   = "OPERATION_PATH_UNRESOLVABLE"
	FromUnresolved = "OPERATION_FROM_UNRESOLVABLE"
	IllegalIndex   = "OPERATION_PATH_ILLEGAL_ARRAY_INDEX"
	OutOfBounds    = "OPERATION_VALUE_OUT_OF_BOUNDS"
	TestFailed     = "TEST_OPERATION_FAILED"
	TypeError      = "TypeError"
	DataClone      = "DataCloneError"
	NoDocument     = "NO_DOCUMENT"
	Cycle          = "CIRCULAR_RESULT"
	TooLarge       = "DOCUMENT_TOO_LARGE"
)

// Apply applies a JSON Patch (RFC 6902) to a JSON document as the
// reference client applies STATE_DELTA: with fast-json-patch 3.1.1's
// applyPatch, validating, on a copy. It returns the new document as
// JSON.stringify writes it, or a *Error when the patch does not apply
// (the client then keeps the document unchanged). Invalid JSON in either
// argument is an error too.
//
// Where fast-json-patch departs from the RFC, so does Apply: see the
// package comment above for the list.
func Apply(doc, patch []byte) ([]byte, error) {
	d, err := jsvalue.Parse(doc)
	if err != nil {
		return nil, fmt.Errorf("document: %w", err)
	}
	p, err := jsvalue.Parse(patch)
	if err != nil {
		return nil, fmt.Errorf("patch: %w", err)
	}
	out, err := ApplyValue(d, p)
	if err != nil {
		return nil, err
	}
	if jsvalue.HasCycle(out) {
		return nil, &Error{Name: Cycle, Message: "the result contains itself (the document was moved into itself)"}
	}
	if _, err := jsvalue.StructuredClone(out); err != nil {
		return nil, &Error{Name: DataClone, Message: "the result holds a function (an inherited method copied or moved into it)"}
	}
	b := jsvalue.Stringify(out)
	if b == nil {
		return nil, &Error{Name: NoDocument, Message: "the patch leaves no document (a move or copy of a missing path to the root)"}
	}
	return b, nil
}

// patchOp is one operation; value is undefined when absent.
type patchOp struct {
	op, path, from string
	value          any
}

// pointerRE is @ag-ui/core's JsonPointer schema.
var pointerRE = regexp.MustCompile(`^(/([^/~]|~[01])*)*$`)

// readOp checks an operation's shape as fast-json-patch's validator does
// (and @ag-ui/core's schema, which rejects a few shapes the validator lets
// through).
func readOp(v any, index int) (*patchOp, error) {
	o, ok := v.(*jsvalue.Object)
	if !ok {
		return nil, &Error{index, NotObject, "Operation is not an object"}
	}
	op := &patchOp{value: o.Get("value")}
	switch s, _ := o.Get("op").(string); s {
	case "add", "remove", "replace", "move", "copy", "test":
		op.op = s
	default:
		return nil, &Error{index, OpInvalid, "Operation `op` property is not one of operations defined in RFC-6902"}
	}
	path, ok := o.Get("path").(string)
	if !ok || (path != "" && path[0] != '/') || !pointerRE.MatchString(path) {
		return nil, &Error{index, PathInvalid, "Operation `path` property is not a JSON pointer"}
	}
	op.path = path
	switch op.op {
	case "move", "copy":
		from, ok := o.Get("from").(string)
		if !ok || !pointerRE.MatchString(from) {
			return nil, &Error{index, FromRequired, "Operation `from` property is not a JSON pointer"}
		}
		op.from = from
	case "add", "replace", "test":
		if _, ok := op.value.(jsvalue.Undefined); ok {
			return nil, &Error{index, ValueRequired, "Operation `value` property is not present"}
		}
	}
	return op, nil
}

// maxPatchValues bounds the values a document may grow to while a patch
// applies. Each copy can double a document, so a short patch can ask for
// more memory than any client has; past the bound the patch fails here
// rather than exhausting memory, as it would in the client.
const maxPatchValues = 1 << 20

// ApplyValue applies patch to doc, both JavaScript values of
// internal/jsvalue, as applyPatch(doc, patch, true, false) does: on a
// copy, validating. Unlike Apply it does not check that the result can be
// cloned and written as JSON; the caller does what its client does then.
func ApplyValue(doc, patch any) (any, error) {
	ops, ok := patch.(*jsvalue.Array)
	if !ok {
		return nil, &Error{0, NotArray, "Patch sequence must be an array"}
	}
	doc, err := deepCloneFJP(doc)
	if err != nil {
		return nil, typeErr(0, err)
	}
	size := countValues(doc)
	for i, v := range ops.Elems {
		op, err := readOp(v, i)
		if err != nil {
			return nil, err
		}
		if op.op == "copy" {
			if from, err := getByPointer(doc, op.from, i); err == nil {
				if size += countValues(from); size > maxPatchValues {
					return nil, &Error{i, TooLarge, fmt.Sprintf("the document would grow past %d values", maxPatchValues)}
				}
			}
		}
		doc, _, err = applyOp(doc, op, true, i)
		if err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// countValues counts the values in v, stopping early past the bound (and
// at a value that contains itself, which copying refuses anyway).
func countValues(v any) int {
	n := 0
	seen := map[any]bool{}
	var walk func(v any)
	walk = func(v any) {
		n++
		if n > maxPatchValues {
			return
		}
		switch x := v.(type) {
		case *jsvalue.Object:
			if seen[x] {
				return
			}
			seen[x] = true
			for _, k := range x.Keys() {
				walk(x.Get(k))
			}
			delete(seen, x)
		case *jsvalue.Array:
			if seen[x] {
				return
			}
			seen[x] = true
			for _, e := range x.Elems {
				walk(e)
			}
			delete(seen, x)
		}
	}
	walk(v)
	return n
}

// deepCloneFJP is fast-json-patch's _deepClone: a JSON round trip for
// objects, arrays and null, null for undefined, anything else as it is. A
// value that contains itself cannot be written as JSON: a TypeError.
func deepCloneFJP(v any) (any, error) {
	switch v.(type) {
	case jsvalue.Undefined:
		return nil, nil
	case *jsvalue.Object, *jsvalue.Array:
		if jsvalue.HasCycle(v) {
			return nil, &jsvalue.TypeError{Msg: "Converting circular structure to JSON"}
		}
		return jsvalue.JSONClone(v), nil
	}
	return v, nil
}

// typeErr wraps what JavaScript throws as a Error named TypeError.
func typeErr(index int, err error) error {
	var te *jsvalue.TypeError
	if errors.As(err, &te) {
		return &Error{index, TypeError, te.Msg}
	}
	if errors.Is(err, jsvalue.ErrSparse) {
		return &Error{index, TypeError, err.Error()}
	}
	return err
}

// applyOp is fast-json-patch's applyOperation on a document it may change
// in place. It returns the new document and what the operation removed
// (remove, replace, move) or read (_get).
func applyOp(doc any, op *patchOp, validate bool, index int) (newDoc, result any, err error) {
	if op.path == "" {
		switch op.op {
		case "add", "replace":
			return op.value, doc, nil
		case "move", "copy":
			v, err := getByPointer(doc, op.from, index)
			return v, doc, err
		case "test":
			eq, err := jsAreEquals(doc, op.value)
			if err != nil {
				return nil, nil, typeErr(index, err)
			}
			if !eq {
				return nil, nil, &Error{index, TestFailed, "Test operation failed"}
			}
			return doc, nil, nil
		case "remove":
			return nil, doc, nil
		default: // _get
			return doc, doc, nil
		}
	}
	keys := strings.Split(op.path, "/")
	n := len(keys)
	obj := doc
	checked := false
	for t := 1; ; {
		key := jsonpointer.Unescape(keys[t])
		if key == "__proto__" || (key == "prototype" && keys[t-1] == "constructor") {
			return nil, nil, &Error{index, TypeError, "JSON-Patch: modifying `__proto__` or `constructor/prototype` prop is banned for security reasons"}
		}
		if validate && !checked {
			v, err := jsvalue.Get(obj, key)
			if err != nil {
				return nil, nil, typeErr(index, err)
			}
			frag := ""
			if _, ok := v.(jsvalue.Undefined); ok {
				frag, checked = strings.Join(keys[:t], "/"), true
			} else if t == n-1 {
				frag, checked = op.path, true
			}
			if checked {
				if err := validateAt(doc, op, frag, index); err != nil {
					return nil, nil, err
				}
			}
		}
		t++
		if arr, ok := obj.(*jsvalue.Array); ok {
			var ik int
			numeric := true
			switch {
			case key == "-":
				ik = len(arr.Elems)
			case isDigits(key):
				ik = toInt32(key)
			case validate:
				return nil, nil, &Error{index, IllegalIndex, "Expected an unsigned base-10 integer value, making the new referenced value the array element with the zero-based index"}
			default:
				numeric = false
			}
			if t >= n {
				if validate && op.op == "add" && ik > len(arr.Elems) {
					return nil, nil, &Error{index, OutOfBounds, "The specified index MUST NOT be greater than the number of elements in the array"}
				}
				return arrayOp(doc, op, arr, ik, numeric, key, index)
			}
			if numeric {
				obj = elemAt(arr, ik)
			} else {
				obj, _ = jsvalue.Get(arr, key)
			}
		} else {
			if t >= n {
				return objectOp(doc, op, obj, key, index)
			}
			v, err := jsvalue.Get(obj, key)
			if err != nil {
				return nil, nil, typeErr(index, err)
			}
			obj = v
		}
		if validate && t < n && (!jsvalue.Truthy(obj) || !jsvalue.IsObjectType(obj)) {
			return nil, nil, &Error{index, Unresolvable, "Cannot perform operation at the desired path"}
		}
	}
}

// validateAt is the validator's check of an operation against the
// document, at frag, the part of the path that exists.
func validateAt(doc any, op *patchOp, frag string, index int) error {
	if !jsvalue.Truthy(doc) {
		return nil
	}
	switch op.op {
	case "add":
		pl, fl := strings.Count(op.path, "/")+1, strings.Count(frag, "/")+1
		if pl != fl+1 && pl != fl {
			return &Error{index, CannotAdd, "Cannot perform an `add` operation at the desired path"}
		}
	case "replace", "remove", "_get":
		if op.path != frag {
			return &Error{index, Unresolvable, "Cannot perform the operation at a path that does not exist"}
		}
	case "move", "copy":
		// fast-json-patch validates a copy of the document with a _get of
		// from; only an unresolvable from counts.
		clone, err := deepCloneFJP(doc)
		if err != nil {
			return typeErr(index, err)
		}
		_, _, err = applyOp(clone, &patchOp{op: "_get", path: op.from}, true, 0)
		var pe *Error
		if errors.As(err, &pe) {
			switch pe.Name {
			case Unresolvable:
				return &Error{index, FromUnresolved, "Cannot perform the operation from a path that does not exist"}
			case TypeError:
				return &Error{index, TypeError, pe.Message}
			}
		}
	}
	return nil
}

// getByPointer is getValueByPointer: an unvalidated _get.
func getByPointer(doc any, ptr string, index int) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	_, v, err := applyOp(doc, &patchOp{op: "_get", path: ptr}, false, index)
	return v, err
}

// objectOp applies an operation to key of a container that is not an
// array (an object, or a primitive at the root).
func objectOp(doc any, op *patchOp, obj any, key string, index int) (any, any, error) {
	switch op.op {
	case "add":
		if err := jsvalue.Set(obj, key, op.value); err != nil {
			return nil, nil, typeErr(index, err)
		}
		return doc, nil, nil
	case "remove", "replace":
		removed, err := jsvalue.Get(obj, key)
		if err != nil {
			return nil, nil, typeErr(index, err)
		}
		if op.op == "remove" {
			err = jsvalue.Delete(obj, key)
		} else {
			err = jsvalue.Set(obj, key, op.value)
		}
		if err != nil {
			return nil, nil, typeErr(index, err)
		}
		return doc, removed, nil
	case "test":
		v, err := jsvalue.Get(obj, key)
		if err != nil {
			return nil, nil, typeErr(index, err)
		}
		return testValue(doc, v, op, index)
	case "_get":
		v, err := jsvalue.Get(obj, key)
		if err != nil {
			return nil, nil, typeErr(index, err)
		}
		return doc, v, nil
	}
	return moveOrCopy(doc, op, index)
}

func testValue(doc, v any, op *patchOp, index int) (any, any, error) {
	eq, err := jsAreEquals(v, op.value)
	if err != nil {
		return nil, nil, typeErr(index, err)
	}
	if !eq {
		return nil, nil, &Error{index, TestFailed, "Test operation failed"}
	}
	return doc, nil, nil
}

// moveOrCopy is the move and copy of fast-json-patch: read (and for move
// remove) from, then add it at path, both unvalidated.
func moveOrCopy(doc any, op *patchOp, index int) (any, any, error) {
	if op.op == "copy" {
		v, err := getByPointer(doc, op.from, index)
		if err != nil {
			return nil, nil, err
		}
		c, err := deepCloneFJP(v)
		if err != nil {
			return nil, nil, typeErr(index, err)
		}
		if _, _, err := applyOp(doc, &patchOp{op: "add", path: op.path, value: c}, false, index); err != nil {
			return nil, nil, err
		}
		return doc, nil, nil
	}
	removed, err := getByPointer(doc, op.path, index)
	if err != nil {
		return nil, nil, err
	}
	if jsvalue.Truthy(removed) {
		if removed, err = deepCloneFJP(removed); err != nil {
			return nil, nil, typeErr(index, err)
		}
	}
	_, orig, err := applyOp(doc, &patchOp{op: "remove", path: op.from}, false, index)
	if err != nil {
		return nil, nil, err
	}
	if _, _, err := applyOp(doc, &patchOp{op: "add", path: op.path, value: orig}, false, index); err != nil {
		return nil, nil, err
	}
	return doc, removed, nil
}

// arrayOp applies an operation to an array element: ik when numeric, else
// the property key (reached only without validation).
func arrayOp(doc any, op *patchOp, arr *jsvalue.Array, ik int, numeric bool, key string, index int) (any, any, error) {
	switch op.op {
	case "add":
		if !numeric {
			if err := jsvalue.Set(arr, key, op.value); err != nil {
				return nil, nil, typeErr(index, err)
			}
			return doc, nil, nil
		}
		i := spliceStart(float64(ik), len(arr.Elems))
		arr.Elems = append(arr.Elems, nil)
		copy(arr.Elems[i+1:], arr.Elems[i:])
		arr.Elems[i] = op.value
		return doc, nil, nil
	case "remove":
		start := float64(ik)
		if !numeric {
			start = jsNumberOf(key)
		}
		i := spliceStart(start, len(arr.Elems))
		if i >= len(arr.Elems) {
			return doc, jsvalue.Undef, nil
		}
		removed := arr.Elems[i]
		arr.Elems = append(arr.Elems[:i], arr.Elems[i+1:]...)
		return doc, removed, nil
	case "replace":
		if !numeric {
			removed, _ := jsvalue.Get(arr, key)
			if err := jsvalue.Set(arr, key, op.value); err != nil {
				return nil, nil, typeErr(index, err)
			}
			return doc, removed, nil
		}
		removed := elemAt(arr, ik)
		if ik >= 0 {
			if err := jsvalue.Set(arr, strconv.Itoa(ik), op.value); err != nil {
				return nil, nil, typeErr(index, err)
			}
		}
		return doc, removed, nil
	case "test", "_get":
		v := elemAt(arr, ik)
		if !numeric {
			v, _ = jsvalue.Get(arr, key)
		}
		if op.op == "_get" {
			return doc, v, nil
		}
		return testValue(doc, v, op, index)
	}
	return moveOrCopy(doc, op, index)
}

func elemAt(arr *jsvalue.Array, i int) any {
	if i < 0 || i >= len(arr.Elems) {
		return jsvalue.Undef
	}
	return arr.Elems[i]
}

// spliceStart is where Array.prototype.splice starts for a start argument
// (already an integer, or NaN read as 0).
func spliceStart(f float64, n int) int {
	switch {
	case math.IsNaN(f):
		return 0
	case f < 0:
		return int(max(float64(n)+f, 0))
	case f > float64(n):
		return n
	}
	return int(f)
}

// jsNumberOf is Number(s) truncated toward zero; NaN stays NaN.
func jsNumberOf(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil && !math.IsInf(f, 0) {
		return math.NaN()
	}
	return math.Trunc(f)
}

// isDigits is fast-json-patch's isInteger: only digits, and true for "".
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// toInt32 is ~~s for a string of digits.
func toInt32(s string) int {
	f, _ := strconv.ParseFloat(s, 64)
	if s == "" || math.IsInf(f, 0) {
		return 0
	}
	m := math.Mod(f, 4294967296)
	if m >= 2147483648 {
		m -= 4294967296
	}
	return int(m)
}

// jsAreEquals is fast-json-patch's _areEquals(a, b).
func jsAreEquals(a, b any) (bool, error) {
	if jsvalue.StrictEqual(a, b) {
		return true, nil
	}
	if jsvalue.Truthy(a) && jsvalue.Truthy(b) && jsvalue.IsObjectType(a) && jsvalue.IsObjectType(b) {
		arrA, okA := a.(*jsvalue.Array)
		arrB, okB := b.(*jsvalue.Array)
		if okA && okB {
			if len(arrA.Elems) != len(arrB.Elems) {
				return false, nil
			}
			for i := len(arrA.Elems) - 1; i >= 0; i-- {
				if eq, err := jsAreEquals(arrA.Elems[i], arrB.Elems[i]); err != nil || !eq {
					return false, err
				}
			}
			return true, nil
		}
		if okA != okB {
			return false, nil
		}
		oa, ob := a.(*jsvalue.Object), b.(*jsvalue.Object)
		keys := oa.Keys()
		if len(keys) != ob.Len() {
			return false, nil
		}
		if len(keys) > 0 {
			if _, shadowed := ob.Own("hasOwnProperty"); shadowed {
				return false, &jsvalue.TypeError{Msg: "b.hasOwnProperty is not a function"}
			}
		}
		for i := len(keys) - 1; i >= 0; i-- {
			if _, ok := ob.Own(keys[i]); !ok {
				return false, nil
			}
		}
		for i := len(keys) - 1; i >= 0; i-- {
			if eq, err := jsAreEquals(oa.Get(keys[i]), ob.Get(keys[i])); err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	}
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	return ok1 && ok2 && math.IsNaN(x) && math.IsNaN(y), nil
}
