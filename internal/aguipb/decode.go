package aguipb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/aguitest/aguitest/internal/jsonpointer"
	"github.com/aguitest/aguitest/internal/jsonx"
	"github.com/aguitest/aguitest/internal/jsvalue"
)

// Decoding follows @ag-ui/proto's decode: the frame must be well-formed
// protobuf naming exactly one known event; repeated singular messages
// merge and the last arm of a oneof wins, as in any protobuf decoder; then
// the message is rewritten into the event's JSON form exactly as the
// reference rewrites it (key order included). What that JSON form cannot
// carry is listed as a Loss.

// ErrFutureEvent marks a frame that names only envelope arms this version
// does not know: an event of a later protocol version, which the reference
// client drops with a warning.
var ErrFutureEvent = errors.New("the frame holds an event of a later protocol version")

// pbError is malformed protobuf at a byte offset of the frame.
type pbError struct {
	off    int
	reason string
}

// Error says where the frame is malformed and how.
func (e *pbError) Error() string {
	return fmt.Sprintf("malformed protobuf at byte %d: %s", e.off, e.reason)
}

// pbDec decodes one frame.
type pbDec struct {
	data   []byte
	losses []Loss
}

func (d *pbDec) fail(off int, format string, args ...any) error {
	return &pbError{off: off, reason: fmt.Sprintf(format, args...)}
}

func (d *pbDec) lose(path, reason string) {
	if path == "" {
		path = "/"
	}
	d.losses = append(d.losses, Loss{Path: path, Reason: reason})
}

// tag reads a field tag at i: at most five bytes, a field number of at
// least 1 and a wire type of at most 5.
func (d *pbDec) tag(i, end int) (num int, wt int, next int, err error) {
	var v uint64
	j := i
	for n := 0; ; n++ {
		if j >= end {
			return 0, 0, 0, d.fail(i, "a tag runs past the end of its message")
		}
		c := d.data[j]
		j++
		if n == 4 && c > 0x0f {
			return 0, 0, 0, d.fail(i, "a tag overflows 32 bits")
		}
		v |= uint64(c&0x7f) << (7 * n)
		if c < 0x80 {
			break
		}
	}
	num, wt = int(v>>3), int(v&7)
	if num == 0 {
		return 0, 0, 0, d.fail(i, "field number 0")
	}
	if wt > 5 {
		return 0, 0, 0, d.fail(i, "wire type %d", wt)
	}
	return num, wt, j, nil
}

// varint reads a varint value of at most ten bytes, keeping its low 64
// bits as the reference's reader does.
func (d *pbDec) varint(i, end int) (uint64, int, error) {
	var v uint64
	for n := 0; n < 10; n++ {
		if i+n >= end {
			return 0, 0, d.fail(i, "a varint runs past the end of its message")
		}
		c := d.data[i+n]
		if n < 9 {
			v |= uint64(c&0x7f) << (7 * n)
		} else {
			v |= uint64(c&1) << 63
		}
		if c < 0x80 {
			return v, i + n + 1, nil
		}
	}
	return 0, 0, d.fail(i, "a varint longer than ten bytes")
}

// varint32 reads a length: the low 32 bits of a varint of at most ten bytes.
func (d *pbDec) varint32(i, end int) (int, int, error) {
	v, next, err := d.varint(i, end)
	return int(uint32(v)), next, err
}

// skipVarint skips a varint of any length.
func (d *pbDec) skipVarint(i, end int) (int, error) {
	for ; i < end; i++ {
		if d.data[i] < 0x80 {
			return i + 1, nil
		}
	}
	return 0, d.fail(end, "a varint runs past the end of its message")
}

// bytesAt reads a length-delimited payload.
func (d *pbDec) bytesAt(i, end int) (int, int, error) {
	n, j, err := d.varint32(i, end)
	if err != nil {
		return 0, 0, err
	}
	if n > end-j {
		return 0, 0, d.fail(i, "a length of %d runs past the end of its message", n)
	}
	return j, j + n, nil
}

// skip skips the value of a field whose tag ended at i.
func (d *pbDec) skip(num, wt, i, end, depth int) (int, error) {
	switch wt {
	case 0:
		return d.skipVarint(i, end)
	case 1, 5:
		n := 8
		if wt == 5 {
			n = 4
		}
		if end-i < n {
			return 0, d.fail(i, "a fixed-size value runs past the end of its message")
		}
		return i + n, nil
	case 2:
		_, next, err := d.bytesAt(i, end)
		return next, err
	case 3:
		if depth >= 100 {
			return 0, d.fail(i, "groups nested too deeply")
		}
		for {
			n, w, next, err := d.tag(i, end)
			if err != nil {
				return 0, err
			}
			if w == 4 {
				if n != num {
					return 0, d.fail(i, "group %d closed as group %d", num, n)
				}
				return next, nil
			}
			if i, err = d.skip(n, w, next, end, depth+1); err != nil {
				return 0, err
			}
		}
	}
	return 0, d.fail(i, "an end-group tag with no group open")
}

