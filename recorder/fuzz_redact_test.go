package recorder

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/jsonx"
)

// FuzzStreamRedact streams arbitrary text, cut at arbitrary places, as the
// deltas of a message and of a call's arguments, with a key planted in
// it and cut too: nothing panics, every recorded event is JSON the
// Reader reads, the key is never kept, and with the defaults off every
// event is recorded as it came.
func FuzzStreamRedact(f *testing.F) {
	for _, s := range []string{"hello world", `{"password":"hunter2"}`, "sk-ant-", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", "a\u00e9\u4e16b", `{"op":"add","path":"/token","value":"x"}`} {
		f.Add(s, []byte{3, 7, 1}, uint8(0))
	}
	key := "gsk_" + rnd("fuzz", csAlnum, 52)
	f.Fuzz(func(t *testing.T, text string, cuts []byte, where uint8) {
		if len(text) > 4096 || len(cuts) > 64 {
			return
		}
		at := 0
		if len(text) > 0 {
			at = int(where) % (len(text) + 1)
		}
		full := text[:at] + " " + key + " " + text[at:]
		var frags []string
		prev := 0
		for _, c := range cuts {
			k := prev + int(c)%32
			if k >= len(full) {
				break
			}
			frags = append(frags, full[prev:k])
			prev = k
		}
		frags = append(frags, full[prev:])
		for _, off := range []bool{false, true} {
			var rd Redact
			if off {
				rd.Off = Defaults()
			}
			var file bytes.Buffer
			w, _ := NewWriter(&file, Header{})
			s := &Sink{Writer: w, Redact: rd}
			evs := []agui.Event{agui.NewRunStarted("t", "r"), agui.NewTextMessageStart("m")}
			for _, fr := range frags {
				evs = append(evs, agui.NewTextMessageContent("m", fr))
			}
			evs = append(evs, agui.NewTextMessageEnd("m"), agui.NewToolCallStart("c", "f", "m"))
			for _, fr := range frags {
				evs = append(evs, agui.NewToolCallArgs("c", fr))
			}
			evs = append(evs, agui.NewToolCallEnd("c"), agui.NewRunFinished("t", "r"))
			for _, e := range evs {
				if err := s.Emit(e); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			recs, errs := readAll(t, NewReader(bytes.NewReader(file.Bytes()), "fuzz"))
			if len(errs) > 0 {
				t.Fatalf("the recording does not read: %v\n%s", errs, file.Bytes())
			}
			var got []string
			for _, r := range recs {
				if r.Kind == KindEvent {
					if jsonx.Check(r.Event) != nil {
						t.Fatalf("event %s is not JSON", r.Event)
					}
					got = append(got, string(r.Event))
				}
			}
			if off {
				if len(got) != len(evs) {
					t.Fatalf("with the defaults off, %d events of %d recorded", len(got), len(evs))
				}
				for i, e := range evs {
					if got[i] != string(e.Raw()) {
						t.Fatalf("with the defaults off, event %d changed: %s, want %s", i, got[i], e.Raw())
					}
				}
				continue
			}
			if l := leaks(file.Bytes(), []planted{{kind: "groq key", value: key}}); len(l) > 0 {
				t.Fatalf("leaked %v from %q:\n%s", l, frags, file.Bytes())
			}
		}
	})
}

// FuzzProviderStream feeds arbitrary response bytes, in arbitrary chunks,
// to the redaction of a provider exchange, and a stream on each wire with
// a key cut between two of its text deltas: nothing panics, the chunks
// join to what the defaults-off redaction keeps, and the key is never
// kept.
func FuzzProviderStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n"), []byte{5, 9}, uint8(0))
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\\u0041b\"}}\n\n"), []byte{30}, uint8(1))
	f.Add([]byte(`{"message":{"content":"a"},"done":false}`+"\n"), []byte{}, uint8(2))
	key := "sk-ant-api03-" + rnd("fuzz-ant", csB64URL, 60)
	wires := []func(a, b string) string{
		func(a, b string) string {
			return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":" + q(a) + "}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":" + q(b) + "}}]}\n\n"
		},
		func(a, b string) string {
			return "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"i\",\"output_index\":0,\"content_index\":0,\"delta\":" + q(a) + "}\n\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"i\",\"output_index\":0,\"content_index\":0,\"delta\":" + q(b) + "}\n\n"
		},
		func(a, b string) string {
			return "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + q(a) + "}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + q(b) + "}}\n\n"
		},
		func(a, b string) string {
			return "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":" + q(a) + "}]},\"index\":0}]}\r\n\r\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":" + q(b) + "}]},\"index\":0}]}\r\n\r\n"
		},
		func(a, b string) string {
			return "{\"message\":{\"content\":" + q(a) + "},\"done\":false}\n{\"message\":{\"content\":" + q(b) + "},\"done\":true}\n"
		},
	}
	f.Fuzz(func(t *testing.T, body, cuts []byte, pick uint8) {
		if len(body) > 8192 || len(cuts) > 32 {
			return
		}
		chunk := func(b []byte) []Chunk {
			var cs []Chunk
			prev := 0
			for _, c := range cuts {
				k := prev + int(c)
				if k >= len(b) {
					break
				}
				cs = append(cs, Chunk{Data: append([]byte(nil), b[prev:k]...)})
				prev = k
			}
			return append(cs, Chunk{Data: append([]byte(nil), b[prev:]...)})
		}
		var rd Redact
		(&rd).chunks(chunk(body))
		off := Redact{Off: Defaults()}
		cs := chunk(body)
		off.chunks(cs)
		var joined []byte
		for _, c := range cs {
			joined = append(joined, c.Data...)
		}
		if !bytes.Equal(joined, body) {
			t.Fatalf("with the defaults off, the chunks changed")
		}
		// A key cut between two deltas, the fuzzer's text around it.
		text := string(body)
		if !json.Valid([]byte(q(text))) {
			return
		}
		at := int(pick) % (len(key) - 1)
		stream := wires[int(pick)%len(wires)](text+" "+key[:at+1], key[at+1:]+" "+text)
		cs = chunk([]byte(stream))
		rd.chunks(cs)
		var out []byte
		for _, c := range cs {
			out = append(out, c.Data...)
		}
		if l := leaks(out, []planted{{kind: "anthropic key", value: key}}); len(l) > 0 {
			t.Fatalf("leaked %v:\n%s", l, out)
		}
		if strings.Count(stream, "\n") != strings.Count(string(out), "\n") {
			t.Fatalf("the stream's framing changed:\n%s\n%s", stream, out)
		}
	})
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzParseRules feeds arbitrary text to the reader of rule files: it
// never panics, and rules it accepts apply to any text without panicking.
func FuzzParseRules(f *testing.F) {
	f.Add([]byte(gitleaksTOML[:min(len(gitleaksTOML), 4000)]))
	f.Add(aguitestTOML)
	f.Add([]byte("[[rules]]\nid = \"a\"\nregex = '''a(b)'''\nsecretGroup = 1\nentropy = 1.5\nkeywords = [\"a\",]\n[[rules.allowlists]]\nregexTarget = \"line\"\nregexes = ['x']\nstopwords = [\"s\"]\n"))
	f.Add([]byte("title = \"t\"\n[allowlist]\nregexes = [\n  '''^x$''', # c\n]\n\"quoted key\" = \"\\u00e9\\n\"\nn = -1_000\nf = 1e3\nb = true\nm = \"\"\"\nline\\\n  more\"\"\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		rules, err := ParseRules("fuzz.toml", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		rd := Redact{Rules: rules}
		rd.Text(src)
		rd.Text([]byte("some text sk- key aws " + string(src)))
	})
}
