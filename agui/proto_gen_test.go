package agui

import (
	"encoding/json"
	"math/rand/v2"
)

// enrich adds to a generated event the fields the protobuf encoding
// carries beyond what the ordering verifier reads: base fields, outcomes
// and usage, content parts of every kind, messages of every role, run
// inputs, patches, and now and then a field protobuf cannot carry.
func enrich(r *rand.Rand, o obj) obj {
	chance := func(p float64) bool { return r.Float64() < p }
	pick := func(xs ...any) any { return xs[r.IntN(len(xs))] }
	ty, _ := o.get("type")
	t, _ := ty.(string)
	if chance(0.2) {
		o = o.set("timestamp", pick(1700000000123, 0, -5, 1, 9007199254740991))
	}
	if chance(0.1) {
		o = o.set("rawEvent", anyValue(r, 2))
	}
	if chance(0.1) {
		o = o.set("metadata", objectValue(r, 2))
	}
	if chance(0.02) {
		o = o.set("unknownField", anyValue(r, 1))
	}
	switch EventType(t) {
	case TextMessageStart:
		if chance(0.2) {
			o = o.set("name", pick("bot", ""))
		}
	case ToolCallResult:
		switch r.IntN(4) {
		case 0:
			o = o.set("content", contentParts(r))
		case 1:
			o = o.set("content", "")
		}
	case MessagesSnapshot:
		var msgs []any
		for range r.IntN(5) {
			msgs = append(msgs, message(r))
		}
		if chance(0.8) {
			o = o.set("messages", msgs)
		}
	case RunStarted:
		if chance(0.3) {
			o = o.set("parentRunId", "run_parent")
		}
		if chance(0.3) {
			o = o.set("protocolVersion", "1.0")
		}
		if chance(0.4) {
			var msgs []any
			for range r.IntN(4) {
				msgs = append(msgs, message(r))
			}
			in := obj{{"threadId", "thread_0"}, {"runId", "run_x"}, {"messages", msgs}}
			if chance(0.5) {
				in = append(in, kv{"tools", []any{obj{{"name", "get_weather"}, {"description", "Weather"}, {"parameters", map[string]any{"type": "object"}}}, obj{{"name", "x"}, {"description", ""}, {"metadata", map[string]any{"k": 1}}}}})
			}
			if chance(0.5) {
				in = append(in, kv{"context", []any{obj{{"description", "today"}, {"value", "Monday"}}}})
			}
			if chance(0.5) {
				in = append(in, kv{"state", objectValue(r, 2)})
			}
			if chance(0.5) {
				in = append(in, kv{"forwardedProps", anyValue(r, 2)})
			}
			if chance(0.3) {
				in = append(in, kv{"resume", []any{obj{{"interruptId", "int_1"}, {"status", pick("resolved", "cancelled")}, {"payload", anyValue(r, 1)}}}})
			}
			if chance(0.3) {
				in = append(in, kv{"protocolVersion", "1.0"}, kv{"parentRunId", "p"})
			}
			o = o.set("input", in)
		}
	case RunFinished:
		switch r.IntN(6) {
		case 0:
			o = o.set("outcome", obj{{"type", "success"}, {"pendingToolCallIds", []any{"call_1", "call_2"}}})
		case 1:
			o = o.set("outcome", obj{{"type", "interrupt"}, {"interrupts", []any{
				obj{{"id", "int_1"}, {"reason", "approval"}, {"message", "OK?"}, {"toolCallId", "call_1"}, {"responseSchema", map[string]any{"type": "boolean"}}, {"expiresAt", "2026-01-01T00:00:00Z"}, {"metadata", anyValue(r, 1)}, {"subagentRunId", "sub_1"}},
				obj{{"id", "int_2"}, {"reason", "input"}},
			}}})
		case 2:
			o = o.set("outcome", obj{{"type", "cancelled"}})
		}
		if chance(0.3) {
			o = o.set("result", anyValue(r, 2))
		}
		if chance(0.3) {
			o = o.set("usage", []any{usage(r), usage(r)})
		}
	case RunError:
		if chance(0.3) {
			o = o.set("usage", []any{usage(r)})
		}
	case StateDelta:
		if chance(0.7) {
			o = o.set("delta", patch(r))
		}
	case ActivitySnapshot:
		if chance(0.5) {
			o = o.set("replace", chance(0.5))
		}
		if chance(0.5) {
			o = o.set("content", objectValue(r, 3))
		}
	case ActivityDelta:
		if chance(0.7) {
			o = o.set("patch", patch(r))
		}
	case StateSnapshot:
		if chance(0.5) {
			o = o.set("snapshot", anyValue(r, 3))
		}
	case Custom:
		if chance(0.5) {
			o = o.set("value", anyValue(r, 3))
		}
	case Raw:
		if chance(0.5) {
			o = o.set("event", anyValue(r, 3))
		}
	case SubagentStarted:
		if chance(0.5) {
			o = o.set("description", "finds facts")
		}
		if chance(0.3) {
			o = o.set("parentToolCallId", "call_9").set("parentMessageId", "m_9")
		}
	case SubagentFinished:
		switch r.IntN(4) {
		case 0:
			o = o.set("outcome", obj{{"type", "suspended"}, {"interruptIds", []any{"int_1"}}})
		case 1:
			o = o.set("outcome", obj{{"type", "success"}})
		}
		if chance(0.3) {
			o = o.set("result", anyValue(r, 2))
		}
	case SubagentError:
		if chance(0.5) {
			o = o.set("code", "E_SUB")
		}
	}
	return o
}