// newObject makes a message's object as the reference's decoder creates
// it: every field in declaration order, scalars at their zero value,
// repeated fields empty, the rest undefined.
func newObject(m *MessageType) *jsvalue.Object {
	o := jsvalue.NewObject()
	for _, f := range m.Fields {
		switch {
		case f.Rep:
			o.Set(f.Name, newArray(nil))
		case f.Opt || f.Kind >= KindValue:
			o.Set(f.Name, jsvalue.Undef)
		case f.Kind == KindString:
			o.Set(f.Name, "")
		case f.Kind == KindBool:
			o.Set(f.Name, false)
		default:
			o.Set(f.Name, 0.0)
		}
	}
	return o
}

func wireTypeOf(f *Field) int {
	switch f.Kind {
	case KindBool, KindInt64, KindEnum:
		return 0
	}
	return 2
}

// message decodes data[i:end] into o, merging with what o holds.
func (d *pbDec) message(i, end int, m *MessageType, o *jsvalue.Object, path string, depth int) error {
	if depth > jsonx.MaxDepth {
		return d.fail(i, "messages nested deeper than %d", jsonx.MaxDepth)
	}
	armSeen := 0
	for i < end {
		num, wt, next, err := d.tag(i, end)
		if err != nil {
			return err
		}
		f := m.ByNum[num]
		if f == nil || wt != wireTypeOf(f) {
			if wt == 4 {
				return d.fail(i, "an end-group tag with no group open")
			}
			at := i
			if i, err = d.skip(num, wt, next, end, 0); err != nil {
				return err
			}
			if f == nil {
				d.lose(path+"/#"+strconv.Itoa(num), fmt.Sprintf("unknown field %d of %s (wire type %d) dropped", num, m.Name, wt))
			} else {
				d.lose(path+"/"+f.Name, fmt.Sprintf("field %d of %s sent with wire type %d, not %d, at byte %d: dropped", num, m.Name, wt, wireTypeOf(f), at))
			}
			continue
		}
		fpath := path + "/" + f.Name
		k := f.Name
		switch f.Kind {
		case KindString:
			s, e, err := d.bytesAt(next, end)
			if err != nil {
				return err
			}
			v := d.text(s, e, fpath)
			if f.Rep {
				a := arrOf(o.Get(k))
				a.Elems = append(a.Elems, v)
			} else {
				o.Set(k, v)
			}
			i = e
		case KindBool:
			v, n, err := d.varint(next, end)
			if err != nil {
				return err
			}
			o.Set(k, v != 0)
			i = n
		case KindEnum:
			v, n, err := d.varint(next, end)
			if err != nil {
				return err
			}
			o.Set(k, float64(int32(uint32(v))))
			i = n
		case KindInt64:
			v, n, err := d.varint(next, end)
			if err != nil {
				return err
			}
			x := int64(v)
			if x > MaxSafeInt || x < -MaxSafeInt {
				return d.fail(next, "%s %d is beyond JavaScript's safe integers (the reference client fails the stream)", f.Name, x)
			}
			o.Set(k, float64(x))
			i = n
		case KindValue:
			s, e, err := d.bytesAt(next, end)
			if err != nil {
				return err
			}
			v, err := d.value(s, e, o.Get(k), fpath, depth+1)
			if err != nil {
				return err
			}
			if !defined(v) {
				d.lose(fpath, "a google.protobuf.Value of no kind reads as absent")
			}
			o.Set(k, v)
			i = e
		case KindStruct:
			s, e, err := d.bytesAt(next, end)
			if err != nil {
				return err
			}
			so := objOf(o.Get(k))
			if !defined(o.Get(k)) {
				so = jsvalue.NewObject()
			}
			if err := d.structFields(s, e, so, fpath, depth+1); err != nil {
				return err
			}
			o.Set(k, so)
			i = e
		case KindMessage:
			s, e, err := d.bytesAt(next, end)
			if err != nil {
				return err
			}
			if f.Oneof {
				// Two arms in one occurrence is what the reference rejects;
				// across occurrences the last arm wins.
				if armSeen != 0 && armSeen != num {
					return d.fail(i, "%s carries two kinds (fields %d and %d)", m.Name, armSeen, num)
				}
				armSeen = num
				for j := range m.Fields {
					if g := &m.Fields[j]; g.Oneof && g.Num != num && defined(o.Get(g.Name)) {
						o.Set(g.Name, jsvalue.Undef)
						d.lose(path+"/"+g.Name, fmt.Sprintf("replaced by a later %s (the last kind of a oneof wins)", f.Name))
					}
				}
			}
			if f.Rep {
				so := newObject(f.Msg)
				if err := d.message(s, e, f.Msg, so, fpath+"/"+strconv.Itoa(len(arrOf(o.Get(k)).Elems)), depth+1); err != nil {
					return err
				}
				a := arrOf(o.Get(k))
				a.Elems = append(a.Elems, so)
			} else {
				so := objOf(o.Get(k))
				if !defined(o.Get(k)) {
					so = newObject(f.Msg)
				}
				if err := d.message(s, e, f.Msg, so, fpath, depth+1); err != nil {
					return err
				}
				o.Set(k, so)
			}
			i = e
		}
	}
	return nil
}

