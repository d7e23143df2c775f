package agui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aguitest/aguitest/internal/jsonpatch"
	"github.com/aguitest/aguitest/internal/oracle"
)

// The differential test of the client's view: generated conversations
// (a history and a state the client starts from, then one response of one
// to three runs) go to a real HttpAgent of @ag-ui/client over HTTP
// (internal/oracle/httpagent.mjs) and through View; for every response
// the client accepts, agent.messages and agent.state must equal the
// view's messages and state as JSON values.

const viewSeed = 20261207

// viewGen makes conversations that exercise the client's reducer: text
// reopened under one id, calls attached to text, to history, to a user
// message's id or to nothing, results for calls of this run and of the
// history, parallel calls, chunk streams in Mastra's shape, state
// snapshots and deltas (valid patches built against the state, and some
// that fail), activity snapshots and deltas, messages snapshots that keep,
// change, add and drop messages (with the activity authority metadata),
// reasoning and encrypted values, metadata everywhere, split surrogate
// pairs, RUN_STARTED.input messages.
type viewGen struct {
	*gen
	assistants, users, calls, activities, reasonings, texts []string
	state                                                   json.RawMessage
}

type viewCase struct {
	History []Message
	State   json.RawMessage
	Events  []obj
}

func (g *viewGen) pickOf(xs []string, def string) string {
	if len(xs) == 0 {
		return def
	}
	return xs[g.r.IntN(len(xs))]
}

func (g *viewGen) metadata() map[string]any {
	m := map[string]any{}
	for range 1 + g.r.IntN(2) {
		switch g.r.IntN(4) {
		case 0:
			m["usage"] = map[string]any{"tokens": g.r.IntN(100)}
		case 1:
			m["k"] = g.r.IntN(3)
		case 2:
			m["trace"] = g.pick("a", "b")
		default:
			m["ag-ui"] = []any{g.r.IntN(2)}
		}
	}
	return m
}

// withMeta adds metadata to an event now and then.
func (g *viewGen) withMeta(e obj, p float64) obj {
	if g.chance(p) {
		return e.set("metadata", g.metadata())
	}
	return e
}

// deltas cuts text into deltas; now and then an emoji split into its two
// UTF-16 halves, each a lone surrogate on the wire.
func (g *viewGen) deltas() []any {
	var out []any
	for _, f := range g.fragments(g.text()) {
		out = append(out, f)
	}
	if g.chance(0.15) {
		out = append(out, json.RawMessage(`"\ud83d"`), json.RawMessage(`"\ude00 ok"`))
	}
	return out
}

func (g *viewGen) history() ([]Message, json.RawMessage) {
	var h []Message
	for range g.r.IntN(5) {
		switch g.r.IntN(7) {
		case 0, 1:
			id := g.id("u_")
			g.users = append(g.users, id)
			m := UserMessage(id, g.text())
			if g.chance(0.2) {
				m.Content = PartsContent(TextPart("look"), ContentPart{Type: "image", Source: &PartSource{Type: "url", Value: "https://x/y.png"}})
			}
			h = append(h, m)
		case 2:
			id := g.id("a_")
			g.assistants = append(g.assistants, id)
			m := AssistantMessage(id, "")
			if g.chance(0.6) {
				m.Content = TextContent(g.text())
			}
			for range g.r.IntN(3) {
				c := g.id("call_")
				g.calls = append(g.calls, c)
				m.ToolCalls = append(m.ToolCalls, NewToolCall(c, g.pick("get_weather", "add_task"), `{"a":1}`))
			}
			if g.chance(0.2) {
				m.Metadata = json.RawMessage(`{"k":0,"old":true}`)
			}
			h = append(h, m)
			for _, c := range m.ToolCalls {
				if g.chance(0.5) {
					h = append(h, ToolMessage(g.id("t_"), c.ID, "done"))
				}
			}
		case 3:
			h = append(h, SystemMessage(g.id("s_"), "be brief"))
		case 4:
			id := g.id("act_")
			g.activities = append(g.activities, id)
			h = append(h, Message{ID: id, Role: RoleActivity, ActivityType: g.pick("progress", "plan"), Activity: json.RawMessage(`{"step":1,"items":["a"]}`)})
		case 5:
			id := g.id("rs_")
			g.reasonings = append(g.reasonings, id)
			h = append(h, Message{ID: id, Role: RoleReasoning, Content: TextContent("thinking")})
		default:
			h = append(h, DeveloperMessage(g.id("d_"), "dev"))
		}
	}
	switch g.r.IntN(6) {
	case 0:
		return h, nil
	case 1:
		return h, json.RawMessage(`[1,2]`)
	case 2:
		return h, json.RawMessage(`"text"`)
	}
	return h, json.RawMessage(`{"tasks":[{"id":"T1","done":false}],"n":0,"meta":{"owner":"me"}}`)
}