var protoStrings = []string{"", "plain", "é日本😀", "line\nbreak\ttab\u0008\u000c\u0001", `"quoted" \ back`, "\u2028\u2029", "<html>&", "\ufeffbom", "\U0010ffff"}

// anyValue is a JSON value of every kind, with numbers JavaScript
// formats in each of its ways.
func anyValue(r *rand.Rand, depth int) any {
	n := 7
	if depth <= 0 {
		n = 5
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return []any{0, -0.5, 0.1, 1e21, 1.5e-7, 123456789012, -42, 1e300, 5e-324}[r.IntN(9)]
	case 3:
		return json.RawMessage([]string{`-0`, `1E2`, `0.30000000000000004`, `12345678901234567890`, `"\ud83d\ude00"`, `"\ud800"`}[r.IntN(6)])
	case 4:
		return protoStrings[r.IntN(len(protoStrings))]
	case 5:
		var a []any
		for range r.IntN(4) {
			a = append(a, anyValue(r, depth-1))
		}
		if a == nil {
			a = []any{}
		}
		return a
	default:
		return objectValue(r, depth-1)
	}
}

// objectValue is a JSON object whose keys JavaScript reorders now and then
// (integer-like keys come first).
func objectValue(r *rand.Rand, depth int) obj {
	keys := []string{"b", "a", "2", "10", "01", "-1", "4294967295", "4294967294", "", "é", "k/~", "type"}
	o := obj{}
	for range r.IntN(5) {
		o = o.set(keys[r.IntN(len(keys))], anyValue(r, depth))
	}
	if o == nil {
		o = obj{}
	}
	return o
}

func usage(r *rand.Rand) obj {
	u := obj{{"provider", "openai"}, {"model", "gpt"}, {"inputTokens", r.IntN(1000)}, {"outputTokens", r.IntN(100)}}
	if r.IntN(2) == 0 {
		u = append(u, kv{"totalTokens", 5}, kv{"reasoningTokens", 1}, kv{"cachedInputTokens", 2}, kv{"cacheWriteInputTokens", 0})
	}
	return u
}

