package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Entry is one line of a golden file: a normalised event (wire view) or a
// merged message or call (merged view). Values are what encoding/json
// decodes into with UseNumber: map[string]any, []any, string, json.Number,
// bool and nil. Numbers stay as written, so that a golden never depends on
// floating-point formatting.
type Entry map[string]any

// Type returns the entry's "type", or "" when it has none.
func (e Entry) Type() string {
	s, _ := e["type"].(string)
	return s
}

// IDs returns the ids the entry carries at its top level (placeholders
// such as "msg-2", once normalised), each once: its own ids (toolCallId,
// messageId, entityId, subagentRunId, runId, threadId) before those of
// what it belongs to (parentMessageId, parentToolCallId,
// parentSubagentRunId, parentRunId).
func (e Entry) IDs() []string {
	var ids []string
	for _, k := range idKeys {
		if s, ok := e[k].(string); ok && s != "" && !slices.Contains(ids, s) {
			ids = append(ids, s)
		}
	}
	return ids
}

// keyOrder is the order of the top-level keys of an entry in a golden file:
// "type", then these, then any others in alphabetical order. Ids come
// first so that a line says early what it is about; the payload comes last.
var keyOrder = []string{
	"type",
	"threadId", "runId", "parentRunId",
	"subagentRunId", "parentSubagentRunId",
	"stepName",
	"messageId", "role",
	"toolCallId", "toolCallName", "parentMessageId", "parentToolCallId",
	"entityId", "subtype",
	"name",
	"text", "delta", "args", "content",
	"snapshot", "messages", "input", "value", "result", "outcome",
	"message", "code",
	"incomplete",
}

var keyRank = func() map[string]int {
	m := make(map[string]int, len(keyOrder))
	for i, k := range keyOrder {
		m[k] = i
	}
	return m
}()

// idKeys are the top-level fields that carry ids: what an entry is about
// first, then what it belongs to.
var idKeys = []string{
	"toolCallId", "messageId", "entityId", "subagentRunId", "runId", "threadId",
	"parentMessageId", "parentToolCallId", "parentSubagentRunId", "parentRunId",
}

// orderedKeys returns the keys of m in golden order: at the top level the
// order of keyOrder then the rest sorted, nested objects sorted.
func orderedKeys(m map[string]any, top bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if !top {
		slices.Sort(keys)
		return keys
	}
	slices.SortFunc(keys, func(a, b string) int {
		ra, oka := keyRank[a]
		rb, okb := keyRank[b]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		if a < b {
			return -1
		}
		if a > b {
			return 1
		}
		return 0
	})
	return keys
}

// Marshal returns the golden text of entries: JSON Lines, one entry per
// line, each line ending in a newline. Top-level keys come in a fixed
// order ("type", then ids, then the payload, then other keys sorted; see
// the package documentation); nested object keys are sorted; nothing is
// HTML-escaped. The same entries always give the same bytes.
//
// A value that is not one of the types an Entry holds is encoded with
// encoding/json and then written in the same canonical form.
func Marshal(entries []Entry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		writeValue(&b, map[string]any(e), true)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, top bool) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		writeString(b, v)
	case json.Number:
		if v == "" || !json.Valid([]byte(v)) {
			writeString(b, string(v))
			return
		}
		b.WriteString(string(v))
	case Entry:
		writeValue(b, map[string]any(v), top)
	case map[string]any:
		b.WriteByte('{')
		for i, k := range orderedKeys(v, top) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeValue(b, v[k], false)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, x, false)
		}
		b.WriteByte(']')
	default:
		// Anything else goes through encoding/json and back, so that it is
		// written in the canonical form too.
		raw, err := json.Marshal(v)
		if err != nil {
			writeString(b, fmt.Sprintf("%v", v))
			return
		}
		x, err := decodeJSON(raw)
		if err != nil {
			writeString(b, string(raw))
			return
		}
		writeValue(b, x, false)
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
}

// decodeJSON decodes exactly one JSON value with numbers kept as written.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the value")
	}
	return v, nil
}

// ParseError is a line of golden text that Parse cannot read.
type ParseError struct {
	Line int // counting from 1
	Err  error
}

// Error returns "line N: " and the problem.
func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// Parse reads golden text: one JSON object with a string "type" per line.
// Blank lines are skipped and a carriage return before a newline is
// ignored, so that a file checked out with CRLF line endings still reads.
// Errors are *ParseError values naming the line; the entries before it
// are returned too.
func Parse(data []byte) ([]Entry, error) {
	var entries []Entry
	line := 0
	for len(data) > 0 {
		line++
		var text []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			text, data = data[:i], data[i+1:]
		} else {
			text, data = data, nil
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		v, err := decodeJSON(text)
		if err != nil {
			return entries, &ParseError{line, err}
		}
		m, ok := v.(map[string]any)
		if !ok {
			return entries, &ParseError{line, errors.New("an entry must be a JSON object")}
		}
		if _, ok := m["type"].(string); !ok {
			return entries, &ParseError{line, errors.New(`entry has no string "type"`)}
		}
		entries = append(entries, Entry(m))
	}
	return entries, nil
}
