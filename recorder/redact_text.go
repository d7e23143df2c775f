package recorder

import (
	"bytes"
	"slices"
)

// The text scanner: one pass over bytes finding credentials of known
// shapes, name=value pairs named like credentials and URL userinfo, as
// spans to replace. It is the quick check on the recording path (an event
// in which it finds nothing is written as it came) and the rules applied
// to every text a recording holds.

// span is a range [start, end) of bytes to replace by Redacted.
type span struct{ start, end int }

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(s []span) []span {
	slices.SortFunc(s, func(a, b span) int { return a.start - b.start })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// splice appends b to dst with every span replaced by Redacted.
func splice(dst, b []byte, spans []span) []byte {
	spans = mergeSpans(spans)
	pos := 0
	for _, s := range spans {
		dst = append(dst, b[pos:s.start]...)
		dst = append(dst, Redacted...)
		pos = s.end
	}
	return append(dst, b[pos:]...)
}

// Byte classes of the text scanner.
const (
	clsIdent  = 1 << iota // a byte of a word: names, most credential formats
	clsFormat             // a byte a credential format can start with
	clsAlnum              // a letter or a digit
)

var byteClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= clsIdent | clsAlnum
		t[c-'a'+'A'] |= clsIdent | clsAlnum
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= clsIdent | clsAlnum
	}
	t['_'] |= clsIdent
	t['-'] |= clsIdent
	t['.'] |= clsIdent
	for _, c := range "srAyGgxhne-" {
		t[c] |= clsFormat
	}
	return t
}()

func isAlnum(c byte) bool { return byteClass[c]&clsAlnum != 0 }

// textSpans adds the spans of credentials found in b. In raw mode b is
// JSON-escaped text (a JSON document, an SSE stream) and a backslash escape
// separates words.
func (rd *Redact) textSpans(b []byte, raw bool, spans []span) []span {
	fields := rd.on(DefaultFields)
	userinfo := rd.on(DefaultUserinfo)
	bearer := rd.on(DefaultBearer)
	n := len(b)
	for i := 0; i < n; {
		c := b[i]
		if byteClass[c]&clsIdent == 0 {
			switch {
			case raw && c == '\\':
				i += 2
				continue
			case c == ':' && userinfo && i+2 < n && b[i+1] == '/' && b[i+2] == '/':
				if s, ok := userinfoAt(b, i+3); ok {
					spans = append(spans, s)
					i = s.end
					continue
				}
			}
			i++
			continue
		}
		// A word: try the formats at its start and after each of its
		// inner separators, then its name.
		j := i
		matched := false
		for {
			// j is at the word's start or after one of its separators.
			if j < n && byteClass[b[j]]&clsFormat != 0 {
				if k := rd.formatAt(b, j); k > 0 {
					spans = append(spans, span{j, j + k})
					j += k
					matched = true
					break
				}
			}
			for j < n && byteClass[b[j]]&clsAlnum != 0 {
				j++
			}
			if j < n && byteClass[b[j]]&clsIdent != 0 {
				j++ // a separator: - _ .
				continue
			}
			break
		}
		if matched {
			i = j
			continue
		}
		word := b[i:j]
		if fields && assigns(b, j) && mayBeCredential(word) && !rd.keptBytes(word) && credentialName(string(word), ctxText) {
			if s, ok := valueAfter(b, j, raw); ok {
				if byteClass[b[s.start]]&clsFormat != 0 {
					// A value of a known shape may go on past the
					// delimiter (a private key's lines).
					if n := rd.formatAt(b, s.start); s.start+n > s.end {
						s.end = s.start + n
					}
				}
				spans = append(spans, s)
				i = s.end
				continue
			}
		}
		if bearer && (len(word) == 6 || len(word) == 5) {
			if s, ok := bearerAt(b, i, j); ok {
				spans = append(spans, s)
				i = s.end
				continue
			}
		}
		i = j
	}
	return spans
}

func (rd *Redact) keptBytes(w []byte) bool {
	for _, k := range rd.Keep {
		if len(k) == len(w) && bytes.EqualFold([]byte(k), w) {
			return true
		}
	}
	return false
}

// assigns reports whether what follows the word ending at i may give it a
// value: a closing quote, white space, then ':' or '='. It spares the name
// checks of every other word.
func assigns(b []byte, i int) bool {
	for ; i < len(b); i++ {
		switch b[i] {
		case '"', '\'', '\\', ' ', '\t':
		case ':', '=':
			return true
		default:
			return false
		}
	}
	return false
}

