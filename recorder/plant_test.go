package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A planted credential: its kind, the value planted, and the part of it
// that must never reach a recording (the whole value when secret is "").
type planted struct {
	kind, value, secret string
	// context says the format is known by what stands next to it (a
	// name, an access key id): it is not glued to letters in the tests.
	context bool
}

func (p planted) secretPart() string {
	if p.secret != "" {
		return p.secret
	}
	return p.value
}

// Character sets of fake credentials.
const (
	csAlnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	csB64URL  = csAlnum + "-_"
	csB64     = csAlnum + "+/"
	csHex     = "0123456789abcdef"
	csUpper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	csLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	csDigits  = "0123456789"
)

// rnd returns n characters of cs drawn from a source seeded by seed, so
// that every fake credential is the same on every run and no two share a
// stretch of text. Fake credentials are built at run time so that no
// literal key sits in the sources (secret scanners would flag them).
func rnd(seed, cs string, n int) string {
	h := fnv.New64a()
	h.Write([]byte(seed))
	r := rand.New(rand.NewPCG(h.Sum64(), 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = cs[r.IntN(len(cs))]
	}
	// Random credentials have letters of both cases and digits: make
	// sure of it where the set has them.
	if n >= 3 && cs == csAlnum || cs == csB64URL || cs == csB64 {
		copy(b, "aZ7")
	}
	return string(b)
}

// plantedFormats are credentials known by their shape: every kind the
// recorder redacts by default, as a user would paste them.
func plantedFormats() []planted {
	f := func(kind, value string) planted { return planted{kind: kind, value: value} }
	jwt := "eyJ" + rnd("jwt1", csB64URL, 30) + ".eyJ" + rnd("jwt2", csB64URL, 60) + "." + rnd("jwt3", csB64URL, 43)
	pemBody := rnd("pem1", csB64, 64) + "\n" + rnd("pem2", csB64, 64) + "\n" + rnd("pem3", csB64, 40)
	pgpBody := rnd("pgp1", csB64, 64) + "\n" + rnd("pgp2", csB64, 64) + "\n=" + rnd("pgp3", csB64, 4)
	ppkBody := rnd("ppk1", csB64, 64) + "\n" + rnd("ppk2", csB64, 40)
	ppkMAC := rnd("ppk3", csHex, 64)
	awsSecret := rnd("awss", csB64, 40)
	mistral := rnd("mistral", csAlnum, 32)
	mysql := rnd("mysql", csAlnum, 18)
	mysqlCLI := rnd("mysqlcli", csAlnum, 16)
	pg := rnd("pg", csAlnum, 20)
	nl := func(s string) string { return strings.ReplaceAll(s, "\\n", "\n") }
	return []planted{
		f("openai legacy key", "sk-"+rnd("oai", csAlnum, 48)),
		f("openai project key", "sk-proj-"+rnd("oaip", csB64URL, 156)),
		f("openai service account key", "sk-svcacct-"+rnd("oais", csB64URL, 100)),
		f("anthropic key", "sk-ant-api03-"+rnd("ant", csB64URL, 93)+"AA"),
		f("google api key", "AIza"+rnd("gcp", csB64URL, 35)),
		f("google oauth token", "ya29."+rnd("ya29", csB64URL, 60)),
		f("google oauth client secret", "GOCSPX-"+rnd("gocspx", csB64URL, 28)),
		f("aws access key id", "AKIA"+rnd("akia", csUpper, 16)),
		f("aws temporary key id", "ASIA"+rnd("asia", csUpper, 16)),
		f("github classic token", "ghp_"+rnd("ghp", csAlnum, 36)),
		f("github oauth token", "gho_"+rnd("gho", csAlnum, 36)),
		f("github fine-grained token", "github_pat_11"+rnd("ghpat", csAlnum, 20)+"_"+rnd("ghpat2", csAlnum, 59)),
		f("gitlab token", "glpat-"+rnd("glpat", csB64URL, 20)),
		f("slack bot token", "xoxb-"+rnd("xoxb1", csDigits, 12)+"-"+rnd("xoxb2", csDigits, 13)+"-"+rnd("xoxb3", csAlnum, 24)),
		f("slack user token", "xoxp-"+rnd("xoxp1", csDigits, 12)+"-"+rnd("xoxp2", csDigits, 13)+"-"+rnd("xoxp3", csAlnum, 32)),
		f("slack app token", "xapp-1-A"+rnd("xapp1", csAlnum, 10)+"-"+rnd("xapp2", csDigits, 13)+"-"+rnd("xapp3", csHex, 64)),
		f("slack webhook", "https://hooks.slack.com/services/T"+rnd("sw1", csUpper, 8)+"/B"+rnd("sw2", csUpper, 8)+"/"+rnd("sw3", csAlnum, 24)),
		f("stripe secret key", "sk_live_51"+rnd("stripe", csAlnum, 97)),
		f("stripe restricted key", "rk_live_51"+rnd("stripe-rk", csAlnum, 97)),
		f("hugging face token", "hf_"+rnd("hf", csLetters, 34)),
		f("npm token", "npm_"+rnd("npm", csAlnum, 36)),
		f("groq key", "gsk_"+rnd("gsk", csAlnum, 52)),
		f("xai key", "xai-"+rnd("xai", csAlnum, 80)),
		f("jwt", jwt),
		{kind: "pem private key", value: nl("-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "\n-----END RSA PRIVATE KEY-----"), secret: nl(pemBody)},
		f("deepseek key", "sk-"+rnd("deepseek", csHex, 32)),
		f("openrouter key", "sk-or-v1-"+rnd("openrouter", csHex, 64)),
		f("langsmith key", "lsv2_pt_"+rnd("ls1", csHex, 32)+"_"+rnd("ls2", csHex, 10)),
		f("pinecone key", "pcsk_"+rnd("pc1", csAlnum, 5)+"_"+rnd("pc2", csAlnum, 63)),
		f("tavily key", "tvly-dev-"+rnd("tvly", csAlnum, 32)),
		f("perplexity key", "pplx-"+rnd("pplx", csAlnum, 48)),
		f("replicate token", "r8_"+rnd("r8", csAlnum, 37)),
		f("elevenlabs key", "sk_"+rnd("eleven", csHex, 48)),
		{kind: "mistral key", value: "Mistral key: " + mistral, secret: mistral, context: true},
		f("stripe webhook secret", "whsec_"+rnd("whsec", csB64, 32)),
		f("pypi token", "pypi-AgEIcHlwaS5vcmc"+rnd("pypi", csB64URL, 70)),
		f("sendgrid key", "SG."+rnd("sg1", csB64URL, 22)+"."+rnd("sg2", csB64URL, 43)),
		f("shopify token", "shpat_"+rnd("shpat", csHex, 32)),
		f("twilio key", "SK"+rnd("twilio", csHex, 32)),
		f("telegram bot token", rnd("tg1", csDigits, 10)+":AA"+rnd("tg2", csB64URL, 33)),
		{kind: "discord bot token", value: "M" + rnd("dc1", csAlnum, 23) + "." + rnd("dc2", csB64URL, 6) + "." + rnd("dc3", csB64URL, 38), context: true},
		f("discord webhook", "https://discord.com/api/webhooks/"+rnd("dw1", csDigits, 18)+"/"+rnd("dw2", csB64URL, 68)),
		f("vault token", "hvs."+rnd("hvs", csB64URL, 95)),
		f("databricks token", "dapi"+rnd("dapi", csHex, 32)),
		f("digitalocean token", "dop_v1_"+rnd("dop", csHex, 64)),
		{kind: "mysql dsn password", value: "app:" + mysql + "@tcp(db:3306)/shop", secret: mysql, context: true},
		{kind: "mysql cli password", value: "mysql -u root -p" + mysqlCLI + " shop", secret: mysqlCLI, context: true},
		{kind: "postgres url password", value: "postgres://app:" + pg + "@db:5432/shop", secret: pg, context: true},
		{kind: "aws secret access key", value: "AWS " + awsSecret, secret: awsSecret, context: true},
		{kind: "pgp private key", value: nl("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + pgpBody + "\n-----END PGP PRIVATE KEY BLOCK-----"), secret: nl(pgpBody)},
		{kind: "putty private key", value: nl("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n" + rnd("ppkpub", csB64, 68) + "\nPrivate-Lines: 2\n" + ppkBody + "\nPrivate-MAC: " + ppkMAC), secret: nl(ppkBody)},
		{kind: "openssh private key", value: nl("-----BEGIN OPENSSH PRIVATE KEY-----\n" + rnd("ossh1", csB64, 70) + "\n" + rnd("ossh2", csB64, 70) + "\n-----END OPENSSH PRIVATE KEY-----"), secret: nl(rnd("ossh1", csB64, 70))},
	}
}

// plantedNamed are credentials of no known shape, carried under names
// that say what they are: header names, query parameters, fields.
func plantedNamed() []planted {
	v := func(i int) string { return "hunter2-" + rnd(fmt.Sprint("named", i), csAlnum, 14) }
	names := []string{
		"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Ocp-Apim-Subscription-Key", "X-Functions-Key",
		"X-Openai-Key", "X-Access-Key", "X-Goog-Api-Key", "X-Amz-Security-Token",
		"api_key", "access_token", "key", "password", "client_secret", "aws_secret_access_key", "refreshToken", "sig",
		"passwd", "secrets", "creds", "dsn", "passcode", "apiKeys", "api_key_value", "sessionId", "db_password",
		"authToken", "session_token", "x_api_key", "SECRET_KEY", "privateKey", "Passwords", "bot_token",
	}
	out := make([]planted, len(names))
	for i, n := range names {
		val := v(i)
		switch n {
		case "Authorization":
			val = "Basic " + val
		case "Proxy-Authorization":
			val = "Bearer " + val
		case "Cookie":
			val = "session=" + val
		}
		out[i] = planted{kind: n, value: val, secret: v(i)}
	}
	return out
}

// leaks returns the planted credentials a piece of which (any 12 bytes of
// the secret part) is in b, as it is or JSON-escaped up to three times
// (a call's arguments in an event in a record).
func leaks(b []byte, ps []planted) []string {
	const w = 12
	windows := map[string]int{}
	var short []string // secrets shorter than a window, found whole
	var filter windowFilter
	for i, p := range ps {
		s := p.secretPart()
		if len(s) < w {
			windows[s] = i
			short = append(short, s)
			continue
		}
		for k := 0; k+w <= len(s); k++ {
			windows[s[k:k+w]] = i
			filter.add(windowHash(s[k : k+w]))
		}
	}
	found := map[int]string{}
	note := func(i int, hay string, k, n int) {
		if _, seen := found[i]; !seen {
			found[i] = hay[max(0, k-40):min(len(hay), k+n+40)]
		}
	}
	hay := string(b)
	unescape := strings.NewReplacer(`\n`, "\n", `\"`, `"`, `\\`, `\`, `\/`, "/", `\u002b`, "+", `\u0026`, "&", `\u003c`, "<", `\u003e`, ">")
	for layer := 0; layer < 4; layer++ {
		// A rolling hash of each window of the haystack, looked up in the
		// map only when the filter has seen it.
		if len(hay) >= w {
			h := windowHash(hay[:w])
			for k := 0; ; k++ {
				if filter.has(h) {
					if i, ok := windows[hay[k:k+w]]; ok {
						note(i, hay, k, w)
					}
				}
				if k+w >= len(hay) {
					break
				}
				h = (h-uint64(hay[k])*windowPow)*windowBase + uint64(hay[k+w])
			}
		}
		for _, s := range short {
			if k := strings.Index(hay, s); k >= 0 {
				note(windows[s], hay, k, len(s))
			}
		}
		hay = unescape.Replace(hay)
	}
	var out []string
	for i, p := range ps {
		if ctx, ok := found[i]; ok {
			out = append(out, fmt.Sprintf("%s (in %q)", p.kind, ctx))
		}
	}
	return out
}

// windowHash is a polynomial hash of a 12-byte window, rolled along the
// haystack by leaks.
const windowBase = 1099511628211

// windowPow is windowBase to the 11th, modulo 2^64: what the byte leaving
// a window weighed in its hash.
var windowPow = func() uint64 {
	p := uint64(1)
	for range 11 {
		p *= windowBase
	}
	return p
}()

func windowHash(s string) uint64 {
	var h uint64
	for i := 0; i < len(s); i++ {
		h = h*windowBase + uint64(s[i])
	}
	return h
}

// windowFilter is a set of window hashes that may answer yes wrongly, never
// no wrongly.
type windowFilter [1 << 14]uint64

func (f *windowFilter) add(h uint64) { i := (h >> 40) & (1<<20 - 1); f[i>>6] |= 1 << (i & 63) }
func (f *windowFilter) has(h uint64) bool {
	i := (h >> 40) & (1<<20 - 1)
	return f[i>>6]&(1<<(i&63)) != 0
}

// plantedText is prose holding every credential of ps, none named.
func plantedText(ps []planted) string {
	var b strings.Builder
	for i, p := range ps {
		fmt.Fprintf(&b, "%d. here you go %s ok\n", i+1, p.value)
	}
	return b.String()
}

// TestNoPlantedCredentialRecorded plants 43 kinds of credential in every
// place a recording holds, with the middleware and the provider transport
// at their zero configuration, and finds none of them in the recordings:
// request headers, path and query, JSON and form bodies, SSE events and
// data that is no event, protobuf frames, provider URLs (userinfo, key=),
// provider request and response headers, JSON and form provider bodies,
// response chunks (a key cut between two chunks), error messages.
func TestNoPlantedCredentialRecorded(t *testing.T) {
	formats := plantedFormats()
	named := plantedNamed()
	all := append(append([]planted(nil), formats...), named...)
	if len(all) < 30 {
		t.Fatalf("only %d kinds planted", len(all))
	}
	text := func(ps []planted) string {
		var b strings.Builder
		for _, p := range ps {
			fmt.Fprintf(&b, "%s: %s\n", p.kind, p.value)
		}
		return b.String()
	}
	fields := func(ps []planted) map[string]any {
		out := map[string]any{}
		for _, p := range ps {
			if !strings.Contains(p.kind, "-") || strings.Contains(p.kind, "_") {
				out[p.kind] = p.value
			}
		}
		return out
	}
	form := func(ps []planted) string {
		q := url.Values{}
		for _, p := range ps {
			q.Set(p.kind, p.value)
		}
		for i, p := range formats {
			q.Set(fmt.Sprintf("note%d", i), p.value)
		}
		return q.Encode()
	}
	formatText := text(formats)

	// The provider: secrets in its response headers and in chunks cut in
	// the middle of each key.
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		for _, p := range named[:10] {
			w.Header().Set(p.kind, p.value)
		}
		w.Header().Set("Set-Cookie", "sid="+named[2].value)
		w.Header().Set("X-Debug", formats[0].value)
		w.Header().Set("Content-Type", "text/event-stream")
		body := []byte("data: " + string(mustJSON(map[string]any{"content": formatText, "fields": fields(named)})) + "\n\n")
		for len(body) > 0 {
			n := min(len(body), 17)
			w.Write(body[:n])
			w.(http.Flusher).Flush()
			body = body[n:]
		}
	}))
	defer provider.Close()
	pu, _ := url.Parse(provider.URL)
	llm := &http.Client{Transport: &Transport{}}
	// A port that drops every connection, for a transport error naming a
	// URL. It stays bound for the whole test: a port closed at once could
	// be handed to another process's server, which may answer or hold the
	// request open.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dead := ln.Addr().String()

	sseEvents := []agui.Event{
		agui.NewRunStarted("t", "r"),
		agui.NewTextMessageStart("m"),
		agui.NewTextMessageContent("m", formatText),
		agui.NewTextMessageContent("m", "db at postgres://app:"+named[13].value+"@db/x"),
		agui.NewTextMessageEnd("m"),
		agui.NewToolCallStart("c", "login", "m"),
		agui.NewToolCallArgs("c", string(mustJSON(fields(named)))),
		agui.NewToolCallEnd("c"),
		agui.NewEvent(agui.StateSnapshot, "snapshot", map[string]any{"creds": fields(named), "notes": formatText}),
		agui.NewEvent(agui.Custom, "name", "env", "value", fields(named)),
		agui.NewRunFinished("t", "r"),
	}
	agentH := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		// The provider, as an agent calls it: userinfo and key= in the
		// URL, credential headers, secrets in the JSON body...
		u := *pu
		u.User = url.UserPassword("app", named[13].value)
		u.Path = "/v1beta/models/m:streamGenerateContent"
		u.RawQuery = "alt=sse&key=" + url.QueryEscape(named[12].value) + "&q=" + url.QueryEscape(formats[23].value)
		req, _ := http.NewRequestWithContext(r.Context(), "POST", u.String(), strings.NewReader(string(mustJSON(map[string]any{
			"model": "m", "messages": []any{map[string]any{"role": "user", "content": formatText}}, "auth": fields(named),
		}))))
		for _, p := range named[:10] {
			req.Header.Set(p.kind, p.value)
		}
		req.Header.Set("X-Note", formats[1].value)
		if resp, err := llm.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		} else {
			t.Error(err)
		}
		// ...a form body...
		req, _ = http.NewRequestWithContext(r.Context(), "POST", provider.URL+"/oauth/token", strings.NewReader(form(named)))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if resp, err := llm.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		// ...and a transport error naming a URL with a key in it.
		req, _ = http.NewRequestWithContext(r.Context(), "POST", "http://"+dead+"/v1/chat?api_key="+url.QueryEscape(named[10].value)+"&t="+url.QueryEscape(formats[2].value), strings.NewReader("{}"))
		if _, err := llm.Do(req); err == nil {
			t.Error("the dead port answered")
		}
		switch r.URL.Query().Get("as") {
		case "proto":
			protoAgent(t, sseEvents, nil, agui.MediaTypeProto).ServeHTTP(w, r)
		case "panic":
			agent(sseEvents[:3]).ServeHTTP(w, r)
			panic("agent failed with " + formats[5].value + " and password=" + named[13].value)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			enc := agui.NewSSEEncoder(w)
			for _, e := range sseEvents {
				enc.Encode(e)
			}
			// Data that is not an event.
			enc.EncodeMessage(agui.SSEMessage{Data: []byte(`{"ping":1,"token":"` + named[11].value + `"}`), Retry: -1})
			enc.EncodeMessage(agui.SSEMessage{Data: []byte("[DONE] " + formats[3].value), Retry: -1})
		}
	})
	dir := t.TempDir()
	rec := Middleware(agentH, Config{Dir: dir, OnError: func(error) {}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { _ = recover() }()
		rec.ServeHTTP(w, r)
	}))
	defer srv.Close()

	hdr := http.Header{}
	for _, p := range named[:10] {
		hdr.Set(p.kind, p.value)
	}
	hdr.Set("X-Trace", formats[4].value)
	query := "?api_key=" + url.QueryEscape(named[10].value) + "&access_token=" + url.QueryEscape(named[11].value) +
		"&key=" + url.QueryEscape(named[12].value) + "&sig=" + url.QueryEscape(named[17].value) + "&q=" + url.QueryEscape(formats[6].value)
	input := string(mustJSON(map[string]any{
		"threadId": "t", "runId": "r",
		"messages":       []any{map[string]any{"id": "u", "role": "user", "content": formatText}},
		"forwardedProps": fields(named),
		"state":          map[string]any{"nested": map[string]any{"credentials": fields(named)}},
	}))
	// A key hidden behind JSON escapes.
	escaped := strings.Replace(input, `"`+named[0].value, `"\u0042`+named[0].value[1:], 1)
	got := post(t, srv.URL+"/agent"+query, escaped, hdr)
	if !bytes.Contains(got, []byte(formats[0].value)) {
		t.Error("the client did not get the stream as sent")
	}
	post(t, srv.URL+"/agent"+query+"&as=proto", input, hdr)
	formHdr := hdr.Clone()
	formHdr.Set("Content-Type", "application/x-www-form-urlencoded")
	post(t, srv.URL+"/agent"+query+"&as=form", form(named), formHdr)
	req, _ := http.NewRequest("POST", srv.URL+"/agent"+query+"&as=panic", strings.NewReader(input))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	srv.Close()
	rec.Wait()

	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 4 {
		t.Fatalf("%d recordings, want 4", len(files))
	}
	var whole []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		whole = append(whole, b...)
	}
	if os.Getenv("PLANT_DUMP") != "" {
		os.WriteFile(os.Getenv("PLANT_DUMP"), whole, 0o644)
	}
	for _, l := range leaks(whole, all) {
		t.Errorf("leaked: %s", l)
	}
	if t.Failed() {
		t.Logf("recordings:\n%s", whole)
	}
	// What is not a credential is still there.
	for _, want := range []string{`"kind":"provider"`, `"X-Trace":["[REDACTED]"]`, `streamGenerateContent?alt=sse&key=[REDACTED]`,
		`"kind":"end"`, `\"ping\":1`, `"type":"TOOL_CALL_ARGS"`, "handler panicked"} {
		if !bytes.Contains(whole, []byte(want)) {
			t.Errorf("the recordings lack %s", want)
		}
	}
	// Every recording still reads.
	readDir(t, dir)
}

func mustJSON(v any) []byte {
	b, err := jsonMarshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestNoPlantedCredentialInSink: the in-process Sink redacts alike: the
// request's input and headers, and the events.
func TestNoPlantedCredentialInSink(t *testing.T) {
	formats, named := plantedFormats(), plantedNamed()
	all := append(append([]planted(nil), formats...), named...)
	var text strings.Builder
	props := map[string]any{}
	for _, p := range all {
		fmt.Fprintf(&text, "%s: %s\n", p.kind, p.value)
		props[p.kind] = p.value
	}
	var file bytes.Buffer
	w, _ := NewWriter(&file, Header{})
	s := &Sink{Writer: w}
	hdr := http.Header{}
	for _, p := range named[:10] {
		hdr.Set(p.kind, p.value)
	}
	hdr.Set("X-Note", formats[0].value)
	in := agui.RunAgentInput{ThreadID: "t", RunID: "r", ForwardedProps: mustJSON(props),
		Messages: []agui.Message{{ID: "u", Role: agui.RoleUser, Content: agui.Content{Text: text.String()}}}}
	if err := s.Request(in, hdr); err != nil {
		t.Fatal(err)
	}
	for _, e := range []agui.Event{
		agui.NewRunStarted("t", "r"),
		agui.NewTextMessageStart("m"),
		agui.NewTextMessageContent("m", text.String()),
		agui.NewTextMessageEnd("m"),
		agui.NewEvent(agui.Custom, "name", "env", "value", props),
		agui.NewRunFinished("t", "r"),
	} {
		if err := s.Emit(e); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	for _, l := range leaks(file.Bytes(), all) {
		t.Errorf("leaked: %s", l)
	}
}

// TestLeaksFindsAnyWindow: the leak check finds any 12 bytes of a planted
// secret wherever they sit, raw or JSON-escaped up to three times, and a
// short secret whole; a haystack without them has no leak.
func TestLeaksFindsAnyWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	ps := []planted{{kind: "long", value: "sk-" + strings.Repeat("a1B2/c3+D4<5&", 5)}, {kind: "short", value: "pw/9<x"}}
	clean := strings.Repeat("nothing secret here, {\"a\":\"b\\\\n\"} ", 40)
	require.Empty(t, leaks([]byte(clean), ps))
	for range 200 {
		p := ps[r.IntN(len(ps))]
		s := p.secretPart()
		if len(s) > 12 {
			k := r.IntN(len(s) - 12)
			s = s[k : k+12+r.IntN(len(s)-12-k+1)]
		}
		for range r.IntN(4) {
			b, _ := json.Marshal(s)
			s = string(b[1 : len(b)-1])
		}
		at := r.IntN(len(clean))
		hay := clean[:at] + s + clean[at:]
		got := leaks([]byte(hay), ps)
		require.Len(t, got, 1, "%q planted in the haystack", s)
		assert.True(t, strings.HasPrefix(got[0], p.kind+" "), got[0])
	}
}
