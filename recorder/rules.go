package recorder

import (
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// The credential formats, as data: gitleaks' ruleset (rules/gitleaks.toml,
// MIT, vendored whole with its license; see rules/README.md for its
// version) and the project's own rules (rules/aguitest.toml, the same
// schema), compiled to Go regular expressions. A rule is tried on a text
// only when the text holds one of its keywords (any case): one pass over
// the text with a table of the keywords' first two bytes finds them, so a
// text holding none costs that pass alone.

//go:embed rules/gitleaks.toml
var gitleaksTOML []byte

//go:embed rules/aguitest.toml
var aguitestTOML []byte

// A Rule recognises credentials of one format, as a rule of a gitleaks
// configuration does (see ParseRules): its Regex finds candidates, the
// secret is its SecretGroup (or its first non-empty group, or the whole
// match), and a candidate whose secret's Shannon entropy is not above
// Entropy, or which an allowlist of the rule spares, is not one.
type Rule struct {
	// ID names the rule; Redact.Off turns a rule off by its ID.
	ID string
	// Regex matches a credential, in text that may be JSON-escaped.
	Regex *regexp.Regexp
	// SecretGroup is the group that is the secret; 0 means the first
	// non-empty group, or the whole match when there is no group.
	SecretGroup int
	// Entropy, when not 0, is the Shannon entropy (bits per byte) the
	// secret must exceed.
	Entropy float64
	// Keywords (lower case): the rule is tried only on a text that holds
	// one of them, in any case; none means on every text.
	Keywords []string

	group Default // the Default that turns the rule off with others
	mixed bool    // the secret holds a digit and letters of both cases
	// boundary: the regex starts with \b, so a keyword inside a word
	// cannot start a match; maxLen bounds a match's length (-1: none).
	boundary bool
	maxLen   int
	near     int  // when > 0, a keyword must be within near bytes of the match
	glued    bool // not more than maxGlue bytes of a longer token around the secret
	allow    []ruleAllow
}

// ruleAllow is an allowlist of a rule: candidates it spares.
type ruleAllow struct {
	target    string // "" (the secret), "match" or "line"
	regexes   []*regexp.Regexp
	stopwords []string // lower case, within the secret
	and       bool     // every check given must hold
}

// spares reports whether the allowlist spares a candidate.
func (a *ruleAllow) spares(secret, match, line string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	re := false
	for _, x := range a.regexes {
		if x.MatchString(target) {
			re = true
			break
		}
	}
	sw := false
	if len(a.stopwords) > 0 {
		ls := strings.ToLower(secret)
		for _, w := range a.stopwords {
			if strings.Contains(ls, w) {
				sw = true
				break
			}
		}
	}
	if a.and {
		return (len(a.regexes) == 0 || re) && (len(a.stopwords) == 0 || sw) && (len(a.regexes) > 0 || len(a.stopwords) > 0)
	}
	return re || sw
}

// ruleSet is a compiled set of rules with its keyword index: keywords
// of four bytes or more by a hash of their first four (lower-case), the
// shorter ones by their first two, each in a bit set small enough to stay
// in the processor's nearest cache, so that a text is passed over with
// two bit tests a byte.
type ruleSet struct {
	rules  []*Rule
	global []ruleAllow // allowlists of every rule
	quad   [1 << 16 / 64]uint64
	quadW  [1 << 16 / 64]uint64 // quads whose every rule wants a word to start with them
	quads  map[uint32][]keyword // by the first four bytes
	tri    [1 << 16 / 64]uint64
	tris   map[uint32][]keyword // keywords of three bytes
	pair   [1 << 16 / 64]uint64
	pairs  map[uint16][]keyword // keywords of two bytes
	always []int                // rules without keywords
}

type keyword struct {
	word  string
	rules []int
}

var lowerByte = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func quadHash(v uint32) uint16 { return uint16((v * 0x9E3779B1) >> 16) }

func triHash(v uint32) uint16 { return uint16(((v & 0xffffff) * 0x9E3779B1) >> 16) }

func newRuleSet(rules []*Rule, global []ruleAllow) *ruleSet {
	rs := &ruleSet{rules: rules, global: global, quads: map[uint32][]keyword{}, tris: map[uint32][]keyword{}, pairs: map[uint16][]keyword{}}
	addTo := func(list []keyword, w string, i int) []keyword {
		j := slices.IndexFunc(list, func(kw keyword) bool { return kw.word == w })
		if j < 0 {
			list = append(list, keyword{word: w})
			j = len(list) - 1
		}
		if !slices.Contains(list[j].rules, i) {
			list[j].rules = append(list[j].rules, i)
		}
		return list
	}
	for i, r := range rules {
		if len(r.Keywords) == 0 {
			rs.always = append(rs.always, i)
			continue
		}
		for _, w := range r.Keywords {
			w = strings.ToLower(w)
			switch {
			case len(w) < 2:
				rs.always = append(rs.always, i)
			case len(w) == 2:
				k := uint16(w[0])<<8 | uint16(w[1])
				rs.pair[k/64] |= 1 << (k % 64)
				rs.pairs[k] = addTo(rs.pairs[k], w, i)
			case len(w) == 3:
				v := uint32(w[0])<<16 | uint32(w[1])<<8 | uint32(w[2])
				h := triHash(v)
				rs.tri[h/64] |= 1 << (h % 64)
				rs.tris[v] = addTo(rs.tris[v], w, i)
			default:
				v := uint32(w[0])<<24 | uint32(w[1])<<16 | uint32(w[2])<<8 | uint32(w[3])
				h := quadHash(v)
				rs.quad[h/64] |= 1 << (h % 64)
				rs.quads[v] = addTo(rs.quads[v], w, i)
			}
		}
	}
	for v, kws := range rs.quads {
		all := true
		for _, kw := range kws {
			for _, r := range kw.rules {
				all = all && rules[r].boundary
			}
		}
		if h := quadHash(v); all {
			rs.quadW[h/64] |= 1 << (h % 64)
		}
	}
	for v := range rs.quads {
		// A hash shared with a quad of rules without \b is not skipped.
		if h := quadHash(v); rs.quadW[h/64]&(1<<(h%64)) != 0 {
			for _, kw := range rs.quads[v] {
				for _, r := range kw.rules {
					if !rules[r].boundary {
						rs.quadW[h/64] &^= 1 << (h % 64)
					}
				}
			}
		}
	}
	return rs
}

// ruleHit is a rule whose keyword a text holds, with the windows of the
// text around its keywords that a match may lie in.
type ruleHit struct {
	rule    int
	windows []span
}

// hits returns the rules whose keywords b holds, each with the windows
// to search; nil when there are none (the common case, which allocates
// nothing).
func (rs *ruleSet) hits(b []byte, out []ruleHit) []ruleHit {
	n := len(b)
	add := func(r, s, e int) {
		for k := range out {
			if out[k].rule == r {
				w := &out[k].windows[len(out[k].windows)-1]
				if s <= w.end {
					w.start, w.end = min(w.start, s), max(w.end, e)
				} else {
					out[k].windows = append(out[k].windows, span{start: s, end: e})
				}
				return
			}
		}
		out = append(out, ruleHit{rule: r, windows: []span{{start: s, end: e}}})
	}
	for _, r := range rs.always {
		add(r, 0, n)
	}
	found := func(i int, kws []keyword) {
		for _, kw := range kws {
			if len(kw.word) > n-i || !hasPrefixFold(b[i:], kw.word) {
				continue
			}
			for _, r := range kw.rules {
				rule := rs.rules[r]
				if rule.boundary && i > 0 && isWordByte(b[i-1]) {
					continue // the rule wants a word to start with it
				}
				back, ahead := rule.maxLen, rule.maxLen
				if rule.maxLen < 0 {
					back, ahead = 256, 16<<10
				}
				add(r, max(0, i-back), min(n, i+len(kw.word)+ahead))
			}
		}
	}
	pair, tri, quad := &rs.pair, &rs.tri, &rs.quad
	var v uint32
	for i, c := range b {
		v = v<<8 | uint32(lowerByte[c])
		k := uint16(v)
		t := triHash(v)
		q := quadHash(v)
		if (pair[k>>6]>>(k&63)|tri[t>>6]>>(t&63)|quad[q>>6]>>(q&63))&1 == 0 {
			continue // the common case
		}
		if pair[k>>6]&(1<<(k&63)) != 0 && i >= 1 {
			found(i-1, rs.pairs[k])
		}
		if tri[t>>6]&(1<<(t&63)) != 0 && i >= 2 {
			if kws, ok := rs.tris[v&0xffffff]; ok {
				found(i-2, kws)
			}
		}
		if quad[q>>6]&(1<<(q&63)) != 0 && i >= 3 {
			if rs.quadW[q>>6]&(1<<(q&63)) != 0 && i >= 4 && isWordByte(b[i-4]) {
				continue // inside a word, where none of its rules starts
			}
			if kws, ok := rs.quads[v]; ok {
				found(i-3, kws)
			}
		}
	}
	return out
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// spans adds the secrets the rules on (by on) find in b.
func (rs *ruleSet) spans(b []byte, on func(*Rule) bool, spans []span) []span {
	var buf [4]ruleHit
	hits := rs.hits(b, buf[:0])
	for _, h := range hits {
		r := rs.rules[h.rule]
		if !on(r) {
			continue
		}
		for _, w := range h.windows {
			n := len(spans)
			spans = applyRule(r, b[w.start:w.end], rs.global, spans)
			for k := n; k < len(spans); k++ {
				spans[k].start += w.start
				spans[k].end += w.start
			}
		}
	}
	return spans
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// applyRule adds the secrets r finds in b, but those the global
// allowlists or the rule's spare.
func applyRule(r *Rule, b []byte, global []ruleAllow, spans []span) []span {
	for _, m := range r.Regex.FindAllSubmatchIndex(b, -1) {
		s, e := m[0], m[1]
		if len(m) > 2 {
			if g := r.SecretGroup; g > 0 && 2*g+1 < len(m) {
				s, e = m[2*g], m[2*g+1]
			} else {
				for k := 2; k+1 < len(m); k += 2 {
					if m[k] >= 0 && m[k+1] > m[k] {
						s, e = m[k], m[k+1]
						break
					}
				}
			}
		}
		if s < 0 || e <= s {
			continue
		}
		secret := b[s:e]
		if r.Entropy != 0 && entropy(secret) <= r.Entropy {
			continue
		}
		if r.mixed && !mixedCase(secret) {
			continue
		}
		if placeholder(secret) {
			continue
		}
		if r.glued && inLongToken(b, s, e) {
			continue
		}
		if r.near > 0 && !holdsKeyword(b[max(0, m[0]-r.near):min(len(b), m[1]+r.near)], r.Keywords) {
			continue
		}
		if len(r.allow) > 0 || len(global) > 0 {
			ss, ms, ls := string(secret), string(b[m[0]:m[1]]), lineOf(b, m[0], m[1])
			spared := false
			for _, lists := range [][]ruleAllow{global, r.allow} {
				for k := range lists {
					if lists[k].spares(ss, ms, ls) {
						spared = true
					}
				}
			}
			if spared {
				continue
			}
		}
		spans = append(spans, span{start: s, end: e})
	}
	return spans
}

// lineOf returns the line (or the JSON-escaped line) holding b[s:e].
func lineOf(b []byte, s, e int) string {
	for s > 0 && b[s-1] != '\n' && !(s > 1 && b[s-2] == '\\' && b[s-1] == 'n') {
		s--
	}
	for e < len(b) && b[e] != '\n' && !(b[e] == '\\' && e+1 < len(b) && b[e+1] == 'n') {
		e++
	}
	return string(b[s:e])
}

// entropy is the Shannon entropy of b in bits per byte.
func entropy(b []byte) float64 {
	var count [256]int
	for _, c := range b {
		count[c]++
	}
	h := 0.0
	n := float64(len(b))
	for _, c := range count {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// maxGlue is how much of a longer token may stand around a key glued to
// other text ("apikey:hf_…", "tokenxai-…"): more is encoded data (base64,
// base64url) in which the key's shape came up by chance.
const maxGlue = 32

// inLongToken reports whether b[s:e] sits inside a run of base64 and
// base64url characters reaching more than maxGlue bytes past it.
func inLongToken(b []byte, s, e int) bool {
	tok := func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' }
	n := 0
	for i := s - 1; i >= 0 && tok(b[i]); i-- {
		if n++; n > maxGlue {
			return true
		}
	}
	n = 0
	for i := e; i < len(b) && tok(b[i]); i++ {
		if n++; n > maxGlue {
			return true
		}
	}
	return false
}

// mixedCase reports whether b holds a digit and letters of both cases.
func mixedCase(b []byte) bool {
	lower, upper, digit := classes(b)
	return lower && upper && digit
}

func hasLetterAndDigit(b []byte) bool {
	lower, upper, digit := classes(b)
	return (lower || upper) && digit
}

// classes reports which of lower-case letters, capitals and digits b
// holds.
func classes(b []byte) (lower, upper, digit bool) {
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			digit = true
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		}
	}
	return lower, upper, digit
}

// builtinRules is the compiled ruleset of the defaults: gitleaks' rules,
// less those the project's file disables, and the project's own rules
// (which replace gitleaks' rules of the same ID).
var builtinRules = sync.OnceValue(func() *ruleSet {
	gl, err := loadRules("rules/gitleaks.toml", gitleaksTOML, "gitleaks")
	if err != nil {
		panic(err)
	}
	own, err := loadRules("rules/aguitest.toml", aguitestTOML, "")
	if err != nil {
		panic(err)
	}
	mine := map[string]bool{}
	for _, r := range own.rules {
		mine[r.ID] = true
	}
	var rules []*Rule
	for _, r := range gl.rules {
		if !mine[r.ID] && !slices.Contains(own.disabled, r.ID) {
			if g, ok := gitleaksGroups[r.ID]; ok {
				r.group = g
			}
			rules = append(rules, r)
		}
	}
	rules = append(rules, own.rules...)
	return newRuleSet(rules, append(gl.global, own.global...))
})

// gitleaksGroups files gitleaks' rules for providers that have a Default
// of their own under it, so that turning the Default off turns them off.
var gitleaksGroups = map[string]Default{
	"openai-api-key":                     DefaultOpenAI,
	"anthropic-api-key":                  DefaultAnthropic,
	"anthropic-admin-api-key":            DefaultAnthropic,
	"gcp-api-key":                        DefaultGoogle,
	"aws-access-token":                   DefaultAWS,
	"github-pat":                         DefaultGitHub,
	"github-oauth":                       DefaultGitHub,
	"github-app-token":                   DefaultGitHub,
	"github-refresh-token":               DefaultGitHub,
	"github-fine-grained-pat":            DefaultGitHub,
	"gitlab-pat":                         DefaultGitLab,
	"slack-bot-token":                    DefaultSlack,
	"slack-user-token":                   DefaultSlack,
	"slack-app-token":                    DefaultSlack,
	"slack-webhook-url":                  DefaultSlack,
	"stripe-access-token":                DefaultStripe,
	"huggingface-access-token":           DefaultHuggingFace,
	"npm-access-token":                   DefaultNPM,
	"private-key":                        DefaultPrivateKey,
	"perplexity-api-key":                 DefaultPerplexity,
	"pypi-upload-token":                  DefaultPyPI,
	"sendgrid-api-token":                 DefaultSendGrid,
	"shopify-access-token":               DefaultShopify,
	"twilio-api-key":                     DefaultTwilio,
	"telegram-bot-api-token":             DefaultTelegram,
	"discord-api-token":                  DefaultDiscord,
	"vault-service-token":                DefaultVault,
	"vault-batch-token":                  DefaultVault,
	"databricks-api-token":               DefaultDatabricks,
	"digitalocean-access-token":          DefaultDigitalOcean,
	"digitalocean-pat":                   DefaultDigitalOcean,
	"digitalocean-refresh-token":         DefaultDigitalOcean,
	"jwt-base64":                         DefaultJWT,
	"huggingface-organization-api-token": DefaultHuggingFace,
}

// loaded is a rule file read: its rules, the global allowlist, and the
// IDs of rules it disables.
type loaded struct {
	rules    []*Rule
	global   []ruleAllow
	disabled []string
}

// ParseRules reads rules written as a gitleaks configuration (TOML):
// [[rules]] tables with id, regex, secretGroup, entropy, keywords and
// [[rules.allowlists]] (regexes, regexTarget, stopwords, condition), and
// a global [allowlist]. Path-only rules and allowlists of paths or
// commits do not apply to a recording and are left out. name is used in
// errors.
func ParseRules(name string, toml []byte) ([]Rule, error) {
	l, err := loadRules(name, toml, "")
	if err != nil {
		return nil, err
	}
	out := make([]Rule, len(l.rules))
	for i, r := range l.rules {
		out[i] = *r
		if len(l.global) > 0 {
			out[i].allow = append(append([]ruleAllow(nil), r.allow...), l.global...)
		}
	}
	return out, nil
}

func loadRules(name string, src []byte, group Default) (*loaded, error) {
	doc, err := parseTOML(name, src)
	if err != nil {
		return nil, err
	}
	out := &loaded{}
	if g, ok := doc["allowlist"].(tomlTable); ok {
		a, use, err := readAllow(name+": [allowlist]", g)
		if err != nil {
			return nil, err
		}
		if use {
			out.global = append(out.global, a)
		}
	}
	if gs, ok := doc["allowlists"].([]tomlTable); ok {
		for _, g := range gs {
			a, use, err := readAllow(name+": [[allowlists]]", g)
			if err != nil {
				return nil, err
			}
			if use {
				out.global = append(out.global, a)
			}
		}
	}
	if d, ok := doc["disable"]; ok {
		ids, err := stringsOf(name+": disable", d)
		if err != nil {
			return nil, err
		}
		out.disabled = ids
	}
	rules, _ := doc["rules"].([]tomlTable)
	if _, ok := doc["rules"]; ok && rules == nil {
		return nil, fmt.Errorf("%s: rules is not an array of tables", name)
	}
	seen := map[string]bool{}
	for n, t := range rules {
		where := fmt.Sprintf("%s: rule %d", name, n+1)
		r := &Rule{group: group}
		id, _ := t["id"].(string)
		if id == "" {
			return nil, fmt.Errorf("%s: no id", where)
		}
		if seen[id] {
			return nil, fmt.Errorf("%s: id %q used twice", where, id)
		}
		seen[id] = true
		r.ID = id
		where = fmt.Sprintf("%s: rule %q", name, id)
		src, ok := t["regex"].(string)
		if !ok {
			if _, has := t["regex"]; has {
				return nil, fmt.Errorf("%s: regex is not a string", where)
			}
			continue // a rule on paths alone
		}
		if r.Regex, err = regexp.Compile(src); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if re, err := syntax.Parse(src, syntax.Perl); err == nil {
			re = re.Simplify()
			r.boundary = startsWithBoundary(re)
			r.maxLen = maxWidth(re)
		}
		switch v := t["secretGroup"].(type) {
		case nil:
		case int64:
			if v < 0 || int(v) > r.Regex.NumSubexp() {
				return nil, fmt.Errorf("%s: secretGroup %d, but the regex has %d groups", where, v, r.Regex.NumSubexp())
			}
			r.SecretGroup = int(v)
		default:
			return nil, fmt.Errorf("%s: secretGroup is not an integer", where)
		}
		switch v := t["entropy"].(type) {
		case nil:
		case int64:
			r.Entropy = float64(v)
		case float64:
			r.Entropy = v
		default:
			return nil, fmt.Errorf("%s: entropy is not a number", where)
		}
		if v, ok := t["keywords"]; ok {
			kws, err := stringsOf(where+": keywords", v)
			if err != nil {
				return nil, err
			}
			for _, k := range kws {
				r.Keywords = append(r.Keywords, strings.ToLower(k))
			}
		}
		if v, ok := t["group"]; ok {
			g, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s: group is not a string", where)
			}
			r.group = Default(g)
		}
		if v, ok := t["mixed"]; ok {
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("%s: mixed is not a boolean", where)
			}
			r.mixed = b
		}
		if v, ok := t["glued"]; ok {
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("%s: glued is not a boolean", where)
			}
			r.glued = b
		}
		if v, ok := t["near"]; ok {
			n, ok := v.(int64)
			if !ok || n < 0 {
				return nil, fmt.Errorf("%s: near is not a count of bytes", where)
			}
			r.near = int(n)
		}
		if v, ok := t["allowlists"]; ok {
			lists, ok := v.([]tomlTable)
			if !ok {
				return nil, fmt.Errorf("%s: allowlists is not an array of tables", where)
			}
			for _, g := range lists {
				a, use, err := readAllow(where+": allowlist", g)
				if err != nil {
					return nil, err
				}
				if use {
					r.allow = append(r.allow, a)
				}
			}
		}
		out.rules = append(out.rules, r)
	}
	return out, nil
}