func (g *viewGen) textThread() thread {
	id := g.id("m_")
	if g.chance(0.1) {
		id = g.pickOf(g.assistants, id) // continue a message of the history
	}
	g.texts = append(g.texts, id)
	var t thread
	for n := range 1 + boolInt(g.chance(0.3)) { // reopened under the same id
		start := g.ev(TextMessageStart, "messageId", id)
		if g.chance(0.5) || n > 0 {
			start = start.set("role", g.pick("assistant", "assistant", "user", "system", "developer"))
		}
		if g.chance(0.1) {
			start = start.set("name", g.pick("bot", ""))
		}
		t = append(t, g.withMeta(start, 0.2))
		for _, d := range g.deltas() {
			t = append(t, g.withMeta(g.ev(TextMessageContent, "messageId", id, "delta", d), 0.1))
		}
		t = append(t, g.withMeta(g.ev(TextMessageEnd, "messageId", id), 0.2))
	}
	return t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (g *viewGen) parent() (string, bool) {
	switch g.r.IntN(8) {
	case 0, 1, 2:
		return g.pickOf(g.texts, ""), len(g.texts) > 0
	case 3:
		return g.pickOf(g.assistants, ""), len(g.assistants) > 0
	case 4:
		return g.pickOf(g.users, ""), len(g.users) > 0 // a collision
	case 5:
		return g.id("pm_"), true // a message nobody sent
	}
	return "", false
}

func (g *viewGen) callThread() thread {
	id := g.id("call_")
	g.calls = append(g.calls, id)
	start := g.ev(ToolCallStart, "toolCallId", id, "toolCallName", g.pick("get_weather", "add_task", "noop"))
	if p, ok := g.parent(); ok {
		start = start.set("parentMessageId", p)
	}
	t := thread{g.withMeta(start, 0.15)}
	args := fmt.Sprintf(`{"city":%q,"n":%d}`, g.text(), g.r.IntN(9))
	if g.chance(0.15) {
		args = ""
	}
	for _, f := range g.fragments(args) {
		t = append(t, g.withMeta(g.ev(ToolCallArgs, "toolCallId", id, "delta", f), 0.1))
	}
	t = append(t, g.withMeta(g.ev(ToolCallEnd, "toolCallId", id), 0.15))
	if g.chance(0.1) { // the same start again, maybe renamed
		t = append(t, g.ev(ToolCallStart, "toolCallId", id, "toolCallName", g.pick("get_weather", "renamed")))
		t = append(t, g.ev(ToolCallArgs, "toolCallId", id, "delta", " "))
		t = append(t, g.ev(ToolCallEnd, "toolCallId", id))
	}
	if g.chance(0.6) {
		t = append(t, g.result(id))
	}
	return t
}

func (g *viewGen) result(callID string) obj {
	e := g.ev(ToolCallResult, "messageId", g.id("tr_"), "toolCallId", callID)
	if g.chance(0.2) {
		e = e.set("content", []any{obj{{"type", "text"}, {"text", "parts"}, {"note", "stripped"}}})
	} else {
		e = e.set("content", `{"ok":true}`)
	}
	if g.chance(0.5) {
		e = e.set("role", "tool")
	}
	return g.withMeta(e, 0.2)
}

func (g *viewGen) reasoningThread() thread {
	id := g.id("r_")
	g.reasonings = append(g.reasonings, id)
	t := thread{g.ev(ReasoningStart, "messageId", id)}
	t = append(t, g.withMeta(g.ev(ReasoningMessageStart, "messageId", id, "role", "reasoning"), 0.2))
	for _, d := range g.deltas() {
		t = append(t, g.withMeta(g.ev(ReasoningMessageContent, "messageId", id, "delta", d), 0.1))
	}
	t = append(t, g.withMeta(g.ev(ReasoningMessageEnd, "messageId", id), 0.2))
	if g.chance(0.5) {
		if g.chance(0.5) {
			entity := g.pick(id, g.pickOf(g.texts, id), g.pickOf(g.activities, id), "nobody")
			t = append(t, g.ev(ReasoningEncryptedValue, "subtype", "message", "entityId", entity, "encryptedValue", g.pick("enc1", "enc2")))
		} else {
			t = append(t, g.ev(ReasoningEncryptedValue, "subtype", "tool-call", "entityId", g.pickOf(g.calls, "nobody"), "encryptedValue", "encC"))
		}
	}
	return append(t, g.ev(ReasoningEnd, "messageId", id))
}

// chunkThread is a contiguous chunk stream: text, calls and text again
// under the same id (Mastra's shape), or reasoning chunks.
func (g *viewGen) chunkThread() thread {
	var t thread
	if g.chance(0.2) {
		id := g.id("rc_")
		for i, f := range g.fragments(g.text()) {
			e := g.ev(ReasoningMessageChunk, "delta", f)
			if i == 0 {
				e = e.set("messageId", id)
			}
			t = append(t, e)
		}
		return t
	}
	mid := g.id("mc_")
	g.texts = append(g.texts, mid)
	for range 1 + g.r.IntN(3) {
		for i, f := range g.fragments(g.text()) {
			e := g.ev(TextMessageChunk, "delta", f)
			if i == 0 || g.chance(0.3) {
				e = e.set("messageId", mid)
			}
			t = append(t, g.withMeta(e, 0.1))
		}
		if g.chance(0.7) {
			cid := g.id("cc_")
			g.calls = append(g.calls, cid)
			for i, f := range g.fragments(`{"q":"x"}`) {
				e := g.ev(ToolCallChunk, "delta", f)
				if i == 0 {
					e = e.set("toolCallId", cid).set("toolCallName", "search")
					if g.chance(0.8) {
						e = e.set("parentMessageId", mid)
					}
				}
				t = append(t, e)
			}
		}
	}
	return t
}

// paths lists pointers into a decoded JSON value (maps, slices).
func jsonPaths(v any, prefix string, out *[]string) {
	*out = append(*out, prefix)
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			jsonPaths(e, prefix+"/"+escapeToken(k), out)
		}
	case []any:
		for i, e := range x {
			jsonPaths(e, fmt.Sprintf("%s/%d", prefix, i), out)
		}
	}
}