// valueAfter finds the value of a name ending at i: optional closing
// quotes, white space, ':' or '=', white space, then a quoted string (its
// content) or an unquoted value (a number, or text up to a delimiter; after
// ':', up to the end of the line).
func valueAfter(b []byte, i int, raw bool) (span, bool) {
	// The name's closing quote: ", ' or, in escaped JSON, \".
	escQuote := false
	switch {
	case i < len(b) && (b[i] == '"' || b[i] == '\''):
		i++
	case raw && i+1 < len(b) && b[i] == '\\' && b[i+1] == '"':
		i += 2
		escQuote = true
	}
	i = skipBlank(b, i)
	if i >= len(b) || (b[i] != ':' && b[i] != '=') {
		return span{}, false
	}
	sep := b[i]
	i++
	if sep == '=' && i < len(b) && b[i] == '=' {
		return span{}, false // a comparison
	}
	i = skipBlank(b, i)
	if i >= len(b) {
		return span{}, false
	}
	switch {
	case raw && escQuote && i+1 < len(b) && b[i] == '\\' && b[i+1] == '"':
		// "name\":\"value\"" inside a JSON string.
		start := i + 2
		end := bytes.Index(b[start:], []byte(`\"`))
		if end < 0 {
			end = len(b) - start
		}
		return nonEmpty(start, start+end)
	case b[i] == '"' || b[i] == '\'':
		q := b[i]
		start := i + 1
		k := start
		for k < len(b) && b[k] != q {
			if b[k] == '\\' && q == '"' {
				k++
			}
			k++
		}
		return nonEmpty(start, min(k, len(b)))
	case b[i] == '{' || b[i] == '[':
		return span{}, false
	}
	start := i
	k := i
	for k < len(b) {
		c := b[k]
		if c == '\n' || c == '\r' || c == '"' || c == '\'' || c == ',' || c == ';' || c == '&' || c == '}' || c == ']' || c == '<' || c == '>' || (raw && c == '\\') {
			break
		}
		if sep == '=' && (c == ' ' || c == '\t' || c == '#') {
			break
		}
		k++
	}
	for k > start && (b[k-1] == ' ' || b[k-1] == '\t') {
		k--
	}
	if v := b[start:k]; string(v) == "null" || string(v) == "true" || string(v) == "false" {
		return span{}, false
	}
	return nonEmpty(start, k)
}

