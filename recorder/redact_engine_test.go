package recorder

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Fake credentials are built at run time so that no literal key sits in
// the sources (secret scanners would flag them).
func fakeKey(prefix, body string, n int) string {
	return prefix + strings.Repeat(body, n/len(body)+1)[:n]
}

func TestRedactText(t *testing.T) {
	openai := fakeKey("sk-proj-", "Ab3xY9", 48)
	jwt := fakeKey("eyJ", "hbGciOiJIUzI1", 20) + "." + fakeKey("eyJ", "zdWIiOiIxMjM0", 30) + "." + fakeKey("", "SflKxw_RJSM", 43)
	tests := []struct {
		name, in, want string
	}{
		{"prose is kept", "The task-board has three tasks; ask for the key.", "The task-board has three tasks; ask for the key."},
		{"openai in prose", "use " + openai + " now", "use [REDACTED] now"},
		{"openai after a JSON escape", `line\n` + openai, `line\n[REDACTED]`},
		{"a slug is not a key", "sk-create-the-new-release-branch-now", "sk-create-the-new-release-branch-now"},
		{"a slug is not a key", "task-2024-planning-document-v3 and desk-lamp-model-2000-series-b", "task-2024-planning-document-v3 and desk-lamp-model-2000-series-b"},
		{"a key glued to a word", "task-" + strings.Repeat("Ab3", 10), "ta[REDACTED]"},
		{"anthropic", "k=" + fakeKey("sk-ant-api03-", "Qw9_zX-", 90), "k=[REDACTED]"},
		{"aws id", "id AKIA" + "IOSFODNN7EXAMPLE ok", "id [REDACTED] ok"},
		{"aws id too long", "AKIA" + "IOSFODNN7EXAMPLEXX", "AKIA" + "IOSFODNN7EXAMPLEXX"},
		{"jwt", "token " + jwt + ".", "token [REDACTED]."},
		{"bearer", "Authorization: Bearer abc123def456ghi", "Authorization: Bearer [REDACTED]"},
		{"bearer in prose", "a Bearer Authority", "a Bearer Authority"},
		{"basic", "basic dXNlcjpwYXNzd29yZA==", "basic [REDACTED]"},
		{"json member", `{"api_key":"hunter2","n":1}`, `{"api_key":"[REDACTED]","n":1}`},
		{"json member in escaped json", `"args":"{\"password\":\"hunter2\"}"`, `"args":"{\"password\":\"[REDACTED]\"}"`},
		{"max_tokens is not a token", `{"max_tokens":100,"promptTokenCount":3}`, `{"max_tokens":100,"promptTokenCount":3}`},
		{"numeric token", `{"token": 123456}`, `{"token": [REDACTED]}`},
		{"null token", `{"token": null}`, `{"token": null}`},
		{"form", "user=ann&password=hunter2&api_key=k-1&x=1", "user=ann&password=[REDACTED]&api_key=[REDACTED]&x=1"},
		{"ini", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", "aws_secret_access_key = [REDACTED]"},
		{"comparison", "if token == other {", "if token == other {"},
		{"userinfo", "postgres://app:s3cret@db:5432/x", "postgres://[REDACTED]@db:5432/x"},
		{"no userinfo", "https://example.com/a@b", "https://example.com/a@b"},
		{"slack webhook", "post to https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", "post to [REDACTED]"},
		{"pem", "k: -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- after", "k: [REDACTED] after"},
		{"public key kept", `{"public_key":"ssh-ed25519 AAAA"}`, `{"public_key":"ssh-ed25519 AAAA"}`},
		{"idempotency key kept", "Idempotency-Key: 42", "Idempotency-Key: 42"},
		{"github", "ghp_" + strings.Repeat("a1B2", 9), "[REDACTED]"},
		{"google", "AIza" + strings.Repeat("Sy-9_", 7), "[REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rd Redact
			if got := string(rd.Text([]byte(tt.in))); got != tt.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactOff(t *testing.T) {
	openai := fakeKey("sk-", "Ab3xY9", 48)
	in := `{"password":"hunter2","text":"` + openai + `"}`
	for _, tt := range []struct {
		off  []Default
		want string
	}{
		{nil, `{"password":"[REDACTED]","text":"[REDACTED]"}`},
		{[]Default{DefaultFields}, `{"password":"hunter2","text":"[REDACTED]"}`},
		{[]Default{DefaultOpenAI}, `{"password":"[REDACTED]","text":"` + openai + `"}`},
		{Defaults(), in},
	} {
		rd := Redact{Off: tt.off}
		got, err := rd.JSON([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("Off %v: got %s, want %s", tt.off, got, tt.want)
		}
	}
	if got, _ := (&Redact{Keep: []string{"password"}}).JSON([]byte(`{"password":"p"}`)); string(got) != `{"password":"p"}` {
		t.Errorf("Keep: got %s", got)
	}
	if err := (&Redact{Off: []Default{"nope"}}).Validate(); err == nil {
		t.Error("an unknown default was accepted")
	}
	if _, err := ParseDefaults("jwt, bearer"); err != nil {
		t.Error(err)
	}
	if ds, _ := ParseDefaults("all"); !slices.Equal(ds, Defaults()) {
		t.Errorf("all = %v", ds)
	}
	if _, err := ParseDefaults("jwt,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("err = %v", err)
	}
}

func TestRedactJSONKeepsBytes(t *testing.T) {
	in := `{ "a" : 1.50, "b":"x\u00e9", "apiKey" : "k", "nested": {"Password": 7, "list": ["` + fakeKey("sk-", "Ab3xY9", 30) + `"]}, "obj": {"token": {"id": 1}} }`
	want := `{ "a" : 1.50, "b":"x\u00e9", "apiKey" : "[REDACTED]", "nested": {"Password": "[REDACTED]", "list": ["[REDACTED]"]}, "obj": {"token": {"id": 1}} }`
	got, err := (&Redact{}).JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A key hidden by escapes is found.
	esc := `{"t":"\u0073k-` + fakeKey("", "Ab3xY9", 30) + `"}`
	if got, _ := (&Redact{}).JSON([]byte(esc)); string(got) != `{"t":"[REDACTED]"}` {
		t.Errorf("escaped key: got %s", got)
	}
}

func TestCredentialName(t *testing.T) {
	// The shapes the names take (case, separators, plurals, prefixes and
	// suffixes), and the guard: names that hold such a word but carry no
	// credential.
	yes := []string{"password", "Password", "PASSWORD", "passwd", "db_password", "MYSQL_ROOT_PASSWORD", "userPasswords",
		"password_confirmation", "newPassword", "passcode", "pass_code", "passphrase", "pwd",
		"secret", "secrets", "client_secret", "clientSecret", "client_secrets", "secretKey", "secret_value",
		"creds", "cred", "my_creds", "awsCreds", "credentials", "dsn", "DATABASE_DSN", "sentry_dsn",
		"api_key", "apiKey", "APIKey", "apiKeys", "api_keys", "api_key_value", "x-api-key", "X-Functions-Key",
		"Ocp-Apim-Subscription-Key", "X-Openai-Key", "X-Access-Key", "key", "keys", "private_key", "SecretAccessKey",
		"aws_secret_access_key", "signing_key", "encryptionKey",
		"token", "Token", "access_token", "accessToken", "refresh_token", "refreshTokens", "access_tokens", "idToken",
		"csrftoken", "x-amz-security-token", "bot_token", "tokenValue", "github_token",
		"session", "sessionId", "session_id", "SessionID", "sessionKey", "session_token", "sessionCookie",
		"oauth", "auth", "authorization", "cookie", "jwt", "bearer"}
	no := []string{"type", "messageId", "delta", "author", "authority", "passenger", "compass", "bypass",
		"max_tokens", "tokens", "tokenCount", "promptTokenCount", "candidatesTokenCount", "input_tokens",
		"completion_tokens", "total_tokens", "cached_tokens", "reasoning_tokens", "tokenLimit", "token_type",
		"tokenizer", "token_count", "maxOutputTokens", "thinkingBudgetTokens", "token_id",
		"keyboard", "monkey", "keyword", "keywords", "key_points", "public_key", "publicKey", "cache_key", "cacheKey",
		"sort_key", "primary_key", "Idempotency-Key", "Sec-WebSocket-Key", "api_key_id", "key_id", "keyId",
		"key_name", "keyType", "react_key", "messageKey", "stateKey",
		"sessions", "session_count", "sessionStart", "session_duration", "sessionTimeout", "session_name",
		"password_hint", "signature", "sig_figs", "secretary", "tokenomics"}
	for _, n := range yes {
		if !credentialName(n, ctxField) {
			t.Errorf("credentialName(%q) = false, want true", n)
		}
	}
	for _, n := range no {
		if credentialName(n, ctxField) {
			t.Errorf("credentialName(%q) = true, want false", n)
		}
	}
	for _, n := range []string{"signature", "X-Amz-Signature"} {
		if !credentialName(n, ctxQuery) || credentialName(n, ctxField) {
			t.Errorf("%q: a credential in a query, not in a field", n)
		}
	}
}

func TestRedactURL(t *testing.T) {
	var rd Redact
	for _, tt := range []struct{ in, want string }{
		{"/agent?api_key=abc&access_token=def&x=1", "/agent?api_key=[REDACTED]&access_token=[REDACTED]&x=1"},
		{"https://u:p@llm.example/v1beta/models/m:streamGenerateContent?alt=sse&key=abc", "https://[REDACTED]@llm.example/v1beta/models/m:streamGenerateContent?alt=sse&key=[REDACTED]"},
		{"https://x.blob.example/c?sv=2020&sig=abc%2Bdef&se=1", "https://x.blob.example/c?sv=2020&sig=[REDACTED]&se=1"},
		{"/a?api%5Fkey=abc#frag", "/a?api%5Fkey=[REDACTED]#frag"},
		{"/plain", "/plain"},
	} {
		if got := rd.URL(tt.in); got != tt.want {
			t.Errorf("URL(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactChunksAcrossBoundaries(t *testing.T) {
	key := fakeKey("sk-proj-", "Ab3xY9", 48)
	text := `data: {"delta":"my key ` + key + ` ok"}` + "\n\n"
	cut1 := strings.Index(text, key) + 5
	cut2 := cut1 + 20
	cs := []Chunk{{Data: []byte(text[:cut1])}, {Data: []byte(text[cut1:cut2])}, {Data: []byte(text[cut2:])}}
	(&Redact{}).chunks(cs)
	var all []string
	for _, c := range cs {
		all = append(all, string(c.Data))
	}
	want := []string{`data: {"delta":"my key [REDACTED]`, "", ` ok"}` + "\n\n"}
	if !slices.Equal(all, want) {
		t.Errorf("chunks %q, want %q", all, want)
	}
}

// TestDefaultsDocumented: docs/security.md's table of the redactions
// made by default names every Default, and no other.
func TestDefaultsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\nTo change it")
	if i < 0 {
		t.Fatal(`docs/security.md has no "To change it" paragraph after its table`)
	}
	s = s[:i]
	named := map[string]bool{}
	for _, row := range strings.Split(s, "\n") {
		if !strings.HasPrefix(row, "| `") {
			continue
		}
		first := strings.Split(row, "|")[1]
		for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(first, -1) {
			named[m[1]] = true
		}
	}
	for _, d := range Defaults() {
		if !named[string(d)] {
			t.Errorf("docs/security.md's table does not name %q", d)
		}
		delete(named, string(d))
	}
	for n := range named {
		t.Errorf("docs/security.md's table names %q, which is no Default", n)
	}
	// Every built-in rule is turned off by a Default the table names.
	for id, g := range Rules() {
		if !slices.Contains(Defaults(), g) {
			t.Errorf("rule %s is in group %q, which is no Default", id, g)
		}
	}
	// Every Default of a format has rules or a scan of its own.
	scanned := []Default{DefaultHeaders, DefaultQuery, DefaultUserinfo, DefaultFields, DefaultBearer, DefaultDiscord}
	groups := map[Default]int{}
	for _, g := range Rules() {
		groups[g]++
	}
	for _, d := range Defaults() {
		if groups[d] == 0 && !slices.Contains(scanned, d) {
			t.Errorf("Default %q has no rule", d)
		}
	}
	// The gitleaks rules are those rules/README.md names.
	if n := groups[DefaultGitleaks]; n < 150 {
		t.Errorf("%d rules of gitleaks' in use, want 150 or more", n)
	}
	if !strings.Contains(s, "gitleaks") || !strings.Contains(s, "Turning one off") {
		t.Error("docs/security.md does not say how the gitleaks rules are turned off")
	}
}

// TestRulesProvenance: the vendored ruleset is the one rules/README.md
// names (version, commit, checksum), with its license.
func TestRulesProvenance(t *testing.T) {
	readme, err := os.ReadFile("rules/README.md")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(gitleaksTOML)
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), hex.EncodeToString(sum[:])) {
		t.Errorf("rules/README.md does not name the sha256 of rules/gitleaks.toml, %x", sum)
	}
	lic, err := os.ReadFile("rules/gitleaks.LICENSE")
	if err != nil || !strings.Contains(string(lic), "MIT License") {
		t.Errorf("rules/gitleaks.LICENSE: %v", err)
	}
}