// patchFor makes a patch for doc: usually one that applies, sometimes one
// that does not.
func (g *viewGen) patchFor(doc json.RawMessage) []any {
	var v any
	_ = json.Unmarshal(doc, &v)
	var ps []string
	jsonPaths(v, "", &ps)
	ps = ps[1:] // not the root, mostly
	var ops []any
	for range 1 + g.r.IntN(3) {
		p := "/new"
		if len(ps) > 0 {
			p = ps[g.r.IntN(len(ps))]
		}
		switch g.r.IntN(7) {
		case 0:
			ops = append(ops, obj{{"op", "replace"}, {"path", p}, {"value", g.r.IntN(50)}})
		case 1:
			ops = append(ops, obj{{"op", "add"}, {"path", g.pick("/added", "/tasks/-", p)}, {"value", obj{{"id", g.id("T")}}}})
		case 2:
			ops = append(ops, obj{{"op", "remove"}, {"path", p}})
		case 3:
			ops = append(ops, obj{{"op", "copy"}, {"from", p}, {"path", "/copied"}})
		case 4:
			ops = append(ops, obj{{"op", "move"}, {"from", p}, {"path", "/moved"}})
		case 5:
			ops = append(ops, obj{{"op", "test"}, {"path", p}, {"value", g.r.IntN(2)}})
		default:
			ops = append(ops, obj{{"op", "add"}, {"path", "/missing/deep"}, {"value", 1}})
		}
	}
	if ops == nil {
		ops = []any{}
	}
	return ops
}

