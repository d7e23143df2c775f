package recorder

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces what redaction removes.
const Redacted = "[REDACTED]"

// A Default names one of the redactions Redact makes unless it is turned
// off (Redact.Off). The first four find a credential by the name it is
// carried under; the others by its shape, wherever it appears: header
// values, URLs, request and provider bodies, events, recorded data that is
// not an event, provider response chunks (across chunk boundaries), error
// messages, and the text a stream sends in pieces (a message's deltas, a
// call's arguments, a provider's text deltas), joined.
//
// The shapes are rules as data (see Rule): gitleaks' ruleset, vendored
// whole, and the recorder's own rules for formats gitleaks lacks and for
// keys glued to other text. The Defaults after DefaultFields name groups
// of them; DefaultGitleaks is the rest of gitleaks' rules. Off also takes
// a single rule's ID (Rules lists them).
type Default string

// The defaults, in the order Defaults lists them.
const (
	// DefaultHeaders drops request and response headers named like a
	// credential: Authorization, Proxy-Authorization, Cookie, Set-Cookie,
	// and any name holding secret, token, password, auth, cookie,
	// session, credential, signature or api-key, or ending in "key"
	// (X-Functions-Key, Ocp-Apim-Subscription-Key), except the keys
	// that are not secret (Idempotency-Key, Sec-WebSocket-Key, ...).
	DefaultHeaders Default = "headers"
	// DefaultQuery redacts the values of URL query parameters named like a
	// credential (key=, api_key=, access_token=, sig=, X-Amz-Signature=,
	// ...), in the request path and in provider URLs.
	DefaultQuery Default = "query"
	// DefaultUserinfo redacts user:password@ in URLs.
	DefaultUserinfo Default = "userinfo"
	// DefaultFields redacts values named like a credential: JSON members
	// (a string or number under apiKey, password, client_secret,
	// access_token, ...; objects are searched inside), the value of a
	// JSON Patch operation whose path ends in such a name, form fields,
	// and name=value or name: value in text. Names are matched by their
	// shape (password, DB_PASSWORD, passwd, secret(s), creds, dsn,
	// passcode, apiKeys, api_key_value, accessToken, sessionId, ...), with
	// a guard for names that carry none (tokenCount, max_tokens,
	// keyboard, public_key, key_id, sessions) and for values that stand
	// for one ($API_KEY, env.APIKey, <your-key>, a word after "key:" in
	// prose); docs/security.md has the whole list.
	DefaultFields Default = "fields"

	DefaultOpenAI       Default = "openai"       // sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…, and the sk- keys of DeepSeek and OpenRouter
	DefaultAnthropic    Default = "anthropic"    // sk-ant-…
	DefaultGoogle       Default = "google"       // AIza… API keys, ya29.… OAuth tokens, GOCSPX-… client secrets
	DefaultAWS          Default = "aws"          // AKIA… and ASIA… access key ids, secret access keys next to them or to "aws"
	DefaultGitHub       Default = "github"       // ghp_, gho_, ghu_, ghs_, ghr_, github_pat_
	DefaultGitLab       Default = "gitlab"       // glpat-
	DefaultSlack        Default = "slack"        // xoxb-, xoxp-, xoxa-, xapp- tokens, hooks.slack.com webhook URLs
	DefaultStripe       Default = "stripe"       // sk_live_, sk_test_, rk_live_, rk_test_, whsec_ webhook secrets
	DefaultHuggingFace  Default = "huggingface"  // hf_
	DefaultNPM          Default = "npm"          // npm_
	DefaultGroq         Default = "groq"         // gsk_
	DefaultXAI          Default = "xai"          // xai-
	DefaultLangSmith    Default = "langsmith"    // lsv2_pt_, lsv2_sk_
	DefaultPinecone     Default = "pinecone"     // pcsk_
	DefaultTavily       Default = "tavily"       // tvly-
	DefaultPerplexity   Default = "perplexity"   // pplx-
	DefaultReplicate    Default = "replicate"    // r8_
	DefaultElevenLabs   Default = "elevenlabs"   // sk_ and 48 hex digits
	DefaultMistral      Default = "mistral"      // 32 letters and digits given as a Mistral key
	DefaultPyPI         Default = "pypi"         // pypi-Ag…
	DefaultSendGrid     Default = "sendgrid"     // SG.….…
	DefaultShopify      Default = "shopify"      // shpat_, shpca_, shppa_, shpss_
	DefaultTwilio       Default = "twilio"       // SK and 32 hex digits
	DefaultTelegram     Default = "telegram"     // bot tokens: digits:AA…
	DefaultDiscord      Default = "discord"      // bot tokens, webhook URLs
	DefaultVault        Default = "vault"        // hvs., hvb.
	DefaultDatabricks   Default = "databricks"   // dapi and 32 hex digits
	DefaultDigitalOcean Default = "digitalocean" // dop_v1_, doo_v1_, dor_v1_
	DefaultDSN          Default = "dsn"          // passwords in MySQL DSNs (user:pass@tcp(…)) and after mysql -p
	DefaultJWT          Default = "jwt"          // eyJ….eyJ….…
	DefaultBearer       Default = "bearer"       // the token after "Bearer " or "Basic " in text
	DefaultPrivateKey   Default = "private-key"  // PEM (RSA, EC, OPENSSH, …), PGP and PuTTY private key blocks
	DefaultGitleaks     Default = "gitleaks"     // the rest of gitleaks' rules (about 180 formats)
)

