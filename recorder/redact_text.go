package recorder

import (
	"bytes"
	"slices"
	"strings"
)

// The text scanner: one pass over bytes finding credentials of known
// shapes, name=value pairs named like credentials and URL userinfo, as
// spans to replace. It is the quick check on the recording path (an event
// in which it finds nothing is written as it came) and the rules applied
// to every text a recording holds.

// span is a range [start, end) of bytes to replace by Redacted.
// A drop span is replaced by nothing: a later piece of a credential whose
// first piece has "[REDACTED]" in its place.
type span struct {
	start, end int
	drop       bool
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(s []span) []span {
	slices.SortFunc(s, func(a, b span) int { return a.start - b.start })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && (x.start < out[n-1].end || x.start == out[n-1].end && x.drop == out[n-1].drop) {
			out[n-1].end = max(out[n-1].end, x.end)
			out[n-1].drop = out[n-1].drop && x.drop
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
		if !s.drop {
			dst = append(dst, Redacted...)
		}
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
	for _, c := range "-P" {
		t[c] |= clsFormat
	}
	return t
}()

func isAlnum(c byte) bool { return byteClass[c]&clsAlnum != 0 }

// textSpans adds the spans of credentials found in b: the rules' (see
// Rule), and what a scan of its words finds (values after credential
// names, URL userinfo, bearer tokens, private key blocks, Discord bot
// tokens). In raw mode b is JSON-escaped text (a JSON document, an SSE
// stream) and a backslash escape separates words.
func (rd *Redact) textSpans(b []byte, raw bool, spans []span) []span {
	spans = rd.ruleSpans(b, spans)
	return rd.wordSpans(b, raw, spans)
}

// wordSpans adds what the scan of b's words finds.
func (rd *Redact) wordSpans(b []byte, raw bool, spans []span) []span {
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
					spans = append(spans, span{start: j, end: j + k})
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
		if len(word) >= 50 && rd.on(DefaultDiscord) && discordToken(bytes.TrimRight(word, "-_.")) {
			spans = append(spans, span{start: i, end: i + len(bytes.TrimRight(word, "-_."))})
			i = j
			continue
		}
		if fields && assigns(b, j) && mayBeCredential(word) && !rd.keptBytes(word) && credentialName(string(word), ctxText) {
			if s, ok := valueAfter(b, j, raw); ok {
				if byteClass[b[s.start]]&clsFormat != 0 {
					// A value of a known shape may go on past the
					// delimiter (a private key's lines).
					if n := rd.formatAt(b, s.start); s.start+n > s.end {
						s.end = s.start + n
					}
				}
				if !(len(word) == 5 && string(word) == "token" && logprobNear(b[s.end:min(len(b), s.end+80)])) &&
					!(len(word) == 4 && bytes.EqualFold(word, []byte("pass")) && isNumber(b[s.start:s.end])) {
					spans = append(spans, s)
					i = s.end
					continue
				}
			}
		}
		if fields && i > 0 && b[i-1] == '/' && j < n && (b[j] == '"' || b[j] == '\\') && mayBeCredential(word) &&
			!rd.keptBytes(word) && credentialName(string(word), ctxField) {
			// The end of a JSON Patch path: the operation's value follows.
			if s, ok := patchValueAfter(b, j, raw); ok {
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

// patchValueAfter finds the value of the JSON Patch operation whose path
// ends at i: "value" after it, within its object.
func patchValueAfter(b []byte, i int, raw bool) (span, bool) {
	end := min(len(b), i+64)
	for k := i; k+5 <= end; k++ {
		switch b[k] {
		case '{', '}':
			return span{}, false
		case 'v':
			if bytes.HasPrefix(b[k:], []byte("value")) && assigns(b, k+5) {
				return valueAfter(b, k+5, raw)
			}
		}
	}
	return span{}, false
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
	escQuote, quotedName := false, false
	switch {
	case i < len(b) && (b[i] == '"' || b[i] == '\''):
		i++
		quotedName = true
	case raw && i+1 < len(b) && b[i] == '\\' && b[i+1] == '"':
		i += 2
		escQuote, quotedName = true, true
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
		if placeholder(b[start : start+end]) {
			return span{}, false
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
		if placeholder(b[start:min(k, len(b))]) {
			return span{}, false
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
	if placeholder(bytes.Trim(b[start:k], `"' `)) || !holdsAlnum(b[start:k]) {
		return span{}, false
	}
	if sep == ':' && !quotedName {
		// name: value in prose or YAML: the value is one word, and only
		// one that looks like a secret ("API key: it runs the ..." is
		// prose).
		w := start
		for w < k && b[w] != ' ' && b[w] != '\t' {
			w++
		}
		k = w
		for k > start && bytes.IndexByte([]byte(".,;:!?)"), b[k-1]) >= 0 {
			k--
		}
		if !secretLooking(b[start:k]) {
			return span{}, false
		}
	}
	return nonEmpty(start, k)
}

// secretLooking reports whether a word given as a credential's value in
// prose looks like one rather than a word: at least 6 bytes, and a digit,
// a symbol or a capital after its first letter, or 16 bytes or more.
func secretLooking(w []byte) bool {
	if len(w) < 6 || placeholder(w) {
		return false
	}
	if len(w) >= 16 {
		return true
	}
	for i, c := range w {
		switch {
		case 'a' <= c && c <= 'z':
		case 'A' <= c && c <= 'Z':
			if i > 0 {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// placeholder reports whether a value stands for a credential rather than
// being one: a variable ($API_KEY, ${TOKEN}, {{ secret }}, %PASS%,
// env.APIKey, process.env.TOKEN, os.environ[...]), a mask (***, xxxx,
// <your-key>) or a word that says what goes there.
func placeholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	s := string(v)
	switch strings.ToLower(strings.Trim(s, `"'`)) {
	case "pass", "password", "passwd", "pwd", "secret", "token", "test", "changeme", "changeit", "example", "redacted", "none", "null", "undefined", "nil", "empty":
		return true
	}
	switch {
	case s[0] == '$' || s[0] == '%' || s[0] == '<' || strings.HasPrefix(s, "{{"):
		return true
	case strings.Trim(s, "*xX.-_•") == "":
		return true
	case strings.Contains(s, "…") || strings.HasSuffix(s, "..."):
		return true // elided: sk-…, hf_...
	}
	// Where a program reads it from: env.APIKey, process.env.TOKEN,
	// os.environ["KEY"], config.secret.
	first, _, dotted := strings.Cut(strings.ToLower(s), ".")
	if i := strings.IndexAny(first, "[("); i >= 0 {
		first, dotted = first[:i], true
	}
	if dotted {
		switch first {
		case "env", "process", "os", "config", "cfg", "conf", "settings", "secrets", "vars", "self", "this",
			"props", "options", "opts", "ctx", "context", "args", "params", "window", "values", "import", "environ":
			return true
		}
	}
	return false
}

func holdsAlnum(b []byte) bool {
	for _, c := range b {
		if isAlnum(c) {
			return true
		}
	}
	return false
}

func nonEmpty(start, end int) (span, bool) {
	if end <= start {
		return span{}, false
	}
	return span{start: start, end: end}, true
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
			if _, pw, ok := bytes.Cut(b[i:k], []byte(":")); ok && placeholder(pw) {
				return span{}, false
			}
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
	return span{start: start, end: k}, true
}

// randomLooking reports whether a token looks generated rather than
// written: letters and digits, or both cases over a long run.
func randomLooking(t []byte) bool {
	lower, upper, digit := classes(t)
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

// formatAt returns the length of a credential of a shape the rules cannot
// bound starting at b[i] (a private key block, which may still be open
// when a stream's text is cut), or 0.
func (rd *Redact) formatAt(b []byte, i int) int {
	if !rd.on(DefaultPrivateKey) {
		return 0
	}
	rest := b[i:]
	switch {
	case rest[0] == '-' && bytes.HasPrefix(rest, []byte("-----BEGIN ")):
		return privateKeyAt(b, i)
	case rest[0] == 'P' && bytes.HasPrefix(rest, []byte("PuTTY-User-Key-File-")):
		return puttyKeyAt(b, i)
	}
	return 0
}

// discordToken reports whether a word is a Discord bot token: the user
// id in base64 (24 to 26 characters, starting M, N or O), a dot, 6
// characters, a dot, 27 to 38 characters.
func discordToken(w []byte) bool {
	if len(w) < 50 || w[0] != 'M' && w[0] != 'N' && w[0] != 'O' {
		return false
	}
	d1 := bytes.IndexByte(w, '.')
	if d1 < 24 || d1 > 26 {
		return false
	}
	rest := w[d1+1:]
	d2 := bytes.IndexByte(rest, '.')
	if d2 != 6 {
		return false
	}
	tail := rest[7:]
	if len(tail) < 27 || len(tail) > 38 || bytes.IndexByte(tail, '.') >= 0 {
		return false
	}
	b64 := func(p []byte) bool {
		for _, c := range p {
			if !isAlnum(c) && c != '_' && c != '-' {
				return false
			}
		}
		return true
	}
	return b64(w[:d1]) && b64(rest[:6]) && b64(tail) && hasLetterAndDigit(w[:d1])
}

// puttyKeyAt returns the length of a PuTTY private key file at b[i]
// (through its Private-MAC or Private-Hash line, or to the end of b), or 0.
func puttyKeyAt(b []byte, i int) int {
	rest := b[i:]
	for _, end := range []string{"Private-MAC:", "Private-Hash:"} {
		if k := bytes.Index(rest, []byte(end)); k >= 0 {
			e := k + len(end)
			for e < len(rest) && (rest[e] == ' ' || rest[e] == '\t') {
				e++
			}
			return e + runOf(rest, e, isHexDigit)
		}
	}
	return len(rest)
}

// privateKeyAt returns the length of a PEM private key block at b[i]
// (through its END line, or to the end of b when it has none), or 0.
func privateKeyAt(b []byte, i int) int {
	rest := b[i:]
	eol := bytes.IndexAny(rest, "\r\n\\")
	if eol < 0 {
		eol = len(rest)
	}
	if h := rest[:eol]; !bytes.Contains(h, []byte("PRIVATE KEY")) || !bytes.HasSuffix(bytes.TrimRight(h, " "), []byte("-----")) {
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