// startsWithBoundary reports whether every match of re starts at \b.
func startsWithBoundary(re *syntax.Regexp) bool {
	for {
		switch re.Op {
		case syntax.OpWordBoundary:
			return true
		case syntax.OpCapture:
			re = re.Sub[0]
		case syntax.OpConcat:
			if len(re.Sub) == 0 {
				return false
			}
			re = re.Sub[0]
		default:
			return false
		}
	}
}

// maxWidth returns the most bytes a match of re spans, or -1 when it is
// unbounded.
func maxWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] < utf8.RuneSelf {
			return 1
		}
		return utf8.UTFMax
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		w := maxWidth(re.Sub[0])
		if re.Max < 0 || w < 0 {
			return -1
		}
		return re.Max * w
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			w := maxWidth(sub)
			if w < 0 {
				return -1
			}
			n += w
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			w := maxWidth(sub)
			if w < 0 {
				return -1
			}
			n = max(n, w)
		}
		return n
	}
	return 0 // empty-width assertions
}

// readAllow reads an allowlist; use is false when it has no check that
// applies to a recording (paths and commits alone, or an AND with them).
func readAllow(where string, t tomlTable) (ruleAllow, bool, error) {
	var a ruleAllow
	if v, ok := t["regexTarget"]; ok {
		s, _ := v.(string)
		switch s {
		case "secret":
		case "match", "line":
			a.target = s
		default:
			return a, false, fmt.Errorf("%s: regexTarget %v is not secret, match or line", where, v)
		}
	}
	if v, ok := t["condition"]; ok {
		s, _ := v.(string)
		switch strings.ToUpper(s) {
		case "OR":
		case "AND":
			a.and = true
		default:
			return a, false, fmt.Errorf("%s: condition %v is not AND or OR", where, v)
		}
	}
	if v, ok := t["regexes"]; ok {
		res, err := stringsOf(where+": regexes", v)
		if err != nil {
			return a, false, err
		}
		for _, s := range res {
			re, err := regexp.Compile(s)
			if err != nil {
				return a, false, fmt.Errorf("%s: %v", where, err)
			}
			a.regexes = append(a.regexes, re)
		}
	}
	if v, ok := t["stopwords"]; ok {
		sw, err := stringsOf(where+": stopwords", v)
		if err != nil {
			return a, false, err
		}
		for _, s := range sw {
			a.stopwords = append(a.stopwords, strings.ToLower(s))
		}
	}
	_, paths := t["paths"]
	_, commits := t["commits"]
	if a.and && (paths || commits) {
		return a, false, nil // never true of a recording
	}
	return a, len(a.regexes) > 0 || len(a.stopwords) > 0, nil
}

func stringsOf(where string, v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: not an array", where)
	}
	out := make([]string, len(arr))
	for i, x := range arr {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%s: element %d is not a string", where, i+1)
		}
		out[i] = s
	}
	return out, nil
}

// hasPrefixFold reports whether b starts with the lower-case w, in any
// case; its first two bytes are known to match.
func hasPrefixFold(b []byte, w string) bool {
	for j := 2; j < len(w); j++ {
		if lowerByte[b[j]] != w[j] {
			return false
		}
	}
	return true
}
