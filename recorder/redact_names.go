package recorder

import (
	"slices"
	"strings"
)

// Names that say a credential follows: header names, query parameters,
// JSON members, form fields, name=value in text.

// nameCtx says where a name was found.
type nameCtx uint8

const (
	ctxField  nameCtx = iota // a JSON member or form field
	ctxText                  // name=value or name: value in text
	ctxQuery                 // a URL query parameter
	ctxHeader                // an HTTP header
)

// credentialWords end a name that carries a credential (the name's last
// word, lower case): "password", "client_secret", "access_token".
var credentialWords = []string{
	"password", "passwd", "passphrase", "pwd", "pass", "secret", "secrets",
	"token", "credential", "credentials", "cookie", "cookies", "auth",
	"authorization", "bearer", "jwt", "session", "apikey", "privatekey",
}

// credentialSuffixes end a last word written without separators:
// "accesstoken", "xapikey", "clientsecret", "oauth".
var credentialSuffixes = []string{"password", "passwd", "secret", "token", "apikey", "auth"}

// benignKeys are the words before "key" in names of keys that are not
// secret: Idempotency-Key, public_key, cacheKey.
var benignKeys = []string{
	"idempotency", "public", "cache", "primary", "foreign", "sort", "partition", "row",
	"dedup", "dedupe", "deduplication", "lookup", "object", "map", "group", "unique",
	"routing", "shard", "websocket", "socket", "i18n", "translation", "hash", "index", "cursor",
	"react", "list", "item", "composite",
}

// credentialTails may follow a credential word: "secret_value",
// "tokenString", "password_hash".
var credentialTails = []string{"value", "string", "text", "data", "hash"}

// credentialHints is a quick test: a name holding none of these (any case)
// cannot be a credential name.
var credentialHints = []string{"key", "token", "secret", "pass", "pwd", "auth", "cookie", "credential", "session", "sig", "bearer", "jwt"}

// hintStart marks the lower-case letter pairs the credentialHints start
// with.
var hintStart = func() (t [26 * 26]bool) {
	for _, h := range credentialHints {
		t[int(h[0]-'a')*26+int(h[1]-'a')] = true
	}
	return t
}()

// mayBeCredential reports whether the name may be a credential name; it
// allocates nothing and rules out almost every name.
func mayBeCredential(name []byte) bool {
	lower := func(c byte) int {
		switch {
		case 'a' <= c && c <= 'z':
			return int(c - 'a')
		case 'A' <= c && c <= 'Z':
			return int(c - 'A')
		}
		return -1
	}
	for i := 0; i+2 < len(name); i++ {
		a, b := lower(name[i]), lower(name[i+1])
		if a < 0 || b < 0 || !hintStart[a*26+b] {
			continue
		}
		for _, h := range credentialHints {
			if len(name)-i >= len(h) && indexFold(name[i:i+len(h)], h) == 0 {
				return true
			}
		}
	}
	return false
}

// indexFold is the index of the lower-case ASCII string sub in b, in any
// case, or -1.
func indexFold(b []byte, sub string) int {
	n := len(sub)
	for i := 0; i+n <= len(b); i++ {
		j := 0
		for ; j < n; j++ {
			c := b[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == n {
			return i
		}
	}
	return -1
}

// credentialName reports whether a name says a credential follows.
func credentialName(name string, ctx nameCtx) bool {
	if !mayBeCredential([]byte(name)) {
		return false
	}
	w := nameWords(name)
	if len(w) == 0 {
		return false
	}
	last := w[len(w)-1]
	if len(w) > 1 && slices.Contains(credentialTails, last) && credentialWord(w[len(w)-2]) {
		return true
	}
	if credentialWord(last) {
		return true
	}
	switch last {
	case "key", "keys":
		return len(w) == 1 || !slices.Contains(benignKeys, w[len(w)-2])
	case "sig":
		return true
	case "signature":
		// Anthropic's thinking blocks carry a "signature" that is no
		// credential; signed URLs and webhook headers carry ones that are.
		return ctx == ctxQuery || ctx == ctxHeader
	}
	return false
}

func credentialWord(w string) bool {
	if slices.Contains(credentialWords, w) {
		return true
	}
	for _, s := range credentialSuffixes {
		if len(w) > len(s) && strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// nameWords splits a name into lower-case words at separators and case
// changes: "X-Api-Key" -> x api key, "clientSecret" -> client secret,
// "APIKey" -> api key.
func nameWords(s string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			if start < 0 {
				start = i
			}
		case 'A' <= c && c <= 'Z':
			switch {
			case start < 0:
				start = i
			case i > 0 && ('a' <= s[i-1] && s[i-1] <= 'z' || '0' <= s[i-1] && s[i-1] <= '9'):
				// clientSecret: a new word at the capital.
				flush(i)
				start = i
			case i+1 < len(s) && 'a' <= s[i+1] && s[i+1] <= 'z' && i > start:
				// APIKey: the last capital of a run starts a word.
				flush(i)
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(s))
	return out
}
