package agui

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aguitest/aguitest/internal/aguipb"
	"github.com/aguitest/aguitest/internal/bytearena"
	"github.com/aguitest/aguitest/internal/jsvalue"
)

// MaxProtoFrame is the largest frame, its 4-byte length prefix included,
// that the reference client accepts (10 MiB).
const MaxProtoFrame = 10 << 20

// Encoding is an AG-UI wire encoding.
type Encoding string

// The two AG-UI encodings.
const (
	EncodingSSE   Encoding = "sse"   // JSON events in server-sent events (text/event-stream)
	EncodingProto Encoding = "proto" // length-prefixed protobuf frames (MediaTypeProto)
)

// ContentType returns the encoding's media type.
func (e Encoding) ContentType() string {
	if e == EncodingProto {
		return MediaTypeProto
	}
	return MediaTypeSSE
}

// EncodingOf returns the encoding a Content-Type header names: protobuf for
// MediaTypeProto (parameters and case aside), SSE for text/event-stream,
// and false for anything else or "".
func EncodingOf(contentType string) (Encoding, bool) {
	mt, _, _ := strings.Cut(contentType, ";")
	switch strings.ToLower(strings.TrimSpace(mt)) {
	case MediaTypeProto:
		return EncodingProto, true
	case MediaTypeSSE:
		return EncodingSSE, true
	}
	return "", false
}

// A Loss is a part of an event that one encoding carries and the other
// cannot: a JSON field protobuf has no place for (and so drops, or
// changes), or a protobuf field the JSON form cannot hold.
type Loss struct {
	// Path is a JSON pointer into the event ("/metadata",
	// "/messages/0/foo"). A protobuf field with no JSON name is written
	// "#N" after its message's path. It is "" for a frame skipped whole.
	Path string
	// Reason says what happens to it.
	Reason string
}

// String returns "path: reason", or the reason alone for a loss of no
// path (a frame skipped whole).
func (l Loss) String() string {
	if l.Path == "" {
		return l.Reason
	}
	return l.Path + ": " + l.Reason
}

// LossError says what an encoding cannot carry of an event.
type LossError struct {
	Type   EventType
	Losses []Loss
}

// Error lists the losses: "TYPE: protobuf cannot carry all of it: ...".
func (e *LossError) Error() string {
	parts := make([]string, len(e.Losses))
	for i, l := range e.Losses {
		parts[i] = l.String()
	}
	return fmt.Sprintf("%s: protobuf cannot carry all of it: %s", e.Type, strings.Join(parts, "; "))
}

// ErrNoProtoForm is returned (wrapped) for an event protobuf has no message
// for: a legacy THINKING_* type, an unknown type.
var ErrNoProtoForm = errors.New("the event type has no protobuf form")

// MarshalProto encodes e as a protobuf Event message (without the frame's
// length prefix), byte for byte as @ag-ui/proto 1.0.0 encodes an event its
// schema accepts. The losses list what the protobuf form does not carry
// as the JSON has it: fields protobuf has no place for, nulls, values of
// the wrong type, and fields the decoder will add (a required string that
// was absent comes back as ""). Compare them with the reference: it drops
// the same things, silently.
func MarshalProto(e Event) ([]byte, []Loss, error) {
	if len(e.raw) == 0 {
		return nil, nil, errors.New("agui: encoding an empty event")
	}
	if aguipb.ArmByType[string(e.Type())] == nil {
		return nil, nil, fmt.Errorf("%s: %w", e.Type(), ErrNoProtoForm)
	}
	if b, ok := encodeFlat(e); ok {
		return b, nil, nil
	}
	root := jsvalue.ParseUTF8(e.raw)
	obj, _ := root.(*jsvalue.Object)
	b := aguipb.Encode(string(e.Type()), obj)
	back, _, err := aguipb.Decode(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: its protobuf form would not decode: %w", e.Type(), err)
	}
	return b, fromPB(aguipb.Diff("", root, back, nil)), nil
}

// UnmarshalProto decodes a protobuf Event message (without the frame's
// length prefix) into the event the reference client's decoder produces:
// its JSON, key order included, is what JSON.stringify writes of
// @ag-ui/proto's decode. The losses list what the JSON form cannot hold:
// unknown fields, Values of no kind, invalid UTF-8, numbers JSON has no
// form for. A frame holding only an event of a later protocol version
// (which the reference client drops with a warning) returns
// ErrFutureEvent.
func UnmarshalProto(b []byte) (Event, []Loss, error) {
	raw, losses, err := appendProtoJSON(nil, b)
	if err != nil {
		return Event{}, losses, err
	}
	e, err := ParseEvent(raw)
	if err != nil {
		return Event{}, losses, fmt.Errorf("agui: the decoded event does not parse: %w", err)
	}
	return e, losses, nil
}

