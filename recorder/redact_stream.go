package recorder

import (
	"bytes"
	"slices"

	"github.com/aguitest/aguitest/internal/jsonx"
)

// Redaction across the events of a stream. A text the agent sends in
// pieces (the deltas of one message, of one reasoning message, the
// arguments of one call) is a lane: its pieces are joined and searched as
// one text, so that a key is found however the stream cuts it. An event
// of a lane is held back from the recording (never from the client) until
// laneCarry bytes of its lane follow it, or its lane ends (TEXT_MESSAGE_END,
// TOOL_CALL_END, ..., the run's end, the stream's end); events after it
// wait behind it, so the recording keeps the stream's order. When a key
// spans several events, the first of them gets "[REDACTED]" in place of
// its part, the others lose theirs (and an event left with no text is not
// recorded).

// laneCarry is the text of a lane held back past its last event: the
// longest credential the rules bound. A longer one whose pieces are
// further apart than this may have its first part written; a private
// key block is held whole while it is open.
const laneCarry = 320

// laneBatch is how much text of a lane gathers before it is searched: each
// byte is searched about (2*laneCarry+laneBatch)/laneBatch times.
const laneBatch = 2048

// maxHeldBytes bounds what a stream holds back: past it, the oldest lane
// is searched as it stands and its events go out.
const maxHeldBytes = 1 << 20

// laneKind tells the lanes of one id apart.
type laneKind byte

const (
	laneText laneKind = iota + 1
	laneReasoning
	laneThinking
	laneArgs
)

type laneKey struct {
	kind laneKind
	id   string
}

// lane is the text of one lane not yet settled.
type lane struct {
	key     laneKey
	json    bool   // the text is JSON (a call's arguments)
	ctx     []byte // settled text before pending, up to laneCarry bytes
	pending []byte // the text of the held events
	base    int    // the lane offset of pending[0]
	fresh   int    // bytes added since the last search
	held    int    // events of this lane in the queue
	head    []byte // what came before the delta in its last event, clean
}

// heldEvent is an event waiting in the queue.
type heldEvent[M any] struct {
	data   []byte
	meta   M
	lane   *lane
	lo, hi int // its delta's range in the lane's text
	ds, de int // the delta's string token in data
	clean  bool
	ready  bool
	drop   bool
}

// streamRedactor holds back and redacts a stream's events; M is what the
// caller keeps with each (its offset, a frame).
type streamRedactor[M any] struct {
	rd    *Redact
	lanes map[laneKey]*lane
	chunk *lane // the lane of the chunk events being sent
	queue []*heldEvent[M]
	bytes int
	spans []span
	slab  []byte
	last  *lane           // the lane of the last delta
	spare []*heldEvent[M] // held events to reuse
	emit  func(data []byte, clean bool, meta M)
}

func newStreamRedactor[M any](rd *Redact, emit func(data []byte, clean bool, meta M)) *streamRedactor[M] {
	return &streamRedactor[M]{rd: rd, lanes: map[laneKey]*lane{}, emit: emit}
}

// eventShape is what the stream redactor reads of an event's JSON; typ
// and id are slices of it.
type eventShape struct {
	typ, id []byte
	ds, de  int // the delta string token, or 0, 0
}

// shapeOf reads an event's type, id and delta (keys as plain ASCII; an
// event written otherwise is redacted whole, as any other event).
func shapeOf(data []byte) (eventShape, bool) {
	var sh eventShape
	i := jsonx.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return sh, false
	}
	i = jsonx.SkipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		ke, esc, err := jsonx.ScanString(data, i)
		if err != nil || esc {
			return sh, false
		}
		key := data[i+1 : ke-1]
		vs := jsonx.SkipSpace(data, ke)
		if vs >= len(data) || data[vs] != ':' {
			return sh, false
		}
		vs = jsonx.SkipSpace(data, vs+1)
		var ve int
		if vs < len(data) && data[vs] == '"' {
			ve, esc, err = jsonx.ScanString(data, vs)
		} else {
			_, ve, esc, err = jsonx.ScanValue(data, vs)
		}
		if err != nil {
			return sh, false
		}
		switch string(key) {
		case "type":
			if data[vs] != '"' || esc {
				return sh, false
			}
			sh.typ = data[vs+1 : ve-1]
		case "messageId", "toolCallId":
			if data[vs] == '"' {
				if esc {
					return sh, false
				}
				sh.id = data[vs+1 : ve-1]
			}
		case "delta":
			if data[vs] == '"' {
				sh.ds, sh.de = vs, ve
			}
		}
		i = jsonx.SkipSpace(data, ve)
		if i < len(data) && data[i] == ',' {
			i = jsonx.SkipSpace(data, i+1)
		}
	}
	return sh, true
}