func (g *viewGen) stateThread() thread {
	var t thread
	for range 1 + g.r.IntN(3) {
		if g.chance(0.3) {
			snap := obj{{"tasks", []any{obj{{"id", "T1"}}}}, {"v", g.r.IntN(9)}}
			t = append(t, g.withMeta(g.ev(StateSnapshot, "snapshot", snap), 0.1))
			g.state, _ = json.Marshal(snap)
			continue
		}
		doc := g.state
		if doc == nil {
			doc = json.RawMessage(`{}`)
		}
		p := g.patchFor(doc)
		t = append(t, g.ev(StateDelta, "delta", p))
		pb, _ := json.Marshal(p)
		if next, err := jsonpatch.Apply(doc, pb); err == nil {
			g.state = next
		}
	}
	return t
}

func (g *viewGen) activityThread() thread {
	id := g.id("act_")
	switch g.r.IntN(6) {
	case 0:
		id = g.pickOf(g.activities, id)
	case 1:
		id = g.pickOf(g.texts, id) // an id of another kind
	}
	g.activities = append(g.activities, id)
	typ := g.pick("progress", "plan")
	content := json.RawMessage(`{"step":1,"items":["a","b"]}`)
	snap := g.ev(ActivitySnapshot, "messageId", id, "activityType", typ, "content", content)
	switch g.r.IntN(3) {
	case 0:
		snap = snap.set("replace", false)
	case 1:
		snap = snap.set("replace", true)
	}
	t := thread{g.withMeta(snap, 0.2)}
	for range g.r.IntN(3) {
		p := g.patchFor(content)
		t = append(t, g.withMeta(g.ev(ActivityDelta, "messageId", id, "activityType", g.pick(typ, typ, "other"), "patch", p), 0.2))
		pb, _ := json.Marshal(p)
		if next, err := jsonpatch.Apply(content, pb); err == nil {
			content = next
		}
	}
	return t
}

func (g *viewGen) snapshotMessage() any {
	switch g.r.IntN(8) {
	case 0:
		return obj{{"id", g.pickOf(g.users, g.id("su_"))}, {"role", "user"}, {"content", "edited"}}
	case 1:
		m := obj{{"id", g.pickOf(g.texts, g.id("sa_"))}, {"role", "assistant"}, {"content", "canonical"}}
		if g.chance(0.5) {
			m = m.set("toolCalls", []any{obj{{"id", g.pickOf(g.calls, "call_s")}, {"type", "function"}, {"function", obj{{"name", "x"}, {"arguments", "{}"}}}}})
		}
		return m
	case 2:
		return obj{{"id", g.id("sn_")}, {"role", "assistant"}, {"content", "new"}}
	case 3:
		return obj{{"id", g.pickOf(g.activities, g.id("sact_"))}, {"role", "activity"}, {"activityType", g.pick("progress", "plan", "other")}, {"content", obj{{"from", "snapshot"}}}}
	case 4:
		return obj{{"id", g.pickOf(g.reasonings, g.id("sr_"))}, {"role", "reasoning"}, {"content", "re-derived"}}
	case 5:
		return obj{{"id", g.id("st_")}, {"role", "tool"}, {"toolCallId", g.pickOf(g.calls, "call_x")}, {"content", "r"}}
	case 6:
		return obj{{"id", g.id("ss_")}, {"role", "system"}, {"content", "sys"}, {"metadata", g.metadata()}}
	}
	return obj{{"id", "dup"}, {"role", "user"}, {"content", g.pick("one", "two")}}
}

