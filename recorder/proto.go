package recorder

import (
	"encoding/binary"
	"fmt"

	"github.com/aguitest/aguitest/agui"
)

// protoSplitter cuts a stream of protobuf frames (agui.MediaTypeProto) fed
// in arbitrary pieces into its events, decoded as the reference client
// decodes them. A frame whose event loses something in its JSON form, or
// that holds no event the client would see, is kept as it came.
type protoSplitter struct {
	buf  []byte
	lost bool // bytes were dropped: the frames cannot be found again
}

// frame is one frame's outcome: the event's JSON (nil when the frame holds
// none) and the message's bytes when they must be kept, or a note on bytes
// that are no frame.
type frame struct {
	event []byte
	raw   []byte
	note  string
}

func (s *protoSplitter) gap() {
	s.lost = true
	s.buf = nil
}

func (s *protoSplitter) feed(p []byte, emit func(frame)) {
	if s.lost {
		return
	}
	s.buf = append(s.buf, p...)
	for len(s.buf) >= 4 {
		n := int(binary.BigEndian.Uint32(s.buf))
		if 4+n > agui.MaxProtoFrame {
			// The client fails the stream here; nothing after it can be
			// framed.
			emit(frame{note: fmt.Sprintf("(a protobuf frame of %d bytes, over the limit of %d: the client fails the stream here; the rest is not recorded)", n, agui.MaxProtoFrame)})
			s.gap()
			return
		}
		if len(s.buf) < 4+n {
			return
		}
		msg := s.buf[4 : 4+n]
		e, losses, err := agui.UnmarshalProto(msg)
		f := frame{}
		if err == nil {
			f.event = e.Raw()
		}
		if err != nil || len(losses) > 0 {
			f.raw = append([]byte(nil), msg...)
		}
		emit(f)
		s.buf = s.buf[4+n:]
	}
	if len(s.buf) == 0 {
		s.buf = nil // let a large frame's memory go
	}
}

// end records what is left of a cut last frame.
func (s *protoSplitter) end(emit func(frame)) {
	if len(s.buf) > 0 && !s.lost {
		emit(frame{note: fmt.Sprintf("(the stream ends inside a protobuf frame: %d bytes left over)", len(s.buf))})
	}
	s.buf = nil
}
