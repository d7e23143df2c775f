package recorder

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// A planted credential: its kind, and the value planted.
type planted struct {
	kind, value string
}

// marker is a tell-tale inside every planted value: finding it, or a
// value's tail, in a recording means a leak.
func marker(i int) string { return fmt.Sprintf("PLNT%02dq", i) }

// plantedFormats are credentials of known shapes, each holding its marker.
func plantedFormats() []planted {
	m := func(i int, body string, n int) string { return fakeKey(marker(i), body, n) }
	jwt := func(i int) string {
		return fakeKey("eyJ", "hbGciOiJIUzI1", 20) + "." + "eyJ" + m(i, "zdWIiOiIxMjM0", 30) + "." + fakeKey("", "SflKxw_RJSM", 43)
	}
	return []planted{
		{"openai legacy key", "sk-" + m(1, "Ab3xY9", 45)},
		{"openai project key", "sk-proj-" + m(2, "Ab3-xY9_", 150)},
		{"openai service account key", "sk-svcacct-" + m(3, "Ab3xY9_", 100)},
		{"anthropic key", "sk-ant-api03-" + m(4, "Qw9_zX-", 90) + "AA"},
		{"google api key", "AIza" + m(5, "Sy-9_", 29)},
		{"google oauth token", "ya29." + m(6, "a0AfH6SM", 60)},
		{"google oauth client secret", "GOCSPX-" + m(7, "k9Lq", 22)},
		{"aws access key id", "AKIA" + strings.ToUpper(marker(8)) + "9ZXCVBNM8"},
		{"aws temporary key id", "ASIA" + strings.ToUpper(marker(9)) + "QWERTYUI7"},
		{"github classic token", "ghp_" + m(10, "a1B2", 29)},
		{"github oauth token", "gho_" + m(11, "c3D4", 29)},
		{"github fine-grained token", "github_pat_" + m(12, "11AB_cd", 75)},
		{"gitlab token", "glpat-" + m(13, "x9Y_z", 14)},
		{"slack bot token", "xoxb-" + m(14, "1234-5678-", 40)},
		{"slack user token", "xoxp-" + m(15, "9876-5432-", 40)},
		{"slack app token", "xapp-1-" + m(16, "A0B1C2", 40)},
		{"slack webhook", "https://hooks.slack.com/services/T0" + m(17, "ABC", 6) + "/B0DEF/" + m(17, "xYz9", 24)},
		{"stripe secret key", "sk_live_" + m(18, "51Hq", 90)},
		{"stripe restricted key", "rk_live_" + m(19, "51Hq", 90)},
		{"hugging face token", "hf_" + m(20, "aBc9", 30)},
		{"npm token", "npm_" + m(21, "zX9", 30)},
		{"groq key", "gsk_" + m(22, "Wq8e", 46)},
		{"xai key", "xai-" + m(23, "Rt5y", 74)},
		{"jwt", jwt(24)},
		{"pem private key", "-----BEGIN PRIVATE KEY-----\nMIIEv" + m(25, "QIBADANBgkq", 60) + "\n-----END PRIVATE KEY-----"},
	}
}

// plantedNamed are credentials of no known shape, carried under names
// that say what they are: header names, query parameters, fields.
func plantedNamed() []planted {
	v := func(i int) string { return fmt.Sprintf("%s-hunter2-%d", marker(i), i*7919) }
	return []planted{
		{"Authorization", "Basic " + v(30)},
		{"Proxy-Authorization", "Bearer " + v(31)},
		{"Cookie", "session=" + v(32)},
		{"X-Api-Key", v(33)},
		{"Ocp-Apim-Subscription-Key", v(34)},
		{"X-Functions-Key", v(35)},
		{"X-Openai-Key", v(36)},
		{"X-Access-Key", v(37)},
		{"X-Goog-Api-Key", v(38)},
		{"X-Amz-Security-Token", v(39)},
		{"api_key", v(40)},
		{"access_token", v(41)},
		{"key", v(42)},
		{"password", v(43)},
		{"client_secret", v(44)},
		{"aws_secret_access_key", v(45)},
		{"refreshToken", v(46)},
		{"sig", v(47)},
	}
}

// leaks returns every planted value found in b: its marker, or its last
// 10 bytes.
func leaks(b []byte, ps []planted) []string {
	var out []string
	for _, p := range ps {
		tail := p.value[max(0, len(p.value)-10):]
		if strings.Contains(p.value, "-----END") {
			tail = "PRIVATE KEY-----" // the block's last line
			if !bytes.Contains(b, []byte("BEGIN PRIVATE KEY")) {
				tail = "\x00"
			}
		}
		for i := 0; i < 50; i++ {
			if strings.Contains(p.value, marker(i)) && (bytes.Contains(b, []byte(marker(i))) || bytes.Contains(b, []byte(strings.ToUpper(marker(i))))) {
				out = append(out, fmt.Sprintf("%s (marker %s)", p.kind, marker(i)))
			}
		}
		if bytes.Contains(b, []byte(tail)) {
			out = append(out, fmt.Sprintf("%s (tail %q)", p.kind, tail))
		}
	}
	return out
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
	// A port nobody listens on, for a transport error naming a URL.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()

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