// push takes the stream's next event.
func (sr *streamRedactor[M]) push(data []byte, meta M) {
	sh, ok := shapeOf(data)
	var l *lane
	chunk := false
	if ok {
		switch string(sh.typ) {
		case "TEXT_MESSAGE_CONTENT":
			l = sr.lane(laneText, sh.id, false)
		case "REASONING_MESSAGE_CONTENT":
			l = sr.lane(laneReasoning, sh.id, false)
		case "THINKING_TEXT_MESSAGE_CONTENT":
			l = sr.lane(laneThinking, nil, false)
		case "TOOL_CALL_ARGS":
			l = sr.lane(laneArgs, sh.id, true)
		case "TEXT_MESSAGE_CHUNK", "REASONING_MESSAGE_CHUNK", "TOOL_CALL_CHUNK":
			kind := laneText
			switch string(sh.typ) {
			case "REASONING_MESSAGE_CHUNK":
				kind = laneReasoning
			case "TOOL_CALL_CHUNK":
				kind = laneArgs
			}
			if c := sr.chunk; c != nil && c.key.kind == kind && (len(sh.id) == 0 || string(sh.id) == c.key.id) {
				l = c
			} else {
				sr.endChunk()
				l = sr.lane(kind, sh.id, kind == laneArgs)
				sr.chunk = l
			}
			chunk = true
		}
	}
	if !chunk {
		sr.endChunk()
	}
	if ok {
		switch string(sh.typ) {
		case "TEXT_MESSAGE_END":
			sr.end(laneKey{laneText, string(sh.id)})
		case "REASONING_MESSAGE_END":
			sr.end(laneKey{laneReasoning, string(sh.id)})
		case "THINKING_TEXT_MESSAGE_END":
			sr.end(laneKey{laneThinking, ""})
		case "TOOL_CALL_END":
			sr.end(laneKey{laneArgs, string(sh.id)})
		case "RUN_FINISHED", "RUN_ERROR":
			sr.endAll()
		}
	}
	if l == nil || sh.de == 0 {
		clean := sr.rd.clean(data)
		if len(sr.queue) == 0 {
			sr.emit(data, clean, meta)
			return
		}
		h := sr.held()
		h.data, h.meta, h.ready, h.clean = data, meta, true, clean
		sr.enqueue(h)
		return
	}
	h := sr.held()
	h.data, h.meta = data, meta
	delta := data[sh.ds:sh.de]
	var text []byte
	if bytes.IndexByte(delta, '\\') < 0 {
		text = delta[1 : len(delta)-1]
	} else {
		text = []byte(jsonStringValue(delta))
	}
	h.lane, h.ds, h.de = l, sh.ds, sh.de
	h.lo = l.base + len(l.pending)
	l.pending = append(l.pending, text...)
	h.hi = l.base + len(l.pending)
	l.fresh += len(text)
	l.held++
	// The rest of the event is searched as any event is; the events of a
	// lane mostly repeat what comes before their delta (type, id).
	if head := data[:sh.ds]; bytes.Equal(head, l.head) {
		h.clean = sr.rd.clean(data[sh.de:])
	} else {
		h.clean = sr.rd.clean(head) && sr.rd.clean(data[sh.de:])
		if h.clean {
			l.head = append(l.head[:0], head...)
		}
	}
	sr.enqueue(h)
	if l.fresh >= laneBatch {
		sr.settle(l, false)
	}
	for sr.bytes > maxHeldBytes && len(sr.queue) > 0 {
		head := sr.queue[0]
		if head.lane == nil || head.ready {
			break
		}
		sr.settle(head.lane, true)
	}
	sr.drain()
}