// appendProtoJSON appends the JSON of the event in message b to out.
func appendProtoJSON(out, b []byte) ([]byte, []Loss, error) {
	if j, _, ok := decodeFlat(b, out); ok {
		return j, nil, nil
	}
	o, pbLosses, err := aguipb.Decode(b)
	losses := fromPB(pbLosses)
	if err != nil {
		if err == aguipb.ErrFutureEvent {
			err = ErrFutureEvent
		}
		return nil, losses, err
	}
	out, _ = jsvalue.AppendJSON(out, o)
	return out, losses, nil
}

// fromPB returns the wire layer's losses as Losses.
func fromPB(ls []aguipb.Loss) []Loss {
	if ls == nil {
		return nil
	}
	out := make([]Loss, len(ls))
	for i, l := range ls {
		out[i] = Loss(l)
	}
	return out
}

// ErrFutureEvent is returned by UnmarshalProto for a frame that names only
// envelope fields this version does not know: an event of a later
// protocol version. The reference client drops such frames with a
// warning, and so does the Reader (listing the drop in Losses).
var ErrFutureEvent = errors.New("agui: the frame holds an event of a later protocol version")

// protoDecoder reads the protobuf encoding: frames of a 4-byte big-endian
// length and an Event message, as @ag-ui/encoder writes them and
// @ag-ui/client's HttpAgent reads them. Frames holding only events of a
// later protocol version are skipped, as the reference client skips them,
// and listed in Losses.
type protoDecoder struct {
	// MaxFrame bounds a frame, prefix included; zero means MaxProtoFrame,
	// the reference client's limit.
	MaxFrame int

	r       io.Reader
	arena   bytearena.Arena
	buf     []byte
	scratch []byte
	hdr     [4]byte
	frame   int   // frames read so far
	off     int64 // bytes consumed so far
	start   int64 // offset of the last event's frame
	losses  []Loss
	err     error
}

// newProtoDecoder returns a decoder reading frames from r.
func newProtoDecoder(r io.Reader) *protoDecoder {
	if _, ok := r.(*bufio.Reader); !ok {
		r = bufio.NewReaderSize(r, 64<<10)
	}
	return &protoDecoder{r: r}
}

// Frame returns the 1-based index of the frame of the last event returned.
func (d *protoDecoder) Frame() int { return d.frame }

// Offset returns the byte offset of the frame of the last event returned.
func (d *protoDecoder) Offset() int64 { return d.start }

// Losses returns what the last call to Next dropped: fields of the
// returned event the JSON form cannot hold, and frames it skipped.
func (d *protoDecoder) Losses() []Loss { return d.losses }

// Next returns the next event, or io.EOF at the end of the stream. A frame
// the reference client cannot read is a *FrameError naming the frame and
// its byte offset: one that does not decode (RuleFrameProto; the next call
// reads on), one over the size limit or cut by the end of the stream
// (RuleFrameSize, RuleFrameProto; the stream ends there). A failing read is
// a *ReadError, which Next keeps returning.
func (d *protoDecoder) Next() (Event, error) {
	d.losses = d.losses[:0]
	for {
		if d.err != nil {
			return Event{}, d.err
		}
		hdr := d.hdr[:]
		n, err := io.ReadFull(d.r, hdr)
		if err == io.EOF {
			d.err = io.EOF
			return Event{}, io.EOF
		}
		at := d.off
		d.frame++
		if err == io.ErrUnexpectedEOF {
			return Event{}, d.frameError(at, RuleFrameProto, true, fmt.Sprintf("The binary stream ended mid-frame: %d trailing bytes could not be read as a complete message (a cut length prefix).", n))
		}
		if err != nil {
			return Event{}, d.fail(at, err)
		}
		size := int(binary.BigEndian.Uint32(hdr))
		max := d.MaxFrame
		if max <= 0 {
			max = MaxProtoFrame
		}
		if 4+size > max {
			msg := fmt.Sprintf("Protobuf message size exceeded maximum limit of %d bytes (a frame of %d bytes)", max, size)
			if looksLikeText(hdr) {
				msg += fmt.Sprintf("; the bytes read as the text %q: is this server-sent events?", hdr)
			}
			return Event{}, d.frameError(at, RuleFrameSize, true, msg)
		}
		if cap(d.buf) < size {
			d.buf = make([]byte, size)
		}
		d.buf = d.buf[:size]
		m, err := io.ReadFull(d.r, d.buf)
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return Event{}, d.frameError(at, RuleFrameProto, true, fmt.Sprintf("The binary stream ended mid-frame: %d trailing bytes could not be read as a complete message (%d of the frame's %d).", 4+m, m, size))
		}
		if err != nil {
			return Event{}, d.fail(at, err)
		}
		d.off += 4 + int64(size)
		if raw, e, ok := decodeFlat(d.buf, d.scratch[:0]); ok {
			// Indexed as it was written: no need to parse it again.
			d.scratch = raw
			e.raw = d.arena.Copy(raw)
			d.start = at
			return e, nil
		}
		raw, losses, err := appendProtoJSON(d.scratch[:0], d.buf)
		if err == ErrFutureEvent {
			d.losses = append(d.losses, Loss{Reason: fmt.Sprintf("frame %d at byte %d holds an event of a later protocol version: skipped, as the reference client skips it", d.frame, at)})
			continue
		}
		if err != nil {
			return Event{}, d.frameError(at, RuleFrameProto, false, "Failed to decode protocol buffer message: "+err.Error())
		}
		d.scratch = raw
		e, err := ParseEvent(d.arena.Copy(raw))
		if err != nil {
			return Event{}, d.fail(at, fmt.Errorf("agui: the decoded event does not parse: %w", err))
		}
		d.losses = append(d.losses, losses...)
		d.start = at
		return e, nil
	}
}

