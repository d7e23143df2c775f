package agui

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Negotiate returns the encoding to answer a request with, from its Accept
// header: protobuf when the header gives MediaTypeProto a higher quality
// than text/event-stream, server-sent events otherwise, and so when it
// accepts both alike ("*/*", no header, both listed without q-values) and
// when it accepts neither.
//
// The header is read as @ag-ui/encoder reads it (the negotiator rules: the
// most specific matching range sets a type's quality; a range with
// parameters matches only a type with the same ones). @ag-ui/encoder
// itself answers protobuf whenever the header admits it at all, "*/*"
// included, so curl and browser fetches get binary frames from it; a
// server using Negotiate gives them text. HttpAgent sends
// "Accept: text/event-stream".
func Negotiate(accept string) Encoding {
	if accept == "" {
		return EncodingSSE
	}
	ranges := parseAccept(accept)
	if qualityOf(MediaTypeProto, ranges) > qualityOf(MediaTypeSSE, ranges) {
		return EncodingProto
	}
	return EncodingSSE
}

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ, sub string
	params   map[string]string
	q        float64
	i        int // the entry's index in the header
}

func parseAccept(accept string) []mediaRange {
	var out []mediaRange
	for i, s := range splitQuoted(accept, ',') {
		if m, ok := parseMediaRange(strings.TrimSpace(s), i); ok {
			out = append(out, m)
		}
	}
	return out
}

// splitQuoted splits s at sep, except inside double quotes (an entry with
// an odd number of quotes takes in the next one).
func splitQuoted(s string, sep byte) []string {
	parts := strings.Split(s, string(sep))
	out := []string{parts[0]}
	for _, p := range parts[1:] {
		if strings.Count(out[len(out)-1], `"`)%2 == 0 {
			out = append(out, p)
		} else {
			out[len(out)-1] += string(sep) + p
		}
	}
	return out
}

func isHTTPSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// parseMediaRange reads "type/subtype;params" as the pattern
// ^\s*([^\s/;]+)\/([^;\s]+)\s*(?:;(.*))?$ does.
func parseMediaRange(s string, index int) (mediaRange, bool) {
	i := 0
	for i < len(s) && isHTTPSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isHTTPSpace(s[j]) && s[j] != '/' && s[j] != ';' {
		j++
	}
	if j == i || j >= len(s) || s[j] != '/' {
		return mediaRange{}, false
	}
	typ := s[i:j]
	k := j + 1
	for k < len(s) && !isHTTPSpace(s[k]) && s[k] != ';' {
		k++
	}
	if k == j+1 {
		return mediaRange{}, false
	}
	sub := s[j+1 : k]
	for k < len(s) && isHTTPSpace(s[k]) {
		k++
	}
	m := mediaRange{typ: typ, sub: sub, q: 1, i: index, params: map[string]string{}}
	if k == len(s) {
		return m, true
	}
	if s[k] != ';' {
		return mediaRange{}, false
	}
	for _, p := range splitQuoted(s[k+1:], ';') {
		p = strings.TrimSpace(p)
		key, val, _ := strings.Cut(p, "=")
		key = strings.ToLower(key)
		if len(val) > 0 && val[0] == '"' && val[len(val)-1] == '"' {
			if len(val) == 1 {
				val = ""
			} else {
				val = val[1 : len(val)-1]
			}
		}
		if key == "q" {
			m.q = jsParseFloat(val)
			break
		}
		m.params[key] = val
	}
	return m, true
}

// jsParseFloat reads the longest decimal number at the start of s, as
// JavaScript's parseFloat does; NaN when there is none.
func jsParseFloat(s string) float64 {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' })
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if strings.HasPrefix(s[i:], "Infinity") {
		if s[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	digits := func(j int) int {
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j
	}
	j := digits(i)
	n := j - i
	if j < len(s) && s[j] == '.' {
		k := digits(j + 1)
		n += k - j - 1
		j = k
	}
	if n == 0 {
		return math.NaN()
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if e := digits(k); e > k {
			j = e
		}
	}
	f, _ := strconv.ParseFloat(s[:j], 64) // ±Inf or 0 out of range, as in JavaScript
	return f
}

// qualityOf returns the quality the ranges give a media type (without
// parameters): that of the most specific matching range, ties going to
// the higher quality, then to the later range.
func qualityOf(mediaType string, ranges []mediaRange) float64 {
	typ, sub, _ := strings.Cut(mediaType, "/")
	bestS, bestQ, bestO := 0, 0.0, -1
	for _, r := range ranges {
		s := 0
		if strings.EqualFold(r.typ, typ) {
			s |= 4
		} else if r.typ != "*" {
			continue
		}
		if strings.EqualFold(r.sub, sub) {
			s |= 2
		} else if r.sub != "*" {
			continue
		}
		if len(r.params) > 0 {
			ok := true
			for _, v := range r.params {
				if v != "*" && v != "" {
					ok = false // the provided types have no parameters
				}
			}
			if !ok {
				continue
			}
			s |= 1
		}
		// The negotiator's comparison: specificity, then quality, then
		// position; NaN qualities never win a comparison.
		d := float64(bestS - s)
		if d == 0 {
			d = bestQ - r.q
		}
		if d == 0 || math.IsNaN(d) {
			d = float64(bestO - r.i)
		}
		if d < 0 {
			bestS, bestQ, bestO = s, r.q, r.i
		}
	}
	if math.IsNaN(bestQ) || bestQ <= 0 {
		return 0
	}
	return bestQ
}
