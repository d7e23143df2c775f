package agui

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The stream generator behind the differential test: agent-like streams
// (runs in sequence, interleaved messages and calls, reasoning, steps,
// subagents, chunks, state, activity) and mutations of them (dropped,
// duplicated, swapped, retagged and stray events). Every stream is a pure
// function of its seed.

// obj is a JSON object with its keys in order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func (o obj) get(k string) (any, bool) {
	for _, p := range o {
		if p.k == k {
			return p.v, true
		}
	}
	return nil, false
}

func (o obj) set(k string, v any) obj {
	out := append(obj(nil), o...)
	for i, p := range out {
		if p.k == k {
			out[i].v = v
			return out
		}
	}
	return append(out, kv{k, v})
}

func (o obj) del(k string) obj {
	var out obj
	for _, p := range o {
		if p.k != k {
			out = append(out, p)
		}
	}
	return out
}

type gen struct {
	r    *rand.Rand
	n    int // id counter
	tag  string
	tags []string
}

func (g *gen) id(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// ev builds an event; inside a subagent it carries the subagent's tag.
func (g *gen) ev(t EventType, kvs ...any) obj {
	o := obj{{"type", string(t)}}
	for i := 0; i < len(kvs); i += 2 {
		o = append(o, kv{kvs[i].(string), kvs[i+1]})
	}
	if g.tag != "" {
		o = append(o, kv{"subagentRunId", g.tag})
	}
	return o
}

var words = []string{"the ", "board ", "has ", "three ", "tasks", ". ", "Moving ", "\"ship\" ", "to done", "é", "日本", "\n", "\\", "{"}

func (g *gen) text() string {
	var b strings.Builder
	for range 1 + g.r.IntN(4) {
		b.WriteString(words[g.r.IntN(len(words))])
	}
	return b.String()
}

// fragments cuts s into 1..4 pieces.
func (g *gen) fragments(s string) []string {
	var out []string
	for len(s) > 0 {
		n := 1 + g.r.IntN(len(s))
		for n < len(s) && !utf8Start(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func utf8Start(c byte) bool { return c < 0x80 || c >= 0xC0 }

// thread is an ordered sequence of events that may interleave with others.
type thread []obj

// textMessage, toolCall, reasoning etc. each return one thread.
func (g *gen) textMessage(id string) thread {
	t := thread{g.ev(TextMessageStart, "messageId", id, "role", "assistant")}
	for _, f := range g.fragments(g.text()) {
		t = append(t, g.ev(TextMessageContent, "messageId", id, "delta", f))
	}
	return append(t, g.ev(TextMessageEnd, "messageId", id))
}

func (g *gen) toolCall(parent string) thread {
	id := g.id("call_")
	name := g.pick("add_task", "move_task", "get_weather", "render_a2ui")
	args := fmt.Sprintf(`{"title":%q,"n":%d}`, g.text(), g.r.IntN(100))
	start := g.ev(ToolCallStart, "toolCallId", id, "toolCallName", name)
	if parent != "" {
		start = start.set("parentMessageId", parent)
	}
	t := thread{start}
	for _, f := range g.fragments(args) {
		t = append(t, g.ev(ToolCallArgs, "toolCallId", id, "delta", f))
	}
	t = append(t, g.ev(ToolCallEnd, "toolCallId", id))
	if g.chance(0.5) {
		t = append(t, g.ev(ToolCallResult, "messageId", g.id("tool_"), "toolCallId", id, "content", `{"ok":true}`, "role", "tool"))
	}
	return t
}

func (g *gen) reasoning() thread {
	id := g.id("r_")
	t := thread{g.ev(ReasoningStart, "messageId", id)}
	t = append(t, g.ev(ReasoningMessageStart, "messageId", id, "role", "reasoning"))
	for _, f := range g.fragments(g.text()) {
		t = append(t, g.ev(ReasoningMessageContent, "messageId", id, "delta", f))
	}
	t = append(t, g.ev(ReasoningMessageEnd, "messageId", id))
	if g.chance(0.3) {
		t = append(t, g.ev(ReasoningEncryptedValue, "subtype", "message", "entityId", id, "encryptedValue", "xyz"))
	}
	return append(t, g.ev(ReasoningEnd, "messageId", id))
}

func (g *gen) chunks() thread {
	var t thread
	switch g.r.IntN(3) {
	case 0:
		id := g.id("m_")
		for i, f := range g.fragments(g.text()) {
			e := g.ev(TextMessageChunk, "delta", f)
			if i == 0 || g.chance(0.3) {
				e = e.set("messageId", id)
			}
			if i == 0 && g.chance(0.2) {
				e = e.set("role", "assistant")
			}
			if g.chance(0.1) {
				e = e.set("metadata", map[string]any{"k": i})
			}
			t = append(t, e)
		}
	case 1:
		id := g.id("call_")
		for i, f := range g.fragments(`{"city":"Seoul"}`) {
			e := g.ev(ToolCallChunk, "delta", f)
			if i == 0 {
				e = e.set("toolCallId", id).set("toolCallName", "get_weather")
				if g.chance(0.3) {
					e = e.set("parentMessageId", g.id("m_"))
				}
			}
			if g.chance(0.1) {
				e = e.set("rawEvent", map[string]any{"provider": "x"})
			}
			if g.chance(0.05) {
				e = e.set("extraField", 1)
			}
			t = append(t, e)
		}
	default:
		id := g.id("r_")
		for i, f := range g.fragments(g.text()) {
			e := g.ev(ReasoningMessageChunk, "delta", f)
			if i == 0 {
				e = e.set("messageId", id)
			}
			t = append(t, e)
		}
	}
	return t
}

func (g *gen) step() thread {
	name := g.pick("plan", "tools", "answer")
	inner := g.content(1)
	t := thread{g.ev(StepStarted, "stepName", name)}
	t = append(t, inner...)
	return append(t, g.ev(StepFinished, "stepName", name))
}

func (g *gen) misc() thread {
	switch g.r.IntN(7) {
	case 0:
		return thread{g.ev(StateSnapshot, "snapshot", map[string]any{"tasks": []string{"a"}})}
	case 1:
		return thread{g.ev(StateDelta, "delta", []any{map[string]any{"op": "add", "path": "/tasks/-", "value": "b"}})}
	case 2:
		id := g.id("act_")
		return thread{
			g.ev(ActivitySnapshot, "messageId", id, "activityType", "progress", "content", map[string]any{"p": 0}),
			g.ev(ActivityDelta, "messageId", id, "activityType", "progress", "patch", []any{}),
		}
	case 3:
		return thread{g.ev(Custom, "name", "note", "value", 1)}
	case 4:
		return thread{g.ev(Raw, "event", map[string]any{"x": 1}, "source", "provider")}
	case 5:
		return thread{g.ev(ThinkingStart, "title", "legacy"), g.ev(ThinkingEnd)}
	default:
		return thread{g.ev(MessagesSnapshot, "messages", []any{
			obj{{"id", g.id("u_")}, {"role", "user"}, {"content", "hi"}},
		})}
	}
}

func (g *gen) subagent() thread {
	id := g.id("sub_")
	start := g.ev(SubagentStarted, "subagentRunId", id, "name", g.pick("researcher", "writer"))
	start = start.del("subagentRunId").set("subagentRunId", id)
	if g.tag != "" {
		start = start.set("parentSubagentRunId", g.tag)
	}
	saved := g.tag
	g.tag = id
	inner := g.content(2)
	g.tag = saved
	t := thread{start}
	t = append(t, inner...)
	if g.chance(0.2) {
		return append(t, obj{{"type", string(SubagentError)}, {"subagentRunId", id}, {"message", "boom"}})
	}
	end := obj{{"type", string(SubagentFinished)}, {"subagentRunId", id}}
	if g.chance(0.3) {
		end = end.set("outcome", map[string]any{"type": "success"})
	}
	return append(t, end)
}

// content makes a run's body: several threads merged in random order.
func (g *gen) content(depth int) thread {
	var threads []thread
	for range 1 + g.r.IntN(4) {
		switch k := g.r.IntN(10); {
		case k < 3:
			mid := g.id("m_")
			t := g.textMessage(mid)
			threads = append(threads, t)
			if g.chance(0.5) {
				// parallel calls of that message, interleaved with each other
				for range 1 + g.r.IntN(3) {
					threads = append(threads, g.toolCall(mid))
				}
			}
		case k == 3:
			threads = append(threads, g.toolCall(""))
		case k == 4:
			threads = append(threads, g.reasoning())
		case k == 5:
			threads = append(threads, g.chunks())
		case k == 6 && depth > 0:
			threads = append(threads, g.step())
		case k == 7 && depth > 1:
			threads = append(threads, g.subagent())
		default:
			threads = append(threads, g.misc())
		}
	}
	return g.merge(threads)
}

// merge interleaves threads, keeping each one's order. Chunk threads are
// never interleaved with others: a chunk stream is closed by what comes
// next, so it is kept contiguous as producers send it.
func (g *gen) merge(threads []thread) thread {
	var out thread
	for len(threads) > 0 {
		i := g.r.IntN(len(threads))
		t := threads[i]
		if isChunkThread(t) {
			out = append(out, t...)
			threads = append(threads[:i], threads[i+1:]...)
			continue
		}
		out = append(out, t[0])
		if len(t) == 1 {
			threads = append(threads[:i], threads[i+1:]...)
		} else {
			threads[i] = t[1:]
		}
	}
	return out
}

func isChunkThread(t thread) bool {
	if len(t) == 0 {
		return false
	}
	ty, _ := t[0].get("type")
	return strings.HasSuffix(ty.(string), "_CHUNK")
}

// stream makes one valid agent-like stream.
func (g *gen) stream() []obj {
	var out []obj
	thread := "thread_" + fmt.Sprint(g.r.IntN(3))
	for r := range 1 + g.r.IntN(3) {
		runID := g.id("run_")
		start := obj{{"type", string(RunStarted)}, {"threadId", thread}, {"runId", runID}}
		if g.chance(0.3) {
			start = start.set("input", obj{{"threadId", thread}, {"runId", runID}, {"messages", []any{
				obj{{"id", g.id("u_")}, {"role", "user"}, {"content", "move it"}},
			}}, {"tools", []any{}}, {"context", []any{}}, {"state", map[string]any{}}, {"forwardedProps", map[string]any{}}})
		}
		out = append(out, start)
		out = append(out, g.content(2)...)
		if r > 0 && g.chance(0.2) || g.chance(0.1) {
			out = append(out, obj{{"type", string(RunError)}, {"message", "provider failed"}, {"code", "E"}})
		} else {
			out = append(out, obj{{"type", string(RunFinished)}, {"threadId", thread}, {"runId", runID}})
		}
	}
	return out
}

// mutate breaks a stream in one or two places.
func (g *gen) mutate(s []obj) []obj {
	s = append([]obj(nil), s...)
	for range 1 + g.r.IntN(2) {
		if len(s) == 0 {
			return s
		}
		i := g.r.IntN(len(s))
		switch g.r.IntN(11) {
		case 0: // drop
			s = append(s[:i], s[i+1:]...)
		case 1: // duplicate
			s = append(s[:i+1], s[i:]...)
		case 2: // swap with the next
			if i+1 < len(s) {
				s[i], s[i+1] = s[i+1], s[i]
			}
		case 3: // stray event
			s = append(s[:i], append([]obj{g.stray(s)}, s[i:]...)...)
		case 4: // retag
			s[i] = s[i].set("subagentRunId", g.pick("sub_1", "sub_x", "sub_2"))
		case 5: // null tag
			s[i] = s[i].set("subagentRunId", nil)
		case 6: // untag
			s[i] = s[i].del("subagentRunId")
		case 7: // point an id elsewhere
			for _, f := range []string{"messageId", "toolCallId", "stepName"} {
				if _, ok := s[i].get(f); ok {
					s[i] = s[i].set(f, g.pick("m_1", "call_2", "r_3", "plan", "m_9"))
				}
			}
		case 8: // drop an id field
			s[i] = s[i].del(g.pick("messageId", "toolCallId", "toolCallName", "stepName", "name"))
		case 9: // truncate
			s = s[:i]
		default: // move an event to another place
			e := s[i]
			s = append(s[:i], s[i+1:]...)
			j := g.r.IntN(len(s) + 1)
			s = append(s[:j], append([]obj{e}, s[j:]...)...)
		}
	}
	return s
}

// stray makes an event that reuses ids from the stream.
func (g *gen) stray(s []obj) obj {
	ids := map[string][]string{}
	for _, e := range s {
		for _, f := range []string{"messageId", "toolCallId", "subagentRunId", "stepName"} {
			if v, ok := e.get(f); ok {
				if str, ok := v.(string); ok {
					ids[f] = append(ids[f], str)
				}
			}
		}
	}
	idOf := func(f, def string) string {
		if xs := ids[f]; len(xs) > 0 {
			return xs[g.r.IntN(len(xs))]
		}
		return def
	}
	types := []EventType{TextMessageContent, TextMessageEnd, TextMessageStart, ToolCallArgs, ToolCallEnd, ToolCallStart,
		StepFinished, StepStarted, ReasoningMessageContent, ReasoningEnd, ReasoningMessageStart, SubagentFinished,
		SubagentStarted, RunStarted, RunFinished, RunError, TextMessageChunk, ToolCallChunk, ReasoningMessageChunk,
		ActivityDelta, ReasoningEncryptedValue, MessagesSnapshot}
	t := types[g.r.IntN(len(types))]
	o := obj{{"type", string(t)}}
	switch t {
	case ToolCallArgs, ToolCallEnd, ToolCallStart, ToolCallChunk:
		o = append(o, kv{"toolCallId", idOf("toolCallId", "call_1")})
		if t != ToolCallEnd {
			o = append(o, kv{"toolCallName", "x"}, kv{"delta", "{}"})
		}
		if g.chance(0.5) {
			o = append(o, kv{"parentMessageId", idOf("messageId", "m_1")})
		}
	case StepFinished, StepStarted:
		o = append(o, kv{"stepName", idOf("stepName", "plan")})
	case SubagentFinished, SubagentStarted:
		o = append(o, kv{"subagentRunId", idOf("subagentRunId", "sub_1")}, kv{"name", "x"})
		if t == SubagentStarted && g.chance(0.3) {
			o = append(o, kv{"parentSubagentRunId", "sub_404"})
		}
		switch g.r.IntN(4) {
		case 0:
			o = append(o, kv{"outcome", map[string]any{"type": g.pick("success", "failed", "suspended")}})
		case 1:
			o = append(o, kv{"outcome", map[string]any{"type": "success", "interruptIds": []any{"i1", 2}}})
		}
	case RunStarted, RunFinished:
		o = append(o, kv{"threadId", "thread_0"}, kv{"runId", "run_x"})
		if t == RunFinished && g.chance(0.3) {
			o = append(o, kv{"outcome", obj{{"type", "interrupt"}, {"interrupts", []any{obj{{"id", "int_1"}, {"subagentRunId", nil}}}}}})
		}
	case RunError:
		o = append(o, kv{"message", "x"})
	case ReasoningEncryptedValue:
		o = append(o, kv{"subtype", g.pick("message", "tool-call")}, kv{"entityId", idOf("toolCallId", "call_1")}, kv{"encryptedValue", "x"})
	case MessagesSnapshot:
		o = append(o, kv{"messages", []any{obj{{"id", idOf("messageId", "m_1")}, {"role", "assistant"}, {"subagentRunId", idOf("subagentRunId", "sub_1")},
			{"toolCalls", []any{obj{{"id", idOf("toolCallId", "call_1")}, {"type", "function"}, {"function", obj{{"name", "x"}, {"arguments", "{}"}}}}}}}}})
	default:
		o = append(o, kv{"messageId", idOf("messageId", "m_1")}, kv{"delta", "x"})
	}
	if g.chance(0.3) {
		o = append(o, kv{"subagentRunId", idOf("subagentRunId", "sub_1")})
	}
	return o
}

// genStream returns stream number i of the corpus.
func genStream(seed uint64, i int) []obj {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(i)))}
	s := g.stream()
	if i%2 == 1 {
		s = g.mutate(s)
	}
	return s
}