func (g *viewGen) messagesSnapshot() obj {
	var msgs []any
	for range g.r.IntN(5) {
		m := g.snapshotMessage()
		if o, ok := m.(obj); ok && g.chance(0.2) {
			m = o.set("extra", g.pick("stripped", "by the client")) // unknown fields are stripped
		}
		msgs = append(msgs, m)
	}
	if msgs == nil {
		msgs = []any{}
	}
	e := g.ev(MessagesSnapshot, "messages", msgs)
	switch g.r.IntN(8) {
	case 0:
		e = e.set("metadata", obj{{"@ag-ui/client", obj{{"authoritativeActivityTypes", nil}}}})
	case 1:
		e = e.set("metadata", obj{{"@ag-ui/client", obj{{"authoritativeActivityTypes", []any{g.pick("progress", "plan")}}}}})
	case 2:
		e = e.set("metadata", obj{{"@ag-ui/client", g.pick("x", "")}})
	case 3:
		e = e.set("metadata", obj{{"@ag-ui/client", obj{{"authoritativeActivityTypes", []any{1}}}}})
	case 4:
		e = e.set("metadata", obj{{"@ag-ui/client", obj{{"other", 1}}}})
	}
	return e
}

// subagentThread is a subagent's span: its own text, calls (attached to
// its text or to nothing), results and activity, all carrying its tag.
func (g *viewGen) subagentThread() thread {
	id := g.id("sub_")
	t := thread{obj{{"type", string(SubagentStarted)}, {"subagentRunId", id}, {"name", "helper"}}}
	saved, savedTexts := g.tag, g.texts
	g.tag, g.texts = id, nil
	inner := []thread{g.textThread()}
	for range g.r.IntN(3) {
		switch g.r.IntN(3) {
		case 0:
			c := g.id("call_")
			g.calls = append(g.calls, c)
			start := g.ev(ToolCallStart, "toolCallId", c, "toolCallName", "lookup")
			if g.chance(0.7) {
				start = start.set("parentMessageId", g.texts[0])
			}
			inner = append(inner, thread{start, g.ev(ToolCallArgs, "toolCallId", c, "delta", "{}"), g.ev(ToolCallEnd, "toolCallId", c), g.result(c)})
		case 1:
			a := g.id("sact_")
			if g.chance(0.5) {
				a = g.pickOf(g.activities, a)
			}
			g.activities = append(g.activities, a)
			inner = append(inner, thread{g.ev(ActivitySnapshot, "messageId", a, "activityType", "progress", "content", obj{{"by", id}})})
		default:
			inner = append(inner, g.reasoningThread())
		}
	}
	body := g.merge(inner)
	g.tag, g.texts = saved, append(savedTexts, g.texts...)
	t = append(t, body...)
	return append(t, obj{{"type", string(SubagentFinished)}, {"subagentRunId", id}})
}

func (g *viewGen) runThreads() []thread {
	var threads []thread
	state := false
	for range 1 + g.r.IntN(5) {
		switch k := g.r.IntN(15); {
		case k < 3:
			threads = append(threads, g.textThread())
			if g.chance(0.5) { // parallel calls of that message
				for range 1 + g.r.IntN(3) {
					threads = append(threads, g.callThread())
				}
			}
		case k < 5:
			threads = append(threads, g.callThread())
		case k == 5:
			if len(g.calls) > 0 {
				threads = append(threads, thread{g.result(g.pickOf(g.calls, ""))})
			}
		case k == 6:
			threads = append(threads, g.reasoningThread())
		case k == 7:
			threads = append(threads, g.chunkThread())
		case k == 8 && !state:
			state = true // one state thread per run: the generator tracks the state in its order
			threads = append(threads, g.stateThread())
		case k == 9:
			threads = append(threads, g.activityThread())
		case k == 10:
			threads = append(threads, thread{g.messagesSnapshot()})
		case k == 12:
			threads = append(threads, g.subagentThread())
		case k == 13:
			// An event type the client does not know: dropped.
			threads = append(threads, thread{obj{{"type", "FUTURE_EVENT"}, {"messageId", g.pickOf(g.texts, "x")}}})
		case k == 11:
			name := g.pick("plan", "act")
			threads = append(threads, thread{g.ev(StepStarted, "stepName", name), g.ev(Custom, "name", "n", "value", 1), g.ev(StepFinished, "stepName", name)})
		default:
			threads = append(threads, g.textThread())
		}
	}
	return threads
}

