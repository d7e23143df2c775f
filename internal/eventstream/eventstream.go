// Package eventstream reads and writes the binary framing of AWS event
// streams (Content-Type application/vnd.amazon.eventstream), in which
// Bedrock's ConverseStream sends its events: each message is a prelude
// (total length, headers length, the prelude's CRC32), typed headers, a
// payload, and the message's CRC32.
package eventstream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// ContentType is the media type of an event stream.
const ContentType = "application/vnd.amazon.eventstream"

// The limits AWS sets on a message.
const (
	maxMessage = 16 << 20
	maxHeaders = 128 << 10
	prelude    = 12 // total length, headers length, prelude CRC
	minMessage = prelude + 4
)

// A Header is one header of a message. Value holds a string or bytes
// header's value as it is, and any other type's value as text (true,
// false, decimal numbers, a timestamp in milliseconds, a UUID in hex).
type Header struct {
	Name  string
	Type  byte
	Value string
}

// Header value types.
const (
	TypeTrue      byte = 0
	TypeFalse     byte = 1
	TypeByte      byte = 2
	TypeShort     byte = 3
	TypeInt       byte = 4
	TypeLong      byte = 5
	TypeBytes     byte = 6
	TypeString    byte = 7
	TypeTimestamp byte = 8
	TypeUUID      byte = 9
)

// A Message is one decoded message.
type Message struct {
	Headers []Header
	Payload []byte
}

// Get returns the value of the header named name, or "".
func (m *Message) Get(name string) string {
	for _, h := range m.Headers {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

// Append appends the message of string headers (name, value pairs) and
// payload to b.
func Append(b []byte, payload []byte, headers ...string) []byte {
	if len(headers)%2 != 0 {
		panic("eventstream: headers come in name, value pairs")
	}
	hl := 0
	for i := 0; i < len(headers); i += 2 {
		hl += 1 + len(headers[i]) + 1 + 2 + len(headers[i+1])
	}
	total := prelude + hl + len(payload) + 4
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, uint32(total))
	b = binary.BigEndian.AppendUint32(b, uint32(hl))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:start+8]))
	for i := 0; i < len(headers); i += 2 {
		b = append(b, byte(len(headers[i])))
		b = append(b, headers[i]...)
		b = append(b, TypeString)
		b = binary.BigEndian.AppendUint16(b, uint16(len(headers[i+1])))
		b = append(b, headers[i+1]...)
	}
	b = append(b, payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// ErrShort says that b holds only the start of a message.
var ErrShort = errors.New("eventstream: incomplete message")

// Decode decodes the message at the start of b and returns it with its
// length. It returns ErrShort when b holds only the start of a message, and
// an error saying what is wrong when b does not start with a valid one.
// The message's headers and payload share b's memory.
func Decode(b []byte) (Message, int, error) {
	if len(b) < prelude {
		return Message{}, 0, ErrShort
	}
	total := int(binary.BigEndian.Uint32(b))
	hl := int(binary.BigEndian.Uint32(b[4:]))
	if got, want := binary.BigEndian.Uint32(b[8:]), crc32.ChecksumIEEE(b[:8]); got != want {
		return Message{}, 0, fmt.Errorf("eventstream: prelude CRC %08x, want %08x", got, want)
	}
	switch {
	case total < minMessage || total > maxMessage:
		return Message{}, 0, fmt.Errorf("eventstream: message length %d out of range [%d, %d]", total, minMessage, maxMessage)
	case hl > maxHeaders || hl > total-minMessage:
		return Message{}, 0, fmt.Errorf("eventstream: headers length %d does not fit a message of %d bytes", hl, total)
	case len(b) < total:
		return Message{}, 0, ErrShort
	}
	if got, want := binary.BigEndian.Uint32(b[total-4:]), crc32.ChecksumIEEE(b[:total-4]); got != want {
		return Message{}, 0, fmt.Errorf("eventstream: message CRC %08x, want %08x", got, want)
	}
	hs, err := headers(b[prelude : prelude+hl])
	if err != nil {
		return Message{}, 0, err
	}
	return Message{Headers: hs, Payload: b[prelude+hl : total-4]}, total, nil
}

// fixedSize is the size of a value of each fixed-size type.
var fixedSize = [...]int{TypeByte: 1, TypeShort: 2, TypeInt: 4, TypeLong: 8, TypeTimestamp: 8, TypeUUID: 16}

func headers(b []byte) ([]Header, error) {
	var out []Header
	for len(b) > 0 {
		n := int(b[0])
		if n == 0 || len(b) < 1+n+1 {
			return nil, errors.New("eventstream: a header name runs past the headers")
		}
		h := Header{Name: string(b[1 : 1+n]), Type: b[1+n]}
		b = b[2+n:]
		switch h.Type {
		case TypeTrue:
			h.Value = "true"
		case TypeFalse:
			h.Value = "false"
		case TypeBytes, TypeString:
			if len(b) < 2 {
				return nil, fmt.Errorf("eventstream: header %q: its length runs past the headers", h.Name)
			}
			l := int(binary.BigEndian.Uint16(b))
			if len(b) < 2+l {
				return nil, fmt.Errorf("eventstream: header %q: its value runs past the headers", h.Name)
			}
			h.Value = string(b[2 : 2+l])
			b = b[2+l:]
		case TypeByte, TypeShort, TypeInt, TypeLong, TypeTimestamp, TypeUUID:
			l := fixedSize[h.Type]
			if len(b) < l {
				return nil, fmt.Errorf("eventstream: header %q: its value runs past the headers", h.Name)
			}
			v := b[:l]
			switch h.Type {
			case TypeByte:
				h.Value = strconv.Itoa(int(int8(v[0])))
			case TypeShort:
				h.Value = strconv.Itoa(int(int16(binary.BigEndian.Uint16(v))))
			case TypeInt:
				h.Value = strconv.Itoa(int(int32(binary.BigEndian.Uint32(v))))
			case TypeLong, TypeTimestamp:
				h.Value = strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10)
			case TypeUUID:
				h.Value = fmt.Sprintf("%x", v)
			}
			b = b[l:]
		default:
			return nil, fmt.Errorf("eventstream: header %q has unknown type %d", h.Name, h.Type)
		}
		out = append(out, h)
	}
	return out, nil
}

// String writes the message's headers, for error messages:
// ":event-type=contentBlockDelta :message-type=event".
func (m *Message) String() string {
	var b strings.Builder
	for i, h := range m.Headers {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(h.Name + "=" + h.Value)
	}
	return b.String()
}
