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

// The shapes of credential names. A name is split into lower-case words
// at separators and case changes ("X-Api-Key" is x api key, "clientSecret"
// is client secret) and is a credential name when
//
//   - its last word is a credential word (password, passwd, passphrase,
//     passcode, pwd, pass, secret, secrets, token, credential(s), creds,
//     cookie(s), auth, authorization, bearer, jwt, dsn, apikey,
//     privatekey, ...) or ends in one written without separators
//     (accesstoken, xapikey, clientsecret, oauth);
//   - or a credential word is followed only by words of a value
//     (secret_value, tokenString, password_hash, api_key_value);
//   - or it holds key or keys (api_key, apiKeys, x-functions-key,
//     api_key_value), but after a word that makes a key no secret
//     (public_key, cache_key, sort_key, Idempotency-Key, Sec-WebSocket-Key)
//     or before a word that describes one (key_id, key_name, key_type);
//   - or it starts with session (session, sessionId, session_token,
//     sessionKey), but not a word of a session's description after it
//     (session_count, sessionStart, session_duration);
//   - or, as a query parameter or header, it is sig or signature.
//
// The guard against words that merely hold these: a word must be one of
// them whole, so keyboard, monkey, author, passenger, tokenizer and
// sessions are not; token and tokens are no credential among words of a
// count or a kind (tokenCount, max_tokens, promptTokenCount, input_tokens,
// token_type, tokens alone: what a model's usage reports), and "token"
// next to a "logprob" is a token of text, not a credential.

// credentialWords end a name that carries a credential (the name's last
// word, lower case): "password", "client_secret", "access_token".
var credentialWords = []string{
	"password", "passwords", "passwd", "passphrase", "passcode", "passcodes", "pwd", "pass", "secret", "secrets",
	"token", "credential", "credentials", "cred", "creds", "cookie", "cookies", "auth",
	"authorization", "bearer", "jwt", "apikey", "apikeys", "privatekey", "dsn",
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
	"react", "list", "item", "composite", "hot", "short", "idem", "dict", "sorting", "next", "continuation",
	"message", "tool", "state", "thread", "run", "node", "field", "column", "table", "record", "entity",
	"query", "event", "schema", "config", "i18next", "legend", "form", "child", "parent", "element",
}

// keyTails are the words after "key" that describe a key rather than hold
// it: key_id, keyName, key_type.
var keyTails = []string{
	"id", "ids", "name", "names", "type", "types", "length", "size", "count", "path", "file", "alias",
	"version", "index", "prefix", "hint", "fingerprint", "format", "algorithm", "usage", "field",
	"board", "code", "codes", "frame", "press", "pressed", "stroke", "word", "words", "up", "down",
}

// credentialTails may follow a credential word: "secret_value",
// "tokenString", "password_hash".
var credentialTails = []string{
	"value", "string", "text", "data", "hash", "str", "b64", "base64", "raw", "plain", "plaintext", "encrypted",
	"new", "old", "current", "confirm", "confirmation", "repeat", "again", "1", "2", "enc", "ref", "code",
}

// tokenCounts are the words beside token or tokens in names of counts
// and kinds of a model's tokens: max_tokens, promptTokenCount, token_type.
var tokenCounts = []string{
	"count", "counts", "usage", "limit", "limits", "max", "min", "total", "input", "output", "prompt",
	"completion", "completions", "cached", "cache", "reasoning", "thinking", "type", "types", "budget",
	"num", "number", "estimate", "estimated", "remaining", "used", "left", "per", "rate", "window",
	"context", "audio", "text", "image", "accepted", "rejected", "candidates", "tool", "tokenizer",
	"generated", "logprob", "logprobs", "details", "len", "length", "size",
}

// tokenTails are the words after token that describe a token of text:
// token_id, token_ids, tokenIndex.
var tokenTails = []string{"id", "ids", "index", "position", "offset", "offsets", "bytes", "str"}

// sessionTails are the words after session that describe a session rather
// than identify it: session_count, sessionStart.
var sessionTails = []string{
	"count", "counts", "start", "started", "end", "ended", "duration", "length", "time", "timeout",
	"ttl", "expiry", "expires", "expiration", "name", "type", "state", "status", "number", "index",
	"storage", "store", "config", "info", "list", "history", "title", "mode", "kind", "summary",
	"created", "updated", "at", "date", "started_at", "seconds", "minutes", "ms", "timestamp",
}

// credentialHints is a quick test: a name holding none of these (any case)
// cannot be a credential name.
var credentialHints = []string{"key", "token", "secret", "pass", "pwd", "auth", "cookie", "cred", "session", "sig", "bearer", "jwt", "dsn"}

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
	for i, x := range w {
		switch x {
		case "token", "tokens":
			if tokenCount(w) || i+1 < len(w) && slices.Contains(tokenTails, w[i+1]) {
				return false
			}
		case "key", "keys":
			if i > 0 && slices.Contains(benignKeys, w[i-1]) {
				return false
			}
			if i+1 < len(w) && slices.Contains(keyTails, w[i+1]) {
				return false
			}
			if i == len(w)-1 || valueWords(w[i+1:]) {
				return true
			}
		}
	}
	if ctx == ctxText && len(w) == 1 && w[0] == "pass" {
		return false // "--- PASS: TestName", "pass: 3 of 4"
	}
	if w[0] == "session" {
		return len(w) == 1 || !slices.Contains(sessionTails, w[1])
	}
	for i := len(w) - 1; i >= 0; i-- {
		if credentialWord(w[i]) {
			if w[i] == "tokens" && len(w) == 1 {
				return false // a count of a model's tokens
			}
			return i == len(w)-1 || valueWords(w[i+1:])
		}
	}
	switch last {
	case "sig":
		return true
	case "signature":
		// Anthropic's thinking blocks carry a "signature" that is no
		// credential; signed URLs and webhook headers carry ones that are.
		return ctx == ctxQuery || ctx == ctxHeader
	}
	return false
}

// valueWords reports whether every word is one that may follow a
// credential word: secret_value, api_key_b64.
func valueWords(w []string) bool {
	for _, x := range w {
		if !slices.Contains(credentialTails, x) {
			return false
		}
	}
	return true
}

// tokenCount reports whether a name holding token or tokens names a
// count or a kind of a model's tokens.
func tokenCount(w []string) bool {
	for _, x := range w {
		if slices.Contains(tokenCounts, x) {
			return true
		}
	}
	return false
}

func credentialWord(w string) bool {
	if slices.Contains(credentialWords, w) {
		return true
	}
	if w == "tokens" {
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