func (g *viewGen) conversation() viewCase {
	var c viewCase
	c.History, c.State = g.history()
	g.state = c.State
	if len(bytes.TrimSpace(g.state)) == 0 {
		g.state = json.RawMessage(`{}`)
	}
	thread := "thread_" + fmt.Sprint(g.r.IntN(3))
	for r := range 1 + g.r.IntN(3) {
		runID := g.id("run_")
		start := obj{{"type", string(RunStarted)}, {"threadId", thread}, {"runId", runID}}
		if g.chance(0.2) {
			msgs := []any{obj{{"id", g.pickOf(g.users, "u_in")}, {"role", "user"}, {"content", "again"}}, obj{{"id", g.id("in_")}, {"role", "user"}, {"content", "new"}}}
			start = start.set("input", obj{{"threadId", thread}, {"runId", runID}, {"messages", msgs}})
		}
		c.Events = append(c.Events, g.withMeta(start, 0.1))
		c.Events = append(c.Events, g.merge(g.runThreads())...)
		if r > 0 && g.chance(0.2) {
			c.Events = append(c.Events, obj{{"type", string(RunError)}, {"message", "failed"}})
		} else {
			c.Events = append(c.Events, obj{{"type", string(RunFinished)}, {"threadId", thread}, {"runId", runID}})
		}
	}
	return c
}

func genConversation(seed uint64, i int) viewCase {
	g := &viewGen{gen: &gen{r: rand.New(rand.NewPCG(seed, uint64(i)))}}
	return g.conversation()
}

// sseBody writes events as the body of a response.
func sseBody(t testing.TB, events []obj) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, e := range events {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("data: ")
		b.Write(j)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// runHTTPAgentParallel is runHTTPAgent in two node processes at once; in
// one under -short, whose samples take less time than a second node's
// start.
func runHTTPAgentParallel(t testing.TB, dir string, cases []httpCase) []httpAgentResult {
	t.Helper()
	if testing.Short() {
		res, err := runHTTPAgentProcess(dir, cases)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	half := (len(cases) + 1) / 2
	parts := [][]httpCase{cases[:half], cases[half:]}
	outs := make([][]httpAgentResult, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, part := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = runHTTPAgentProcess(dir, part)
		}()
	}
	wg.Wait()
	var res []httpAgentResult
	for i := range parts {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		res = append(res, outs[i]...)
	}
	return res
}

func runHTTPAgentProcess(dir string, cases []httpCase) ([]httpAgentResult, error) {
	inputs := make([][]byte, len(cases))
	for i, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		inputs[i] = b
	}
	return oracle.Lines[httpAgentResult](dir, oracle.ScriptPath("httpagent.mjs"), inputs)
}