// Defaults returns every Default, in a fixed order.
func Defaults() []Default {
	return []Default{
		DefaultHeaders, DefaultQuery, DefaultUserinfo, DefaultFields,
		DefaultOpenAI, DefaultAnthropic, DefaultGoogle, DefaultAWS, DefaultGitHub, DefaultGitLab,
		DefaultSlack, DefaultStripe, DefaultHuggingFace, DefaultNPM, DefaultGroq, DefaultXAI,
		DefaultLangSmith, DefaultPinecone, DefaultTavily, DefaultPerplexity, DefaultReplicate,
		DefaultElevenLabs, DefaultMistral, DefaultPyPI, DefaultSendGrid, DefaultShopify,
		DefaultTwilio, DefaultTelegram, DefaultDiscord, DefaultVault, DefaultDatabricks,
		DefaultDigitalOcean, DefaultDSN,
		DefaultJWT, DefaultBearer, DefaultPrivateKey, DefaultGitleaks,
	}
}

// Rules returns the IDs of the built-in rules, each with the Default that
// turns it off along with others.
func Rules() map[string]Default {
	out := map[string]Default{}
	for _, r := range builtinRules().rules {
		out[r.ID] = r.group
	}
	return out
}

// known reports whether d is a Default or the ID of a built-in rule.
func known(d Default) bool {
	if slices.Contains(Defaults(), d) {
		return true
	}
	_, ok := Rules()[string(d)]
	return ok
}

// ParseDefaults reads a comma-separated list of Default names ("" is
// none; "all" is every one).
func ParseDefaults(s string) ([]Default, error) {
	var out []Default
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			continue
		case f == "all":
			out = append(out, Defaults()...)
			continue
		case !known(Default(f)):
			return nil, fmt.Errorf("unknown redaction %q (known: all, %s, or a rule's id)", f, defaultNames())
		}
		out = append(out, Default(f))
	}
	return out, nil
}

func defaultNames() string {
	var names []string
	for _, d := range Defaults() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}

// Redact says what to remove before anything reaches a recording. The zero
// value makes every redaction in Defaults: credential headers are dropped;
// credentials named as such (query parameters, JSON members, JSON Patch
// values, form fields, name=value in text; names matched by their shape)
// and credentials of a known shape (gitleaks' ruleset and the recorder's
// own rules: API keys of OpenAI, Anthropic, Google, AWS, GitHub, Slack,
// LangSmith, Pinecone, ..., JWTs, bearer tokens, private keys) are
// replaced by "[REDACTED]" wherever they appear. Off turns defaults (or a
// single rule, by its ID) off, Keep spares names, and Headers, Pointers,
// Patterns and Rules add rules.
//
// Rules apply to the recording only: the client, the agent and the
// provider always see the original bytes.
//
// A stream's text sent in pieces is searched joined: the deltas of one
// message, of one reasoning message, one call's arguments (Middleware,
// Proxy, Sink), and the text deltas of one provider stream (Transport).
// An event of such a text is held back from the recording until 320 bytes
// of its text follow it or its message or call ends, so that a key cut
// anywhere is found; the first event it touches gets "[REDACTED]" in its
// place, the others lose their part.
//
// What redaction cannot see: a credential of no known shape under a name
// that says nothing (it needs a Pointer, a Pattern or a Rule), a key whose
// pieces are more than 320 bytes apart (a private key block is held whole
// while it is open), one written with JSON \u escapes in a provider's
// response chunks outside its text deltas, and protobuf frames (kept only
// when their event needs no redaction).
type Redact struct {
	// Off turns off the defaults named (see Defaults), or single rules
	// by their ID (see Rules).
	Off []Default
	// Keep names headers, query parameters and fields (any case) that are
	// not redacted for their name; their values are still searched for
	// credentials of a known shape.
	Keep []string
	// Headers names further headers never to record (any case).
	Headers []string
	// Pointers are JSON pointers (RFC 6901) to values replaced by
	// "[REDACTED]" in request bodies, provider request bodies and events,
	// wherever they resolve. A segment "*" matches every element of an
	// array or member of an object: "/messages/*/content".
	Pointers []string
	// Patterns are replaced by "[REDACTED]" inside every string value (not
	// keys) of request bodies, provider request bodies and events, and in
	// every text a recording holds (URLs, header values, request bodies
	// that are not JSON, provider response chunks, recorded data that is
	// not an event, error messages).
	Patterns []*regexp.Regexp
	// Rules are further credential formats (see Rule and ParseRules, which
	// reads them from a gitleaks configuration), applied wherever the
	// built-in rules are: every text a recording holds, JSON strings, and
	// text a stream sends in pieces, joined.
	Rules []Rule
}