func patch(r *rand.Rand) []any {
	ops := []any{
		obj{{"op", "add"}, {"path", "/a"}, {"value", anyValue(r, 2)}},
		obj{{"op", "remove"}, {"path", "/b"}},
		obj{{"op", "replace"}, {"path", "/c/0"}, {"value", "x"}},
		obj{{"op", "move"}, {"from", "/a"}, {"path", "/d"}},
		obj{{"op", "copy"}, {"from", "/d"}, {"path", "/e"}},
		obj{{"op", "test"}, {"path", "/e"}, {"value", nil}},
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	return ops[:1+r.IntN(len(ops))]
}

func source(r *rand.Rand) obj {
	switch r.IntN(3) {
	case 0:
		return obj{{"type", "data"}, {"value", "aGVsbG8="}, {"mimeType", "image/png"}}
	case 1:
		s := obj{{"type", "url"}, {"value", "https://example.com/a.png"}}
		if r.IntN(2) == 0 {
			s = append(s, kv{"mimeType", "image/png"})
		}
		return s
	}
	return obj{{"type", "file"}, {"value", "file-1"}, {"provider", "openai"}, {"mimeType", "application/pdf"}}
}

func contentParts(r *rand.Rand) []any {
	parts := []any{}
	for range r.IntN(4) {
		switch k := r.IntN(7); k {
		case 0:
			p := obj{{"type", "text"}, {"text", protoStrings[r.IntN(len(protoStrings))]}}
			if r.IntN(2) == 0 {
				p = append(p, kv{"id", "part_1"}, kv{"metadata", anyValue(r, 1)})
			}
			parts = append(parts, p)
		case 5:
			// The retired binary part, which protobuf carries as a
			// document with marker metadata (a loss).
			parts = append(parts, obj{{"type", "binary"}, {"mimeType", "image/png"}, {"data", "aGVsbG8="}, {"filename", "a.png"}})
		default:
			kinds := []string{"image", "audio", "video", "document"}
			p := obj{{"type", kinds[r.IntN(4)]}, {"source", source(r)}}
			if r.IntN(3) == 0 {
				p = append(p, kv{"id", "part_2"}, kv{"metadata", map[string]any{"alt": "A"}})
			}
			parts = append(parts, p)
		}
	}
	return parts
}

func message(r *rand.Rand) obj {
	id := "msg_" + string(rune('a'+r.IntN(26)))
	switch r.IntN(8) {
	case 0:
		return obj{{"id", id}, {"role", "developer"}, {"content", "Be brief."}}
	case 1:
		m := obj{{"id", id}, {"role", "system"}, {"content", "You help."}}
		if r.IntN(2) == 0 {
			m = append(m, kv{"name", "sys"})
		}
		return m
	case 2:
		m := obj{{"id", id}, {"role", "assistant"}}
		if r.IntN(2) == 0 {
			m = append(m, kv{"content", "Sure."})
		}
		if r.IntN(2) == 0 {
			call := obj{{"id", "call_1"}, {"type", "function"}, {"function", obj{{"name", "get_weather"}, {"arguments", `{"city":"Seoul"}`}}}}
			if r.IntN(3) == 0 {
				call = append(call, kv{"encryptedValue", "enc"}, kv{"metadata", map[string]any{"k": true}})
			}
			m = append(m, kv{"toolCalls", []any{call}})
		}
		if r.IntN(4) == 0 {
			m = append(m, kv{"subagentRunId", "sub_1"}, kv{"encryptedValue", "e"}, kv{"metadata", objectValue(r, 1)})
		}
		return m
	case 3:
		if r.IntN(2) == 0 {
			return obj{{"id", id}, {"role", "user"}, {"content", "hi"}}
		}
		return obj{{"id", id}, {"role", "user"}, {"content", contentParts(r)}, {"name", "ann"}}
	case 4:
		m := obj{{"id", id}, {"role", "tool"}, {"toolCallId", "call_1"}, {"content", "21°C"}}
		if r.IntN(2) == 0 {
			m = m.set("content", contentParts(r))
		}
		if r.IntN(3) == 0 {
			m = append(m, kv{"error", "timeout"})
		}
		return m
	case 5:
		return obj{{"id", id}, {"role", "activity"}, {"activityType", "progress"}, {"content", objectValue(r, 2)}}
	case 6:
		return obj{{"id", id}, {"role", "reasoning"}, {"content", "thinking"}, {"encryptedValue", "x"}}
	}
	// A role this version does not know.
	return obj{{"id", id}, {"role", "critic"}, {"content", "meh"}}
}