// text decodes a protobuf string as the reference's reader does: invalid
// UTF-8 becomes U+FFFD (one per maximal invalid subpart, as TextDecoder).
func (d *pbDec) text(s, e int, path string) string {
	b := d.data[s:e]
	if utf8.Valid(b) {
		return string(b)
	}
	d.lose(path, "invalid UTF-8 replaced by U+FFFD")
	return string(jsonx.ToWellFormed(b))
}

// value decodes a google.protobuf.Value into what Value.unwrap gives,
// merging with cur: the last kind wins, structs merge, lists append.
func (d *pbDec) value(i, end int, cur any, path string, depth int) (any, error) {
	if depth > jsonx.MaxDepth {
		return jsvalue.Undef, d.fail(i, "values nested deeper than %d", jsonx.MaxDepth)
	}
	v := cur
	for i < end {
		num, wt, next, err := d.tag(i, end)
		if err != nil {
			return v, err
		}
		switch {
		case num == 1 && wt == 0:
			_, i, err = d.varint(next, end)
			v = nil
		case num == 2 && wt == 1:
			if end-next < 8 {
				return v, d.fail(next, "a double runs past the end of its message")
			}
			f := math.Float64frombits(binary.LittleEndian.Uint64(d.data[next:]))
			if math.IsNaN(f) || math.IsInf(f, 0) {
				d.lose(path, "the number "+strconv.FormatFloat(f, 'g', -1, 64)+" has no JSON form (null)")
			}
			v, i = f, next+8
		case num == 3 && wt == 2:
			var s, e int
			if s, e, err = d.bytesAt(next, end); err == nil {
				v, i = d.text(s, e, path), e
			}
		case num == 4 && wt == 0:
			var x uint64
			x, i, err = d.varint(next, end)
			v = x != 0
		case num == 5 && wt == 2:
			var s, e int
			if s, e, err = d.bytesAt(next, end); err == nil {
				o := jsvalue.NewObject()
				if isObj(v) {
					o = objOf(v)
				}
				err = d.structFields(s, e, o, path, depth+1)
				v, i = o, e
			}
		case num == 6 && wt == 2:
			var s, e int
			if s, e, err = d.bytesAt(next, end); err == nil {
				var a []any
				if isArr(v) {
					a = arrOf(v).Elems
				}
				a, err = d.list(s, e, a, path, depth+1)
				v, i = newArray(a), e
			}
		default:
			if wt == 4 {
				return v, d.fail(i, "an end-group tag with no group open")
			}
			i, err = d.skip(num, wt, next, end, 0)
			d.lose(path+"/#"+strconv.Itoa(num), fmt.Sprintf("unknown field %d of google.protobuf.Value (wire type %d) dropped", num, wt))
		}
		if err != nil {
			return v, err
		}
	}
	return v, nil
}

// list decodes a google.protobuf.ListValue, appending to a.
func (d *pbDec) list(i, end int, a []any, path string, depth int) ([]any, error) {
	for i < end {
		num, wt, next, err := d.tag(i, end)
		if err != nil {
			return a, err
		}
		if num != 1 || wt != 2 {
			if wt == 4 {
				return a, d.fail(i, "an end-group tag with no group open")
			}
			if i, err = d.skip(num, wt, next, end, 0); err != nil {
				return a, err
			}
			d.lose(path+"/#"+strconv.Itoa(num), "unknown field of google.protobuf.ListValue dropped")
			continue
		}
		s, e, err := d.bytesAt(next, end)
		if err != nil {
			return a, err
		}
		ep := path + "/" + strconv.Itoa(len(a))
		v, err := d.value(s, e, jsvalue.Undef, ep, depth+1)
		if err != nil {
			return a, err
		}
		if !defined(v) {
			d.lose(ep, "a google.protobuf.Value of no kind in a list reads as null")
		}
		a = append(a, v)
		i = e
	}
	return a, nil
}