// Validate reports Off names that are not Defaults and Pointers that are
// not JSON pointers.
func (rd *Redact) Validate() error {
	for _, d := range rd.Off {
		if !known(d) {
			return fmt.Errorf("recorder: Redact.Off: unknown redaction %q (known: %s, or a rule's id)", d, defaultNames())
		}
	}
	for _, p := range rd.Pointers {
		if _, err := splitPointer(p); err != nil {
			return err
		}
	}
	return nil
}

// on reports whether the default d applies.
func (rd *Redact) on(d Default) bool {
	return len(rd.Off) == 0 || !slices.Contains(rd.Off, d)
}

// ruleOn reports whether a built-in rule applies: neither its group nor
// its ID is off.
func (rd *Redact) ruleOn(r *Rule) bool {
	return rd.on(r.group) && rd.on(Default(r.ID))
}

func allOn(*Rule) bool { return true }

// ruleSpans adds the secrets the rules find in b.
func (rd *Redact) ruleSpans(b []byte, spans []span) []span {
	on := allOn
	if len(rd.Off) > 0 {
		on = rd.ruleOn
	}
	spans = builtinRules().spans(b, on, spans)
	for i := range rd.Rules {
		r := &rd.Rules[i]
		if r.Regex != nil && (len(r.Keywords) == 0 || holdsKeyword(b, r.Keywords)) {
			spans = applyRule(r, b, nil, spans)
		}
	}
	return spans
}

// holdsKeyword reports whether b holds one of the lower-case words, in
// any case.
func holdsKeyword(b []byte, words []string) bool {
	for _, w := range words {
		if indexFold(b, w) >= 0 {
			return true
		}
	}
	return false
}

// user reports whether rules of the user's (pointers, patterns) are set:
// they are applied to parsed JSON, so no quick scan can rule them out.
func (rd *Redact) user() bool { return len(rd.Pointers) > 0 || len(rd.Patterns) > 0 }

// kept reports whether name is in Keep.
func (rd *Redact) kept(name string) bool { return containsFold(rd.Keep, name) }

func containsFold(list []string, k string) bool {
	for _, x := range list {
		if strings.EqualFold(x, k) {
			return true
		}
	}
	return false
}

// deniedHeaders are credential headers by their exact (canonical) names.
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

// credentialHeader reports whether a header's name says it carries a
// credential.
func (rd *Redact) credentialHeader(name string) bool {
	if rd.kept(name) {
		return false
	}
	ck := http.CanonicalHeaderKey(name)
	return deniedHeaders[ck] || deniedPattern.MatchString(ck) || credentialName(name, ctxHeader)
}