// pushOther takes something to record in its place in the stream that is
// no event of a lane and needs no search (a record made ready).
func (sr *streamRedactor[M]) pushOther(meta M) {
	if len(sr.queue) == 0 {
		sr.emit(nil, true, meta)
		return
	}
	sr.enqueue(&heldEvent[M]{meta: meta, ready: true, clean: true})
}

// enqueue holds h back, with a copy of its data (the caller's buffer may
// be reused).
func (sr *streamRedactor[M]) enqueue(h *heldEvent[M]) {
	if h.data != nil {
		h.data = sr.copyOf(h.data)
	}
	sr.queue = append(sr.queue, h)
	sr.bytes += len(h.data)
}

// copyOf copies b into the stream's slab, which a held event's data
// shares with the others until it goes out.
func (sr *streamRedactor[M]) copyOf(b []byte) []byte {
	if cap(sr.slab)-len(sr.slab) < len(b) {
		sr.slab = make([]byte, 0, max(16<<10, len(b)))
	}
	n := len(sr.slab)
	sr.slab = append(sr.slab, b...)
	return sr.slab[n : n+len(b) : n+len(b)]
}

// lane returns the open lane of kind and id, opening it.
func (sr *streamRedactor[M]) lane(kind laneKind, id []byte, json bool) *lane {
	if l := sr.last; l != nil && l.key.kind == kind && l.key.id == string(id) {
		return l
	}
	l := sr.lanes[laneKey{kind, string(id)}]
	if l == nil {
		key := laneKey{kind, string(id)}
		l = &lane{key: key, json: json}
		sr.lanes[key] = l
	}
	sr.last = l
	return l
}

// held returns a held event to fill, a spare one when there is.
func (sr *streamRedactor[M]) held() *heldEvent[M] {
	if n := len(sr.spare); n > 0 {
		h := sr.spare[n-1]
		sr.spare = sr.spare[:n-1]
		return h
	}
	return new(heldEvent[M])
}

func (sr *streamRedactor[M]) endChunk() {
	if c := sr.chunk; c != nil {
		sr.chunk = nil
		sr.end(c.key)
	}
}

// end settles a lane whose text is complete and closes it.
func (sr *streamRedactor[M]) end(key laneKey) {
	l := sr.lanes[key]
	if l == nil {
		return
	}
	sr.settle(l, true)
	delete(sr.lanes, key)
	if sr.last == l {
		sr.last = nil
	}
	if sr.chunk == l {
		sr.chunk = nil
	}
	sr.drain()
}

// endAll ends every lane.
func (sr *streamRedactor[M]) endAll() {
	keys := make([]laneKey, 0, len(sr.lanes))
	for k := range sr.lanes {
		keys = append(keys, k)
	}
	for _, k := range keys {
		sr.end(k)
	}
	sr.chunk = nil
}

// finish ends the stream: every lane is settled and every event goes out.
func (sr *streamRedactor[M]) finish() {
	sr.endAll()
	sr.drain()
}

// drain sends the ready events at the head of the queue.
func (sr *streamRedactor[M]) drain() {
	n := 0
	for n < len(sr.queue) && sr.queue[n].ready {
		h := sr.queue[n]
		sr.bytes -= len(h.data)
		if !h.drop {
			sr.emit(h.data, h.clean, h.meta)
		}
		sr.queue[n] = nil
		*h = heldEvent[M]{}
		sr.spare = append(sr.spare, h)
		n++
	}
	if n > 0 {
		sr.queue = append(sr.queue[:0], sr.queue[n:]...)
	}
}