// sameJSONValue compares two JSON texts as values, numbers as written.
func sameJSONValue(a, b []byte) bool {
	dec := func(x []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(x))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	x, err1 := dec(a)
	y, err2 := dec(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(x, y)
}

// viewOf applies a generated response to the view of its history.
func viewOf(t testing.TB, c viewCase, body []byte) (*View, error) {
	t.Helper()
	v := NewView(RunAgentInput{Messages: c.History, State: c.State})
	r := NewReader(bytes.NewReader(body), "body")
	for i := 0; ; i++ {
		e, err := r.Next()
		if err != nil {
			break
		}
		if err := v.Apply(e); err != nil {
			return v, fmt.Errorf("event %d: %w", i+1, err)
		}
	}
	return v, nil
}

// TestViewMatchesHTTPAgent is the differential test: 100% agreement on
// every response the reference accepts, and at least 2,000 of them (200
// under -short, a tenth of the conversations).
func TestViewMatchesHTTPAgent(t *testing.T) {
	dir := needOracle(t)
	n, least := 2600, 2000
	if testing.Short() {
		n, least = 260, 200
	}
	convs := make([]viewCase, n)
	cases := make([]httpCase, n)
	bodies := make([][]byte, n)
	for i := range convs {
		convs[i] = genConversation(viewSeed, i)
		bodies[i] = sseBody(t, convs[i].Events)
		hist := convs[i].History
		if hist == nil {
			hist = []Message{}
		}
		msgs, err := json.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		cases[i] = httpCase{Body: base64.StdEncoding.EncodeToString(bodies[i]), Messages: msgs, State: convs[i].State}
	}
	results := runHTTPAgentParallel(t, dir, cases)
	accepted, failures := 0, 0
	rejections := map[string]int{}
	for i, res := range results {
		if !res.OK {
			msg, _, _ := strings.Cut(res.Error, "\n")
			rejections[clipString(msg, 60)]++
			continue
		}
		accepted++
		v, err := viewOf(t, convs[i], bodies[i])
		var problems []string
		if err != nil {
			problems = append(problems, fmt.Sprintf("the view stops: %v", err))
		}
		want, _ := json.Marshal(res.Messages)
		if got := v.MessagesJSON(); !sameJSONValue(got, want) {
			problems = append(problems, fmt.Sprintf("messages differ:\n  reference: %s\n  view:      %s", want, got))
		}
		if got := v.State(); !sameJSONValue(got, res.State) {
			problems = append(problems, fmt.Sprintf("state differs:\n  reference: %s\n  view:      %s", res.State, got))
		}
		if err := lookupsMatchJSON(v); err != nil {
			problems = append(problems, fmt.Sprintf("the view's lookups: %v", err))
		}
		if len(problems) > 0 {
			failures++
			if failures <= 5 {
				hist, _ := json.Marshal(convs[i].History)
				t.Errorf("conversation %d (seed %d):\n%s\nhistory: %s\nstate: %s\nbody:\n%s", i, viewSeed, strings.Join(problems, "\n"), hist, convs[i].State, bodies[i])
			}
		}
	}
	t.Logf("%d conversations: the reference accepts %d; the view agrees on %d of them", n, accepted, accepted-failures)
	if failures > 0 {
		t.Errorf("%d of %d accepted conversations disagree with HttpAgent", failures, accepted)
	}
	if accepted < least {
		t.Errorf("only %d conversations accepted by the reference, want at least %d; rejections: %v", accepted, least, rejections)
	}
}

func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// TestViewStopsWhereHTTPAgentFails: where the client's reducer itself
// fails the run (a patch copies an inherited method into the state, which
// structuredClone refuses), HttpAgent rejects the run and keeps what it
// held before that event; the view stops there with the same messages
// and state.
func TestViewStopsWhereHTTPAgentFails(t *testing.T) {
	dir := needOracle(t)
	events := []obj{
		{{"type", "RUN_STARTED"}, {"threadId", "t"}, {"runId", "r"}},
		{{"type", "TEXT_MESSAGE_START"}, {"messageId", "m"}, {"role", "assistant"}},
		{{"type", "TEXT_MESSAGE_CONTENT"}, {"messageId", "m"}, {"delta", "hi"}},
		{{"type", "TEXT_MESSAGE_END"}, {"messageId", "m"}},
		{{"type", "STATE_DELTA"}, {"delta", []any{obj{{"op", "add"}, {"path", "/n"}, {"value", 2}}}}},
		{{"type", "STATE_DELTA"}, {"delta", []any{obj{{"op", "copy"}, {"from", "/toString"}, {"path", "/f"}}}}},
		{{"type", "TEXT_MESSAGE_START"}, {"messageId", "m2"}, {"role", "assistant"}},
		{{"type", "TEXT_MESSAGE_END"}, {"messageId", "m2"}},
		{{"type", "RUN_FINISHED"}, {"threadId", "t"}, {"runId", "r"}},
	}
	body := sseBody(t, events)
	res := runHTTPAgent(t, dir, []httpCase{{Body: base64.StdEncoding.EncodeToString(body), Messages: json.RawMessage(`[]`), State: json.RawMessage(`{"n":1}`)}})[0]
	if res.OK {
		t.Fatalf("HttpAgent accepts the run; want it to fail at the copy")
	}
	v, err := viewOf(t, viewCase{State: json.RawMessage(`{"n":1}`)}, body)
	if err == nil || !strings.Contains(err.Error(), "event 6:") || !strings.Contains(err.Error(), "DataCloneError") {
		t.Errorf("the view: got error %v, want it to stop at event 6 with a DataCloneError", err)
	}
	want, _ := json.Marshal(res.Messages)
	if !sameJSONValue(v.MessagesJSON(), want) || !sameJSONValue(v.State(), res.State) {
		t.Errorf("after the failure:\n  client: %s %s\n  view:   %s %s", want, res.State, v.MessagesJSON(), v.State())
	}
}