// header returns the headers of h to record: those named in allow (all when
// allow is empty) minus the credential headers and those in Headers, each
// value searched for credentials of known shapes.
func (rd *Redact) header(h http.Header, allow []string) http.Header {
	out := http.Header{}
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		if rd.on(DefaultHeaders) && rd.credentialHeader(ck) {
			continue
		}
		if containsFold(rd.Headers, ck) || (len(allow) > 0 && !containsFold(allow, ck)) {
			continue
		}
		vs := make([]string, len(v))
		for i, s := range v {
			vs[i] = rd.String(s)
		}
		out[ck] = vs
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// String returns s with the text rules applied (see Text).
func (rd *Redact) String(s string) string {
	b := rd.Text([]byte(s))
	if len(b) == len(s) && string(b) == s {
		return s
	}
	return string(b)
}

// Text returns b with every credential the rules find in text replaced by
// "[REDACTED]": credentials of known shapes, name=value and name: value
// pairs (and JSON members) named like credentials, URL userinfo, and the
// Patterns. It returns b itself when nothing is found. JSON escapes in b
// (\n, \") separate words, as in a JSON document or an SSE stream.
func (rd *Redact) Text(b []byte) []byte {
	var spans []span
	if looksLikeForm(b) && rd.on(DefaultFields) {
		spans = rd.formSpans(b, 0, len(b), spans)
	}
	spans = rd.textSpans(b, true, spans)
	spans = rd.patternSpans(b, spans)
	if len(spans) == 0 {
		return b
	}
	return splice(nil, b, spans)
}

// URL returns the URL (or request URI) s with its userinfo, the values of
// its credential query parameters and any credential of a known shape
// redacted.
func (rd *Redact) URL(s string) string {
	b := []byte(s)
	var spans []span
	if rd.on(DefaultUserinfo) {
		spans = userinfoSpans(b, spans)
	}
	if q := strings.IndexByte(s, '?'); q >= 0 && rd.on(DefaultQuery) {
		end := len(s)
		if h := strings.IndexByte(s[q:], '#'); h >= 0 {
			end = q + h
		}
		spans = rd.formSpans(b, q+1, end, spans)
	}
	spans = rd.textSpans(b, true, spans)
	spans = rd.patternSpans(b, spans)
	if len(spans) == 0 {
		return s
	}
	return string(splice(nil, b, spans))
}

// looksLikeForm reports whether b is URL-encoded name=value pairs (a
// form body), whose values are decoded before they are searched.
func looksLikeForm(b []byte) bool {
	if len(b) == 0 || bytes.IndexByte(b, '=') < 0 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`"'{}<>\`), c) >= 0 {
			return false
		}
	}
	return true
}

// formSpans adds, for the URL-encoded pairs in b[start:end], the values of
// credential names, and whole values holding a credential once decoded.
func (rd *Redact) formSpans(b []byte, start, end int, spans []span) []span {
	for start <= end {
		pe := end
		if amp := bytes.IndexByte(b[start:end], '&'); amp >= 0 {
			pe = start + amp
		}
		pair := b[start:pe]
		if eq := bytes.IndexByte(pair, '='); eq >= 0 && eq < len(pair)-1 {
			name, err := queryUnescape(string(pair[:eq]))
			vs := start + eq + 1
			switch {
			case err != nil:
			case !rd.kept(name) && credentialName(name, ctxQuery):
				spans = append(spans, span{start: vs, end: pe})
			default:
				if v, err := queryUnescape(string(b[vs:pe])); err == nil && v != string(b[vs:pe]) {
					if found := rd.patternSpans([]byte(v), rd.textSpans([]byte(v), false, nil)); len(found) > 0 {
						spans = append(spans, span{start: vs, end: pe})
					}
				}
			}
		}
		start = pe + 1
	}
	return spans
}

// queryUnescape decodes %XX and + in a query parameter's name.
func queryUnescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
				return "", fmt.Errorf("bad escape")
			}
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// patternSpans adds the matches of the Patterns in b.
func (rd *Redact) patternSpans(b []byte, spans []span) []span {
	for _, re := range rd.Patterns {
		for _, m := range re.FindAllIndex(b, -1) {
			if m[1] > m[0] {
				spans = append(spans, span{start: m[0], end: m[1]})
			}
		}
	}
	return spans
}

// exchange applies the rules to a provider exchange in place.
func (rd *Redact) exchange(ex *Exchange) {
	ex.URL = rd.URL(ex.URL)
	ex.Header = rd.header(ex.Header, nil)
	ex.ResponseHeader = rd.header(ex.ResponseHeader, nil)
	if ex.Body != nil {
		if b, err := rd.JSON(ex.Body); err == nil {
			ex.Body = b
		} else {
			ex.BodyText = string(rd.Text(ex.Body))
			ex.Body = nil
		}
	}
	ex.BodyText = rd.String(ex.BodyText)
	ex.Error = rd.String(ex.Error)
	rd.chunks(ex.Chunks)
}

// chunks redacts a response read in pieces as one text, so that a
// credential cut between two chunks is found: the first chunk it touches
// gets "[REDACTED]" in its place, the others lose their part of it.
func (rd *Redact) chunks(cs []Chunk) {
	if len(cs) == 0 {
		return
	}
	var all []byte
	if len(cs) == 1 {
		all = cs[0].Data
	} else {
		for _, c := range cs {
			all = append(all, c.Data...)
		}
	}
	spans := rd.textSpans(all, true, nil)
	spans = rd.patternSpans(all, spans)
	spans = rd.wireSpans(all, spans)
	if len(spans) == 0 {
		return
	}
	spans = mergeSpans(spans)
	off := 0
	k := 0 // the first span that may touch the current chunk
	for i := range cs {
		lo, hi := off, off+len(cs[i].Data)
		off = hi
		for k < len(spans) && spans[k].end <= lo {
			k++
		}
		if k == len(spans) || spans[k].start >= hi {
			continue
		}
		var out []byte
		pos := lo
		for j := k; j < len(spans) && spans[j].start < hi; j++ {
			s := spans[j]
			if s.start >= pos {
				out = append(out, all[pos:s.start]...)
				if !s.drop {
					out = append(out, Redacted...)
				}
			}
			pos = min(max(pos, s.end), hi)
		}
		out = append(out, all[pos:hi]...)
		cs[i].Data = out
	}
}