// settle searches a lane and makes ready its events that no credential
// still to come can reach: all of them when final.
func (sr *streamRedactor[M]) settle(l *lane, final bool) {
	l.fresh = 0
	if l.held == 0 {
		return
	}
	text := append(l.ctx[:len(l.ctx):len(l.ctx)], l.pending...)
	origin := l.base - len(l.ctx) // the lane offset of text[0]
	spans := sr.rd.laneSpans(text, l.json, sr.spans[:0])
	spans = mergeSpans(spans)
	sr.spans = spans
	settle := l.base + len(l.pending)
	if !final {
		settle -= laneCarry
		for _, s := range spans {
			if s.end >= len(text) {
				// A credential reaching the end may go on.
				settle = min(settle, origin+s.start)
			}
		}
	}
	first := l.base
	done := l.base // the lane offset up to which events are ready
	for _, h := range sr.queue {
		if h.lane != l || h.ready {
			continue
		}
		if h.hi > settle && !(final) {
			break
		}
		sr.apply(h, text, origin, first, spans)
		h.ready = true
		l.held--
		done = h.hi
	}
	if done > l.base {
		n := done - l.base
		l.ctx = append(l.ctx, l.pending[:n]...)
		if len(l.ctx) > laneCarry {
			l.ctx = append(l.ctx[:0], l.ctx[len(l.ctx)-laneCarry:]...)
		}
		l.pending = append(l.pending[:0], l.pending[n:]...)
		l.base = done
	}
}

// apply writes into h the redactions of its delta, the lane's text
// being text from lane offset origin, its unsettled part from first.
func (sr *streamRedactor[M]) apply(h *heldEvent[M], text []byte, origin, first int, spans []span) {
	lo, hi := h.lo-origin, h.hi-origin
	var out []byte
	pos := lo
	changed := false
	for _, s := range spans {
		if s.end <= lo || s.start >= hi {
			continue
		}
		changed = true
		s0, e0 := max(s.start, lo), min(s.end, hi)
		out = append(out, text[pos:s0]...)
		if s.start >= lo || h.lo == first {
			if h.lane.json && isNumber(text[s.start:s.end]) {
				out = append(out, `"`+Redacted+`"`...)
			} else {
				out = append(out, Redacted...)
			}
		}
		pos = e0
	}
	if !changed {
		return
	}
	out = append(out, text[pos:hi]...)
	if len(out) == 0 {
		h.drop = true
		return
	}
	d := make([]byte, 0, len(h.data)+len(Redacted))
	d = append(d, h.data[:h.ds]...)
	d = appendString(d, string(out))
	d = append(d, h.data[h.de:]...)
	h.data = d
}

func isNumber(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return false
		}
	}
	return true
}

// laneSpans finds the credentials in a lane's text: JSON text (a call's
// arguments) is read as escaped text, as a JSON document is.
func (rd *Redact) laneSpans(text []byte, json bool, spans []span) []span {
	spans = rd.textSpans(text, json, spans)
	spans = rd.patternSpans(text, spans)
	if json && rd.on(DefaultFields) && bytes.Contains(text, []byte("path")) {
		spans = append(spans, rd.patchSpans(text)...)
	}
	return slices.DeleteFunc(spans, func(s span) bool { return s.end <= s.start })
}

// patchSpans finds, in JSON text, the values of JSON Patch operations
// whose path ends in a credential name, when the path comes after them.
func (rd *Redact) patchSpans(text []byte) []span {
	var out []span
	for i := 0; ; {
		k := bytes.Index(text[i:], []byte(`"value"`))
		if k < 0 {
			return out
		}
		k += i
		i = k + 7
		if !assigns(text, i) {
			continue
		}
		s, ok := valueAfter(text, i, true)
		if !ok {
			continue
		}
		rest := text[s.end:min(len(text), s.end+80)]
		if p := bytes.Index(rest, []byte(`"path"`)); p >= 0 {
			q := bytes.IndexByte(rest[p+6:], '"')
			if q < 0 {
				continue
			}
			v := rest[p+6+q+1:]
			if e := bytes.IndexByte(v, '"'); e >= 0 {
				v = v[:e]
				if sl := bytes.LastIndexByte(v, '/'); sl >= 0 && credentialName(string(v[sl+1:]), ctxField) {
					out = append(out, s)
				}
			}
		}
	}
}
