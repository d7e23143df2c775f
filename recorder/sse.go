package recorder

import "bytes"

// maxSSELine bounds a line, and one event's data, in the incremental parser;
// beyond it the event is skipped.
const maxSSELine = 16 << 20

// sseSplitter cuts a server-sent event stream fed in arbitrary pieces into
// the data of its events, following the same rules as agui.SSEDecoder: CR,
// LF and CRLF end lines, "data:" lines are joined with "\n", other fields
// and comments are ignored, a blank line dispatches, and data left at the
// end of the stream is dispatched too.
type sseSplitter struct {
	line    []byte
	data    []byte
	hasData bool
	skipLF  bool // the last line ended with CR
	started bool // a leading byte order mark has been dealt with
	resync  bool // bytes were lost: skip to the next blank line
}

// gap tells the splitter bytes are missing from the stream.
func (s *sseSplitter) gap() {
	s.resync = true
	s.line = s.line[:0]
	s.data = s.data[:0]
	s.hasData = false
	s.skipLF = false
}

func (s *sseSplitter) feed(p []byte, emit func(data []byte)) {
	if !s.started {
		if len(s.line)+len(p) < 3 && bytes.HasPrefix([]byte("\xEF\xBB\xBF"), append(s.line, p...)) {
			s.line = append(s.line, p...)
			return
		}
		s.started = true
		if len(s.line) > 0 {
			p = append(s.line, p...)
			s.line = nil
		}
		p = bytes.TrimPrefix(p, []byte("\xEF\xBB\xBF"))
	}
	for len(p) > 0 {
		if s.skipLF {
			s.skipLF = false
			if p[0] == '\n' {
				p = p[1:]
				continue
			}
		}
		// Two memchr scans beat bytes.IndexAny on long lines.
		i := bytes.IndexByte(p, '\n')
		end := i
		if end < 0 {
			end = len(p)
		}
		if j := bytes.IndexByte(p[:end], '\r'); j >= 0 {
			i = j
		}
		if i < 0 {
			if len(s.line)+len(p) > maxSSELine {
				s.gap()
				return
			}
			s.line = append(s.line, p...)
			return
		}
		var l []byte
		if len(s.line) > 0 {
			s.line = append(s.line, p[:i]...)
			l = s.line
		} else {
			l = p[:i]
		}
		s.skipLF = p[i] == '\r'
		p = p[i+1:]
		s.processLine(l, emit)
		s.line = s.line[:0]
	}
}

func (s *sseSplitter) processLine(l []byte, emit func([]byte)) {
	if len(l) == 0 {
		if s.resync {
			s.resync = false
		} else if s.hasData {
			emit(s.data)
		}
		s.data = s.data[:0]
		s.hasData = false
		return
	}
	if s.resync || l[0] == ':' {
		return
	}
	name, value := l, []byte(nil)
	if i := bytes.IndexByte(l, ':'); i >= 0 {
		name, value = l[:i], l[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	if string(name) != "data" {
		return
	}
	if len(s.data)+len(value)+1 > maxSSELine {
		s.gap()
		return
	}
	if s.hasData {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, value...)
	s.hasData = true
}

// end dispatches what is left at the end of the stream.
func (s *sseSplitter) end(emit func([]byte)) {
	if len(s.line) > 0 {
		l := s.line
		s.line = nil
		s.processLine(l, emit)
	}
	if s.hasData && !s.resync {
		emit(s.data)
	}
	s.data, s.hasData = s.data[:0], false
}