// frameError reports a frame the client cannot read; when last, the
// stream cannot be framed after it and ends there.
func (d *protoDecoder) frameError(at int64, rule Rule, last bool, msg string) error {
	if last {
		d.err = io.EOF
	}
	d.start = at
	return &FrameError{Frame: d.frame, Offset: at, Rule: rule, Msg: msg}
}

func (d *protoDecoder) fail(at int64, err error) error {
	d.err = &ReadError{Line: d.frame, Format: FormatProto, Index: d.frame - 1, Offset: at, Err: err}
	return d.err
}

// looksLikeText reports whether b is printable ASCII.
func looksLikeText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c >= 0x7f {
			return false
		}
	}
	return true
}

// ProtoEncoder writes the protobuf encoding, one frame per event, and
// flushes after each one as SSEEncoder does.
type ProtoEncoder struct {
	w      io.Writer
	flush  func() error
	buf    []byte
	losses []Loss
}

// NewProtoEncoder returns an encoder writing to w; see NewSSEEncoder for
// flushing.
func NewProtoEncoder(w io.Writer) *ProtoEncoder {
	return &ProtoEncoder{w: w, flush: flusher(w)}
}

// Encode writes the event as one frame and flushes. A frame that does not
// carry all of the event is written all the same (as @ag-ui/encoder writes
// it) and Losses says what it dropped; an event with no protobuf form is
// not written (the error wraps ErrNoProtoForm). Other errors are the
// writer's.
func (p *ProtoEncoder) Encode(e Event) error {
	b, losses, err := MarshalProto(e)
	if err == nil {
		err = p.EncodeFrame(b)
	}
	p.losses = losses
	return err
}

// Losses returns what the frame written by the last call to Encode does
// not carry of its event; nil when it carries all of it.
func (p *ProtoEncoder) Losses() []Loss { return p.losses }

// EncodeFrame writes msg, a protobuf Event message, as one frame (length
// prefix and message) and flushes. It does not check msg.
func (p *ProtoEncoder) EncodeFrame(msg []byte) error {
	p.losses = nil
	p.buf = binary.BigEndian.AppendUint32(p.buf[:0], uint32(len(msg)))
	p.buf = append(p.buf, msg...)
	if _, err := p.w.Write(p.buf); err != nil {
		return err
	}
	if p.flush != nil {
		return p.flush()
	}
	return nil
}

// flusher returns how to flush w after each event, or nil.
func flusher(w io.Writer) func() error {
	switch f := w.(type) {
	case http.ResponseWriter:
		rc := http.NewResponseController(f)
		return func() error {
			if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
			return nil
		}
	case interface{ Flush() error }:
		return f.Flush
	case interface{ Flush() }:
		return func() error { f.Flush(); return nil }
	}
	return nil
}

// EventEncoder is what SSEEncoder and ProtoEncoder have in common.
type EventEncoder interface {
	Encode(e Event) error
}

// NewEncoder returns an encoder of the given encoding writing to w.
func NewEncoder(w io.Writer, enc Encoding) EventEncoder {
	if enc == EncodingProto {
		return NewProtoEncoder(w)
	}
	return NewSSEEncoder(w)
}
