package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Redacted replaces what redaction removes from JSON values.
const Redacted = "[REDACTED]"

// deniedHeaders are never recorded, whatever the configuration.
var deniedHeaders = map[string]bool{
	"Authorization":       true,
	"Proxy-Authorization": true,
	"Cookie":              true,
	"Set-Cookie":          true,
	"X-Api-Key":           true,
	"Api-Key":             true,
	"X-Auth-Token":        true,
	"Openai-Organization": true,
	"Openai-Project":      true,
	"X-Goog-Api-Key":      true,
	"Anthropic-Api-Key":   true,
	"X-Csrf-Token":        true,
}

// deniedPattern matches further header names that look like credentials.
var deniedPattern = regexp.MustCompile(`(?i)secret|token|passw(or)?d|api[-_]?key|auth|cookie|session|credential|signature`)

// Redact says what to remove before anything reaches a recording. The zero
// value removes the credential headers (Authorization, Proxy-Authorization,
// Cookie, Set-Cookie, X-Api-Key, Api-Key, X-Auth-Token and any header whose
// name matches secret, token, password, api-key, auth, cookie, session,
// credential or signature, case-insensitively); they cannot be kept.
//
// Rules apply to the recording only: the client and the agent always see
// the original bytes.
type Redact struct {
	// Headers names further headers never to record (any case).
	Headers []string
	// Pointers are JSON pointers (RFC 6901) to values replaced by
	// "[REDACTED]" in request bodies, provider request bodies and events,
	// wherever they resolve. A segment "*" matches every element of an
	// array or member of an object: "/messages/*/content".
	Pointers []string
	// Patterns are replaced by "[REDACTED]" inside every string value (not
	// keys) of request bodies, provider request bodies and events, and in
	// the text of provider response chunks.
	Patterns []*regexp.Regexp
}

// header returns the headers of h to record: those named in allow (all when
// allow is empty) minus the denied ones.
func (rd *Redact) header(h http.Header, allow []string) http.Header {
	out := http.Header{}
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		if deniedHeaders[ck] || deniedPattern.MatchString(ck) {
			continue
		}
		if rd.denied(ck) || (len(allow) > 0 && !contains(allow, ck)) {
			continue
		}
		out[ck] = append([]string(nil), v...)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (rd *Redact) denied(k string) bool { return contains(rd.Headers, k) }

func contains(list []string, k string) bool {
	for _, x := range list {
		if strings.EqualFold(x, k) {
			return true
		}
	}
	return false
}

func (rd *Redact) active() bool { return len(rd.Pointers) > 0 || len(rd.Patterns) > 0 }

// JSON returns b with the pointer and pattern rules applied. Member order
// and numbers are kept; the result is compact. When no rule applies it
// returns b itself.
func (rd *Redact) JSON(b []byte) ([]byte, error) {
	if !rd.active() {
		return b, nil
	}
	v, err := parseOrdered(b)
	if err != nil {
		return nil, err
	}
	changed := false
	for _, p := range rd.Pointers {
		segs, err := splitPointer(p)
		if err != nil {
			return nil, err
		}
		if redactAt(&v, segs) {
			changed = true
		}
	}
	if len(rd.Patterns) > 0 && redactStrings(&v, rd.Patterns) {
		changed = true
	}
	if !changed {
		return b, nil
	}
	return v.append(nil), nil
}

// Text returns b with the patterns replaced; b itself when none matches.
func (rd *Redact) Text(b []byte) []byte {
	for _, re := range rd.Patterns {
		if re.Match(b) {
			b = re.ReplaceAll(b, []byte(Redacted))
		}
	}
	return b
}

func splitPointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("recorder: JSON pointer %q does not start with /", p)
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, nil
}

// value is a JSON value that keeps member order: scalars hold their raw
// text, objects and arrays their children.
type value struct {
	raw     json.RawMessage // scalars
	keys    []string        // objects
	members []value         // objects (parallel to keys) and arrays
	kind    byte            // '{', '[', or 0 for a scalar
}

func parseOrdered(b []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return v, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return v, fmt.Errorf("recorder: trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (value, error) {
	tok, err := dec.Token()
	if err != nil {
		return value{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := value{kind: '{'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return v, err
				}
				child, err := decodeValue(dec)
				if err != nil {
					return v, err
				}
				v.keys = append(v.keys, kt.(string))
				v.members = append(v.members, child)
			}
			_, err := dec.Token()
			return v, err
		case '[':
			v := value{kind: '['}
			for dec.More() {
				child, err := decodeValue(dec)
				if err != nil {
					return v, err
				}
				v.members = append(v.members, child)
			}
			_, err := dec.Token()
			return v, err
		}
		return value{}, fmt.Errorf("recorder: unexpected %v", t)
	case string:
		return value{raw: appendString(nil, t)}, nil
	case json.Number:
		return value{raw: json.RawMessage(t)}, nil
	case bool:
		return value{raw: json.RawMessage(strconv.FormatBool(t))}, nil
	default:
		return value{raw: json.RawMessage("null")}, nil
	}
}

func (v *value) append(b []byte) []byte {
	switch v.kind {
	case '{':
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = v.members[i].append(b)
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i := range v.members {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.members[i].append(b)
		}
		return append(b, ']')
	}
	return append(b, v.raw...)
}

var redactedJSON = json.RawMessage(`"` + Redacted + `"`)

func redactAt(v *value, segs []string) bool {
	if len(segs) == 0 {
		*v = value{raw: redactedJSON}
		return true
	}
	seg, rest := segs[0], segs[1:]
	changed := false
	switch v.kind {
	case '{':
		for i, k := range v.keys {
			if seg == "*" || k == seg {
				changed = redactAt(&v.members[i], rest) || changed
			}
		}
	case '[':
		if seg == "*" {
			for i := range v.members {
				changed = redactAt(&v.members[i], rest) || changed
			}
		} else if n, err := strconv.Atoi(seg); err == nil && n >= 0 && n < len(v.members) {
			changed = redactAt(&v.members[n], rest)
		}
	}
	return changed
}

func redactStrings(v *value, res []*regexp.Regexp) bool {
	if v.kind == 0 {
		if len(v.raw) == 0 || v.raw[0] != '"' {
			return false
		}
		var s string
		if json.Unmarshal(v.raw, &s) != nil {
			return false
		}
		orig := s
		for _, re := range res {
			s = re.ReplaceAllString(s, Redacted)
		}
		if s == orig {
			return false
		}
		v.raw = appendString(nil, s)
		return true
	}
	changed := false
	for i := range v.members {
		changed = redactStrings(&v.members[i], res) || changed
	}
	return changed
}

// exchange applies the rules to a provider exchange in place.
func (rd *Redact) exchange(ex *Exchange) {
	if !rd.active() {
		return
	}
	if ex.Body != nil {
		if b, err := rd.JSON(ex.Body); err == nil {
			ex.Body = b
		} else {
			ex.Body = nil
		}
	}
	ex.BodyText = string(rd.Text([]byte(ex.BodyText)))
	for i := range ex.Chunks {
		ex.Chunks[i].Data = rd.Text(ex.Chunks[i].Data)
	}
}