func nonEmpty(start, end int) (span, bool) {
	if end <= start {
		return span{}, false
	}
	return span{start, end}, true
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// userinfoAt finds user:password@ right after "://" at i.
func userinfoAt(b []byte, i int) (span, bool) {
	for k := i; k < len(b); k++ {
		switch b[k] {
		case '@':
			return nonEmpty(i, k)
		case '/', '?', '#', ' ', '\t', '\n', '\r', '"', '\'', '\\', '<', '>', '[', ']':
			return span{}, false
		}
	}
	return span{}, false
}

// userinfoSpans adds the userinfo of every URL in b.
func userinfoSpans(b []byte, spans []span) []span {
	for i := 0; i+3 <= len(b); {
		k := bytes.Index(b[i:], []byte("://"))
		if k < 0 {
			break
		}
		if s, ok := userinfoAt(b, i+k+3); ok {
			spans = append(spans, s)
		}
		i += k + 3
	}
	return spans
}

// bearerAt finds the token after the word "Bearer" or "Basic" at b[i:j].
func bearerAt(b []byte, i, j int) (span, bool) {
	w := b[i:j]
	if !bytes.EqualFold(w, []byte("bearer")) && !bytes.EqualFold(w, []byte("basic")) {
		return span{}, false
	}
	if j >= len(b) || b[j] != ' ' {
		return span{}, false
	}
	start := j + 1
	k := start
	for k < len(b) && (isAlnum(b[k]) || bytes.IndexByte([]byte("._~+/=-"), b[k]) >= 0) {
		k++
	}
	if k-start < 8 || !randomLooking(b[start:k]) {
		return span{}, false
	}
	return span{start, k}, true
}

// randomLooking reports whether a token looks generated rather than
// written: letters and digits, or both cases over a long run.
func randomLooking(t []byte) bool {
	var digit, lower, upper bool
	for _, c := range t {
		switch {
		case '0' <= c && c <= '9':
			digit = true
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		}
	}
	return digit && (lower || upper) || lower && upper && len(t) >= 20
}

// runOf returns how many bytes from i are in the set ok.
func runOf(b []byte, i int, ok func(byte) bool) int {
	n := 0
	for i+n < len(b) && ok(b[i+n]) {
		n++
	}
	return n
}

func tokenByte(c byte) bool     { return isAlnum(c) || c == '_' || c == '-' }
func alnumByte(c byte) bool     { return isAlnum(c) }
func upperAlnum(c byte) bool    { return 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }
func underAlnum(c byte) bool    { return isAlnum(c) || c == '_' }
func slackHookByte(c byte) bool { return tokenByte(c) || c == '/' }

// formatAt returns the length of a credential of a known shape starting
// at b[i], or 0.
func (rd *Redact) formatAt(b []byte, i int) int {
	rest := b[i:]
	has := func(p string) bool { return bytes.HasPrefix(rest, []byte(p)) }
	switch rest[0] {
	case 's':
		switch {
		case has("sk-ant-"):
			if rd.on(DefaultAnthropic) {
				if n := runOf(b, i+7, tokenByte); n >= 20 {
					return 7 + n
				}
			}
			return 0
		case has("sk-"):
			if rd.on(DefaultOpenAI) {
				if n := runOf(b, i+3, tokenByte); n >= 20 && randomLooking(b[i+3:i+3+n]) {
					return 3 + n
				}
			}
		case has("sk_live_"), has("sk_test_"):
			if rd.on(DefaultStripe) {
				if n := runOf(b, i+8, alnumByte); n >= 16 {
					return 8 + n
				}
			}
		}
	case 'r':
		if (has("rk_live_") || has("rk_test_")) && rd.on(DefaultStripe) {
			if n := runOf(b, i+8, alnumByte); n >= 16 {
				return 8 + n
			}
		}
	case 'A':
		switch {
		case has("AIza"):
			if rd.on(DefaultGoogle) {
				if n := runOf(b, i+4, tokenByte); n >= 35 {
					return 4 + n
				}
			}
		case has("AKIA"), has("ASIA"):
			if rd.on(DefaultAWS) {
				if n := runOf(b, i+4, upperAlnum); n == 16 && (i+20 == len(b) || !isAlnum(b[i+20])) {
					return 20
				}
			}
		}
	case 'y':
		if has("ya29.") && rd.on(DefaultGoogle) {
			if n := runOf(b, i+5, tokenByte); n >= 20 {
				return 5 + n
			}
		}
	case 'G':
		if has("GOCSPX-") && rd.on(DefaultGoogle) {
			if n := runOf(b, i+7, tokenByte); n >= 20 {
				return 7 + n
			}
		}
	case 'g':
		switch {
		case len(rest) > 4 && rest[1] == 'h' && bytes.IndexByte([]byte("pousr"), rest[2]) >= 0 && rest[3] == '_':
			if rd.on(DefaultGitHub) {
				if n := runOf(b, i+4, alnumByte); n >= 30 {
					return 4 + n
				}
			}
		case has("github_pat_"):
			if rd.on(DefaultGitHub) {
				if n := runOf(b, i+11, underAlnum); n >= 22 {
					return 11 + n
				}
			}
		case has("glpat-"):
			if rd.on(DefaultGitLab) {
				if n := runOf(b, i+6, tokenByte); n >= 20 {
					return 6 + n
				}
			}
		case has("gsk_"):
			if rd.on(DefaultGroq) {
				if n := runOf(b, i+4, alnumByte); n >= 40 {
					return 4 + n
				}
			}
		}
	case 'x':
		switch {
		case len(rest) > 5 && has("xox") && bytes.IndexByte([]byte("abposre"), rest[3]) >= 0 && rest[4] == '-':
			if rd.on(DefaultSlack) {
				if n := runOf(b, i+5, tokenByte); n >= 10 {
					return 5 + n
				}
			}
		case has("xapp-"):
			if rd.on(DefaultSlack) {
				if n := runOf(b, i+5, tokenByte); n >= 10 {
					return 5 + n
				}
			}
		case has("xai-"):
			if rd.on(DefaultXAI) {
				if n := runOf(b, i+4, alnumByte); n >= 40 {
					return 4 + n
				}
			}
		}
	case 'h':
		switch {
		case has("hf_"):
			if rd.on(DefaultHuggingFace) {
				if n := runOf(b, i+3, alnumByte); n >= 30 {
					return 3 + n
				}
			}
		case has("https://hooks.slack.com/"):
			if rd.on(DefaultSlack) {
				if n := runOf(b, i+24, slackHookByte); n >= 10 {
					return 24 + n
				}
			}
		}
	case 'n':
		if has("npm_") && rd.on(DefaultNPM) {
			if n := runOf(b, i+4, alnumByte); n >= 36 {
				return 4 + n
			}
		}
	case 'e':
		if has("eyJ") && rd.on(DefaultJWT) {
			return jwtAt(b, i)
		}
	case '-':
		if has("-----BEGIN ") && rd.on(DefaultPrivateKey) {
			return privateKeyAt(b, i)
		}
	}
	return 0
}

// jwtAt returns the length of a JWT at b[i] (header.payload.signature,
// header and payload JSON objects in base64url), or 0.
func jwtAt(b []byte, i int) int {
	isB64 := func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }
	h := runOf(b, i, isB64)
	if h < 10 || i+h >= len(b) || b[i+h] != '.' {
		return 0
	}
	p := i + h + 1
	if !bytes.HasPrefix(b[p:], []byte("eyJ")) {
		return 0
	}
	n := runOf(b, p, isB64)
	if n < 10 {
		return 0
	}
	end := p + n
	if end < len(b) && b[end] == '.' {
		end += 1 + runOf(b, end+1, isB64)
	}
	return end - i
}

// privateKeyAt returns the length of a PEM private key block at b[i]
// (through its END line, or to the end of b when it has none), or 0.
func privateKeyAt(b []byte, i int) int {
	rest := b[i:]
	eol := bytes.IndexAny(rest, "\r\n\\")
	if eol < 0 {
		eol = len(rest)
	}
	if !bytes.Contains(rest[:eol], []byte("PRIVATE KEY-----")) {
		return 0
	}
	end := bytes.Index(rest, []byte("-----END "))
	if end < 0 {
		return len(rest)
	}
	close := bytes.Index(rest[end+9:], []byte("-----"))
	if close < 0 {
		return len(rest)
	}
	return end + 9 + close + 5
}
