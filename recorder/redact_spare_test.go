package recorder

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The guard against false positives: a recorder that redacts ordinary text
// destroys recordings. What the defaults leave alone, held by these
// tests: prose and code that talk about credentials, the ids agents and
// providers make (messages, calls, runs, responses, hashes, UUIDs),
// counts of tokens, words that hold a credential's name (keyboard,
// monkey, tokenizer, author, passenger), placeholders ($API_KEY,
// env.APIKey, <your-key>, ***), test output (--- PASS:), a logprob's
// token, and a value after "key:" in prose that is a word ("API key: it
// runs").

// ordinaryTexts are texts the defaults must keep as they are.
var ordinaryTexts = []string{
	"The task-board has three tasks; ask for the key.",
	"Your API key: it goes in the settings page, never in the code.",
	"The key to success is consistency. Key takeaways: ship early.",
	"Set OPENAI_API_KEY=$OPENAI_API_KEY and ANTHROPIC_API_KEY=${ANTHROPIC_API_KEY} before you start.",
	"api_key = os.environ[\"OPENAI_API_KEY\"]",
	`client := openai.NewClient(option.WithAPIKey(env.APIKey))`,
	`const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });`,
	"password: <your-password>",
	"token: ********",
	"--- PASS: TestMixedUpChild/sequential (0.00s)",
	"PASS: 3 of 4 checks; FAIL: 1",
	"The keyboard layout and the monkey's passport are in the author's notes.",
	"Use the tokenizer: 1,024 tokens per chunk, max_tokens=512, token_type=bearer.",
	"Session 4 starts at 10:00; sessions are listed in the sidebar.",
	"task-2024-planning-document-v3 and desk-lamp-model-2000-series-b",
	"Run `go test ./...` then `git push origin main`; see https://example.com/docs/a@b.",
	"The skeleton key and the SKU SKA-1234 are in stock.",
	"msg_01XFDUDYJgAACzvnptvVoYEL toolu_01A09q90qw90lq917835lq9 call_Zx8kQ2sLmN4pR7tV9wY1bC3d",
	"chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvWx resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
	"run-0d4a3c2e-7b1f-4e8a-9c6d-5f2b1a0e9d8c thread_abc123 123e4567-e89b-12d3-a456-426614174000",
	"commit 9ff26fd84f7006a2b692779b48d9380c0c334704 and sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"fp_44709d6fcb system_fingerprint gpt-4o-2024-08-06 claude-sonnet-4-5-20250929",
	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	"My AWS account is in us-east-1; the bucket is s3://my-app-assets/images/2024/logo.png.",
	"The secret of good bread is time: let the dough rest overnight.",
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
	"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
	`{"choices":[{"logprobs":{"content":[{"token":"Hello","logprob":-0.31,"bytes":[72]}]}}]}`,
	`{"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42},"promptTokenCount":12,"candidatesTokenCount":30}`,
	`{"summary":{"profile":"strict","pass":17,"fail":1}}`,
	`{"public_key":"ssh-ed25519 AAAA","cache_key":"user:42","Idempotency-Key":"42","key_id":"k-1","sessions":3}`,
	`{"type":"thinking","thinking":"Let me think.","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}`,
}

func TestRedactSparesOrdinaryText(t *testing.T) {
	var rd Redact
	for _, s := range ordinaryTexts {
		if got := string(rd.Text([]byte(s))); got != s {
			t.Errorf("Text changed ordinary text\n got %q\nwant %q", got, s)
		}
		doc, _ := json.Marshal(map[string]string{"delta": s})
		if !rd.clean(doc) {
			if got, _ := rd.JSON(doc); string(got) != string(doc) {
				t.Errorf("JSON changed ordinary text\n got %s\nwant %s", got, doc)
			}
		}
		if json.Valid([]byte(s)) {
			if got, _ := rd.JSON([]byte(s)); string(got) != s {
				t.Errorf("JSON changed an ordinary document\n got %s\nwant %s", got, s)
			}
		}
	}
}

// TestRedactSparesTheProjectsText: the project's own documents, goldens
// and recordings (prose, code, agents' streams, reports) hold nothing the
// defaults redact.
func TestRedactSparesTheProjectsText(t *testing.T) {
	var files []string
	for _, g := range []string{"../*.md", "../*/*.md", "../examples/*/*.md", "../*/testdata/*", "../*/testdata/*/*", "../examples/*/testdata/*", "../examples/*/testdata/*/*"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	// Fake credentials the project's code sets on purpose, in a field named
	// for one: redacting them is right.
	fake := map[string]string{
		"../scripted/testdata/clients/clients.mjs": "test-token", // Vertex AI's OAuth token, for @google/genai
	}
	var rd Redact
	size := 0
	for _, f := range files {
		if strings.Contains(f, "/fuzz/") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil || len(b) > 4<<20 {
			continue
		}
		size += len(b)
		for _, s := range rd.textSpans(b, true, nil) {
			if string(b[s.start:s.end]) == fake[f] {
				continue
			}
			t.Errorf("%s: redacted %q in %q", f, b[s.start:s.end], b[max(0, s.start-40):min(len(b), s.end+20)])
		}
	}
	if size < 100<<10 {
		t.Fatalf("only %d bytes of the project's text read", size)
	}
}

// TestRedactSparesBinaryData: an image in a message (a large base64 blob,
// a data URL), a page of hashes and a list of UUIDs are kept whole.
func TestRedactSparesBinaryData(t *testing.T) {
	var rd Redact
	var hashes, uuids strings.Builder
	for i := range 200 {
		h := rnd(fmt.Sprint("sha", i), csHex, 64)
		fmt.Fprintf(&hashes, "%s  file%d.txt\n", h, i)
		u := rnd(fmt.Sprint("uuid", i), csHex, 32)
		fmt.Fprintf(&uuids, "%s-%s-%s-%s-%s\n", u[:8], u[8:12], u[12:16], u[16:20], u[20:])
	}
	for name, s := range map[string]string{
		"base64 image": `{"type":"binary","mimeType":"image/png","data":"` + rnd("png", csB64, 200<<10) + `=="}`,
		"data url":     `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + rnd("jpg", csB64, 64<<10) + `"}}`,
		"base64url":    rnd("b64url", csB64URL, 64<<10),
		"hashes":       hashes.String(),
		"uuids":        uuids.String(),
	} {
		if spans := rd.textSpans([]byte(s), true, nil); len(spans) > 0 {
			sp := spans[0]
			t.Errorf("%s: %d redactions, the first %q", name, len(spans), s[max(0, sp.start-20):min(len(s), sp.end+20)])
		}
	}
}