// structFields decodes a google.protobuf.Struct's entries into o.
func (d *pbDec) structFields(i, end int, o *jsvalue.Object, path string, depth int) error {
	for i < end {
		num, wt, next, err := d.tag(i, end)
		if err != nil {
			return err
		}
		if num != 1 || wt != 2 {
			if wt == 4 {
				return d.fail(i, "an end-group tag with no group open")
			}
			if i, err = d.skip(num, wt, next, end, 0); err != nil {
				return err
			}
			d.lose(path+"/#"+strconv.Itoa(num), "unknown field of google.protobuf.Struct dropped")
			continue
		}
		s, e, err := d.bytesAt(next, end)
		if err != nil {
			return err
		}
		// A map entry: key (1) and value (2), which merges when repeated.
		// The key may follow the value: find it first, to name paths.
		key, unknown := "", 0
		var vals [][2]int
		for j := s; j < e; {
			n, w, nx, err := d.tag(j, e)
			if err != nil {
				return err
			}
			switch {
			case n == 1 && w == 2:
				ks, ke, err := d.bytesAt(nx, e)
				if err != nil {
					return err
				}
				key, j = d.text(ks, ke, path), ke
			case n == 2 && w == 2:
				vs, ve, err := d.bytesAt(nx, e)
				if err != nil {
					return err
				}
				vals, j = append(vals, [2]int{vs, ve}), ve
			default:
				if w == 4 {
					return d.fail(j, "an end-group tag with no group open")
				}
				if j, err = d.skip(n, w, nx, e, 0); err != nil {
					return err
				}
				unknown = n
			}
		}
		kp := path + "/" + jsonpointer.Escape(key)
		if unknown != 0 {
			d.lose(kp, fmt.Sprintf("unknown field %d of a google.protobuf.Struct entry dropped", unknown))
		}
		var val any = jsvalue.Undef
		for _, sp := range vals {
			if val, err = d.value(sp[0], sp[1], val, kp, depth+1); err != nil {
				return err
			}
		}
		switch {
		case !defined(val):
			d.lose(kp, "a Struct entry whose Value has no kind is dropped")
		case key == "__proto__":
			// The reference assigns entries to a plain object, where this
			// key sets the prototype instead of a property.
			d.lose(kp, `the key "__proto__" is dropped by the reference decoder`)
		default:
			o.Set(key, val)
		}
		i = e
	}
	return nil
}

// boundedVarint reads a varint that must fit maxBytes bytes, the last of
// which may be at most lastMax; -1 when it does not.
func boundedVarint(b []byte, i *int, maxBytes int, lastMax byte) int64 {
	var v uint64
	for n := 0; ; n++ {
		if *i >= len(b) || n >= maxBytes {
			return -1
		}
		c := b[*i]
		*i++
		if n == maxBytes-1 && c > lastMax {
			return -1
		}
		v |= uint64(c&0x7f) << (7 * n)
		if c < 0x80 {
			return int64(v)
		}
	}
}

// walksAsMessage reports whether b is well-formed protobuf at its top
// level (tags, lengths and groups), without reading inside payloads.
func walksAsMessage(b []byte) bool {
	ok, _ := walkTop(b, false)
	return ok
}

// namesOnlyFutureArms reports whether an envelope with no known arm names
// at least one unknown length-delimited field that walks as a message,
// and nothing malformed: an event of a later protocol version.
func namesOnlyFutureArms(b []byte) bool {
	ok, future := walkTop(b, true)
	return ok && future > 0
}

func walkTop(b []byte, envelope bool) (bool, int) {
	var groups []int64
	future := 0
	for i := 0; i < len(b); {
		tag := boundedVarint(b, &i, 5, 0x0f)
		if tag < 0 {
			return false, 0
		}
		field, wt := tag>>3, tag&7
		if field == 0 {
			return false, 0
		}
		top := len(groups) == 0
		knownArm := envelope && top && field <= int64(len(Arms))
		switch wt {
		case 3:
			if knownArm {
				return false, 0
			}
			groups = append(groups, field)
		case 4:
			if len(groups) == 0 || groups[len(groups)-1] != field {
				return false, 0
			}
			groups = groups[:len(groups)-1]
		case 0:
			if knownArm || boundedVarint(b, &i, 10, 0x01) < 0 {
				return false, 0
			}
		case 1, 5:
			if knownArm {
				return false, 0
			}
			if wt == 1 {
				i += 8
			} else {
				i += 4
			}
		case 2:
			n := boundedVarint(b, &i, 5, 0x0f)
			if n < 0 || int64(i)+n > int64(len(b)) {
				return false, 0
			}
			if envelope && top {
				if knownArm || !walksAsMessage(b[i:i+int(n)]) {
					return false, 0
				}
				future++
			}
			i += int(n)
		default:
			return false, 0
		}
		if i > len(b) {
			return false, 0
		}
	}
	return len(groups) == 0, future
}
