package agui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/internal/oracle"
)

// The differential test of the reference profile against the whole client:
// HttpAgent of @ag-ui/client 1.0.0, posting to a local server that answers
// with exactly the bytes of a generated response body (internal/oracle/
// httpagent.mjs), and this package reading the same bytes (Reader, then a
// Verifier with the Reference profile). The bodies are agent-like streams
// with ordering mistakes (gen_test.go), schema mutations (missing, wrong,
// null and extra fields, unknown event types, legacy THINKING_* events, bad
// JSON Patch, tagged unions with unknown members) and framing variants
// (CRLF, CR, comments, event:/id:/retry: lines, multi-line data, a byte
// order mark, no final blank line, frames run together). Both must accept
// and reject the same bodies, and a rejection must name the same stage and
// rule: the same field for a schema error, the same message for an
// ordering error.

const clientSeed = 20261201

// httpAgentResult is one line of httpagent.mjs's output.
type httpAgentResult struct {
	OK       bool              `json:"ok"`
	Error    string            `json:"error"`
	Name     string            `json:"name"`
	Issues   []zodIssue        `json:"issues"`
	Events   []string          `json:"events"`
	Messages []json.RawMessage `json:"messages"`
	State    json.RawMessage   `json:"state"`
	Warnings []string          `json:"warnings"`
}

type zodIssue struct {
	Code    string `json:"code"`
	Path    []any  `json:"path"`
	Message string `json:"message"`
}

// pointer returns the issue's path as a JSON Pointer.
func (z zodIssue) pointer() string {
	var b strings.Builder
	for _, p := range z.Path {
		b.WriteByte('/')
		switch p := p.(type) {
		case string:
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
		case float64:
			b.WriteString(strconv.FormatFloat(p, 'f', -1, 64))
		default:
			fmt.Fprint(&b, p)
		}
	}
	return b.String()
}

// httpCase is one response for httpagent.mjs.
type httpCase struct {
	Body        string          `json:"body"`
	Status      int             `json:"status,omitempty"`
	ContentType *string         `json:"contentType,omitempty"`
	Messages    json.RawMessage `json:"messages,omitempty"`
	State       json.RawMessage `json:"state,omitempty"`
	Tools       json.RawMessage `json:"tools,omitempty"`
	ThreadID    string          `json:"threadId,omitempty"`
	RunID       string          `json:"runId,omitempty"`
}

// runHTTPAgent runs HttpAgent on each body and returns its results.
func runHTTPAgent(t testing.TB, dir string, cases []httpCase) []httpAgentResult {
	t.Helper()
	inputs := make([][]byte, len(cases))
	for i, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		inputs[i] = b
	}
	return oracle.Run[httpAgentResult](t, dir, "httpagent.mjs", inputs)
}

// clientVerdict reads body as the client does and returns the first
// violation of the Reference profile (nil when the client would accept
// it). The response rules are left out: the reference client accepts an
// empty body, which aguitest never does.
func clientVerdict(body []byte) (*Violation, error) { return clientVerdictOf(ClientV100, body) }

// clientVerdictOf is clientVerdict for the given client version.
func clientVerdictOf(c Client, body []byte) (*Violation, error) {
	v := NewVerifier(Options{Profile: Reference, Client: c})
	if err := readInto(NewReader(bytes.NewReader(body), "body"), v); err != nil {
		return nil, err
	}
	v.Finish()
	return clientViolation(v), nil
}

// clientViolation returns the first of v's violations the client raises:
// any but the response rule no-events (the reference client accepts an
// empty body); nil when there is none.
func clientViolation(v *Verifier) *Violation {
	for _, vi := range v.Violations() {
		if vi.Rule != RuleNoEvents {
			return &vi
		}
	}
	return nil
}

// readInto reads r to its end into v as the client reads it, frames it
// cannot read included, and returns what made the input unreadable.
func readInto(r *Reader, v *Verifier) error {
	for {
		e, err := r.Next()
		if err == io.EOF {
			return nil
		}
		var fe *FrameError
		if errors.As(err, &fe) {
			v.PushFrame(fe)
			continue
		}
		if err != nil {
			return err
		}
		v.Push(e)
	}
}

var (
	uuidRE   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)
	mintedRE = regexp.MustCompile(mintedPrefix + `[0-9]+`)
)

// sameVerdict compares the client's result with ours.
func sameVerdict(ref httpAgentResult, ours *Violation) error {
	switch {
	case ref.OK && ours == nil:
		return nil
	case ref.OK:
		return fmt.Errorf("the client accepts; aguitest reports %v", ours)
	case ours == nil:
		return fmt.Errorf("the client rejects (%s: %s); aguitest accepts", ref.Name, ref.Error)
	}
	var want Rule
	switch {
	case ref.Name == "SyntaxError":
		want = RuleFrameJSON
	case ref.Name == "ZodError":
		want = RuleSchema
	case strings.HasPrefix(ref.Error, "Invalid event: the frame is not a JSON object"):
		want = RuleFrameObject
	case strings.HasPrefix(ref.Error, "Invalid event: the frame carries no event type"):
		want = RuleFrameType
	case strings.HasPrefix(ref.Error, "SSE buffer size exceeded"):
		want = RuleFrameSize
	}
	switch want {
	case "":
		// An ordering or chunk error: the same message, minted ids aside.
		got := mintedRE.ReplaceAllString(ours.Message, "<minted>")
		w := uuidRE.ReplaceAllString(ref.Error, "<minted>")
		if got != w {
			return fmt.Errorf("messages differ:\n  client:   %s\n  aguitest: %v", ref.Error, ours)
		}
	case RuleSchema:
		if ours.Rule != RuleSchema {
			return fmt.Errorf("the client's schema check fails at %s (%s); aguitest reports %v", ref.Issues[0].pointer(), ref.Issues[0].Message, ours)
		}
		if p := ref.Issues[0].pointer(); p != ours.Field || !strings.Contains(ours.Message, ref.Issues[0].Message) {
			return fmt.Errorf("schema issues differ:\n  client:   %s: %s\n  aguitest: %v (field %s)", p, ref.Issues[0].Message, ours, ours.Field)
		}
	default:
		if ours.Rule != want {
			return fmt.Errorf("the client fails with %s (%s: %s); aguitest reports %v", want, ref.Name, ref.Error, ours)
		}
	}
	return nil
}

func TestClientConformance(t *testing.T) {
	dir := needOracle(t)
	n := 5000
	if testing.Short() {
		n = 200
	}
	seed := uint64(clientSeed)
	if s := os.Getenv("AGUI_CLIENT_SEED"); s != "" {
		// A longer hunt: AGUI_CLIENT_SEED=N AGUI_CLIENT_N=50000 go test -run TestClientConformance
		seed, _ = strconv.ParseUint(s, 10, 64)
		n, _ = strconv.Atoi(os.Getenv("AGUI_CLIENT_N"))
	}
	bodies := make([][]byte, n)
	descs := make([]string, n)
	cases := make([]httpCase, n)
	for i := range bodies {
		bodies[i], descs[i] = genBody(seed, i)
		cases[i] = httpCase{Body: base64.StdEncoding.EncodeToString(bodies[i])}
	}
	results := runHTTPAgent(t, dir, cases)
	failures := 0
	accepted := 0
	removed := 0 // accepted bodies the client strips or drops something of
	byRule := map[Rule]int{}
	for i, res := range results {
		ours, err := clientVerdict(bodies[i])
		if err != nil {
			t.Errorf("body %d (%s): aguitest cannot read it: %v\nbody: %s", i, descs[i], err, clipBody(bodies[i]))
			continue
		}
		if res.OK {
			accepted++
		} else if ours != nil {
			byRule[ours.Rule]++
		}
		err = sameVerdict(res, ours)
		if err == nil && res.OK {
			var found bool
			found, err = sameRemovals(res, bodies[i])
			if found {
				removed++
			}
		}
		if err != nil {
			failures++
			if failures <= 15 {
				t.Errorf("body %d (seed %d; %s): %v\nbody: %s", i, seed, descs[i], err, clipBody(bodies[i]))
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d bodies disagree with HttpAgent", failures, n)
	}
	t.Logf("%d bodies: HttpAgent accepts %d (%d with material it drops or strips), rejects %d; first violations by rule: %v", n, accepted, removed, n-accepted, byRule)
	if n >= 5000 {
		if removed < 100 {
			t.Errorf("only %d accepted bodies with material the client drops or strips: the corpus does not exercise unknown-event and unknown-field", removed)
		}
		for _, r := range []Rule{RuleFrameJSON, RuleFrameObject, RuleFrameType, RuleSchema, RuleChunk, RuleFirstEvent,
			RuleMessageNotOpen, RuleToolCallNotOpen, RuleRunFinishedOpen, RuleReasoningNotOpen, RuleAfterRunFinished} {
			if byRule[r] == 0 {
				t.Errorf("the corpus never breaks rule %q first", r)
			}
		}
		if accepted < n/5 || n-accepted < n/5 {
			t.Errorf("corpus is unbalanced: %d accepted, %d rejected", accepted, n-accepted)
		}
	}
}

// genBody returns response body i of the corpus and what was done to it.
func genBody(seed uint64, i int) ([]byte, string) {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(i)))}
	s := genStream(seed^0x5eed, i)
	var what []string
	if g.chance(0.65) {
		var d string
		s, d = g.schemaMutate(s)
		what = append(what, d)
	}
	frames := make([][]byte, len(s))
	for j, e := range s {
		b, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		frames[j] = b
	}
	if g.chance(0.08) && len(frames) > 0 {
		// A frame whose data is not an event object.
		j := g.r.IntN(len(frames))
		bad := g.pick("hello", "null", "[1,2]", "42", `"RUN_STARTED"`, `{"type":""}`, `{"type":7}`, `{"ping":1}`, `{"type":"RUN_STARTED",}`, "{")
		frames = append(frames[:j], append([][]byte{[]byte(bad)}, frames[j:]...)...)
		what = append(what, "frame "+bad)
	}
	body, framing := g.frame(frames)
	what = append(what, framing)
	return body, strings.Join(what, "; ")
}

// frame writes events as SSE in one of the framings clients meet.
func (g *gen) frame(frames [][]byte) ([]byte, string) {
	var b bytes.Buffer
	kind := "lf"
	if g.chance(0.35) {
		kind = g.pick("crlf", "cr", "comments", "fields", "multiline", "bom", "open-end", "single-lf-end", "nospace", "indented", "blank-lines", "run-together", "empty-data")
	}
	if kind == "bom" {
		b.WriteString("\uFEFF")
	}
	for j, f := range frames {
		last := j == len(frames)-1
		switch kind {
		case "crlf":
			fmt.Fprintf(&b, "data: %s\r\n\r\n", f)
		case "cr":
			fmt.Fprintf(&b, "data: %s\r\r", f)
		case "comments":
			fmt.Fprintf(&b, ": keep-alive %d\n\ndata: %s\n\n", j, f)
		case "fields":
			fmt.Fprintf(&b, "event: message\nid: %d\nretry: 1000\ndata: %s\n\n", j, f)
		case "multiline":
			// Split after a comma: valid JSON again once joined with "\n",
			// unless the comma was inside a string.
			if k := bytes.IndexByte(f, ','); k > 0 && g.chance(0.7) {
				fmt.Fprintf(&b, "data: %s\ndata: %s\n\n", f[:k+1], f[k+1:])
			} else {
				fmt.Fprintf(&b, "data: %s\n\n", f)
			}
		case "open-end":
			if last {
				fmt.Fprintf(&b, "data: %s", f)
			} else {
				fmt.Fprintf(&b, "data: %s\n\n", f)
			}
		case "single-lf-end":
			if last {
				fmt.Fprintf(&b, "data: %s\n", f)
			} else {
				fmt.Fprintf(&b, "data: %s\n\n", f)
			}
		case "nospace":
			fmt.Fprintf(&b, "data:%s\n\n", f)
		case "indented":
			if g.chance(0.2) {
				fmt.Fprintf(&b, " data: %s\n\n", f) // not a data line: the event is lost
			} else {
				fmt.Fprintf(&b, "data: %s\n\n", f)
			}
		case "blank-lines":
			fmt.Fprintf(&b, "\n\n\ndata: %s\n\n\n", f)
		case "run-together":
			if g.chance(0.15) {
				fmt.Fprintf(&b, "data: %s\n", f) // no blank line after it
			} else {
				fmt.Fprintf(&b, "data: %s\n\n", f)
			}
		case "empty-data":
			fmt.Fprintf(&b, "data:\n\ndata: %s\n\n", f)
		default:
			fmt.Fprintf(&b, "data: %s\n\n", f)
		}
	}
	return b.Bytes(), "framing " + kind
}

// schemaMutate breaks or bends one event's shape.
func (g *gen) schemaMutate(s []obj) ([]obj, string) {
	s = append([]obj(nil), s...)
	if len(s) == 0 {
		return s, "empty"
	}
	i := g.r.IntN(len(s))
	e := s[i]
	fields := func() []string {
		var out []string
		for _, p := range e {
			if p.k != "type" {
				out = append(out, p.k)
			}
		}
		return out
	}
	wrong := []any{1, 1.5, "x", true, nil, []any{}, map[string]any{}}
	switch k := g.r.IntN(20); k {
	case 0: // drop a field
		if fs := fields(); len(fs) > 0 {
			f := fs[g.r.IntN(len(fs))]
			s[i] = e.del(f)
			return s, fmt.Sprintf("event %d: dropped %s", i, f)
		}
	case 1, 2: // a wrong value
		if fs := fields(); len(fs) > 0 {
			f := fs[g.r.IntN(len(fs))]
			w := wrong[g.r.IntN(len(wrong))]
			s[i] = e.set(f, w)
			return s, fmt.Sprintf("event %d: %s = %v", i, f, w)
		}
	case 3: // an unknown field
		s[i] = e.set(g.pick("extra", "toString", "__meta", "providerData"), g.pick("x", "y"))
		return s, fmt.Sprintf("event %d: unknown field", i)
	case 4: // an unknown event type
		u := obj{{"type", g.pick("CUSTOM_PROGRESS", "text_message_content", "PING", "TOOL_CALL_PROGRESS")}, {"messageId", "m_1"}}
		s = append(s[:i], append([]obj{u}, s[i:]...)...)
		return s, fmt.Sprintf("unknown type at %d", i)
	case 5: // optional fields sent as null
		f := g.pick("rawEvent", "parentMessageId", "outcome", "result", "timestamp", "metadata", "role", "name", "code", "input")
		s[i] = e.set(f, nil)
		return s, fmt.Sprintf("event %d: %s = null", i, f)
	case 6: // timestamps
		ts := []any{1700000000000, 1.5, "1700000000000", -1, json.Number("9007199254740993"), json.Number("1e3"), json.Number("1e400"), json.Number("-0")}
		w := ts[g.r.IntN(len(ts))]
		s[i] = e.set("timestamp", w)
		return s, fmt.Sprintf("event %d: timestamp %v", i, w)
	case 7: // JSON Patch
		ops := []any{
			map[string]any{"op": "add", "path": "/a", "value": 1},
			map[string]any{"op": "frob", "path": "/a"},
			map[string]any{"op": "add", "path": "a", "value": 1},
			map[string]any{"op": "add", "path": "/a"},
			map[string]any{"op": "remove", "path": "/a", "value": 1},
			map[string]any{"op": "replace", "path": "/a~2", "value": 1},
			map[string]any{"op": "move", "from": "/a", "path": "/b"},
			map[string]any{"op": "copy", "path": "/b"},
			map[string]any{"op": "test", "path": "", "value": nil},
			map[string]any{"path": "/a"},
			"add",
		}
		var delta any = []any{ops[g.r.IntN(len(ops))], ops[g.r.IntN(len(ops))]}
		if g.chance(0.2) {
			delta = ops[g.r.IntN(len(ops))]
		}
		d := obj{{"type", string(StateDelta)}, {"delta", delta}}
		s = append(s[:i], append([]obj{d}, s[i:]...)...)
		return s, fmt.Sprintf("STATE_DELTA at %d: %v", i, delta)
	case 8: // tool results' content
		contents := []any{
			"done",
			[]any{map[string]any{"type": "text", "text": "ok"}},
			[]any{map[string]any{"type": "hologram", "x": 1}, map[string]any{"type": "text", "text": "ok"}},
			[]any{map[string]any{"type": "text"}},
			[]any{map[string]any{"type": "image", "source": map[string]any{"type": "data", "value": "AA", "mimeType": "image/png"}, "metadata": nil}},
			[]any{map[string]any{"type": "image", "source": map[string]any{"type": "ftp", "value": "x"}}},
			[]any{map[string]any{"type": "image", "source": map[string]any{"type": "url"}}},
			7,
			map[string]any{"type": "text", "text": "ok"},
		}
		c := contents[g.r.IntN(len(contents))]
		r := obj{{"type", string(ToolCallResult)}, {"messageId", "res_1"}, {"toolCallId", "call_1"}, {"content", c}}
		if g.chance(0.3) {
			r = r.set("role", g.pick("tool", "assistant"))
		}
		s = append(s[:i], append([]obj{r}, s[i:]...)...)
		return s, fmt.Sprintf("TOOL_CALL_RESULT at %d: %v", i, c)
	case 9: // a messages snapshot
		msgs := []any{
			obj{{"id", "u_1"}, {"role", "user"}, {"content", "hi"}},
			obj{{"id", "x_1"}, {"role", "narrator"}, {"content", "dropped"}},
			obj{{"id", "a_1"}, {"role", "assistant"}, {"toolCalls", []any{obj{{"id", "c_1"}, {"type", "function"}, {"function", obj{{"name", "x"}}}}}}},
			obj{{"id", "u_2"}, {"role", "user"}, {"content", []any{obj{{"type", "binary"}, {"mimeType", "image/png"}, {"data", "AA"}}}}},
			obj{{"id", "t_1"}, {"role", "tool"}, {"content", "ok"}},
			obj{{"id", "r_1"}, {"role", "reasoning"}, {"content", "hm"}, {"extra", 1}},
			obj{{"id", 5}, {"role", "user"}, {"content", "x"}},
		}
		var list []any
		for range 1 + g.r.IntN(3) {
			list = append(list, msgs[g.r.IntN(len(msgs))])
		}
		m := obj{{"type", string(MessagesSnapshot)}, {"messages", list}}
		s = append(s[:i], append([]obj{m}, s[i:]...)...)
		return s, fmt.Sprintf("MESSAGES_SNAPSHOT at %d", i)
	case 10: // run outcomes
		outs := []any{
			map[string]any{"type": "weird"},
			map[string]any{"type": "interrupt", "interrupts": []any{}},
			map[string]any{"type": "interrupt", "interrupts": []any{map[string]any{"id": "i1", "reason": "approve"}}},
			map[string]any{"type": "success", "pendingToolCallIds": []any{1}},
			map[string]any{"type": "cancelled", "extra": true},
			"success",
		}
		for j := range s {
			if t, _ := s[j].get("type"); t == string(RunFinished) {
				o := outs[g.r.IntN(len(outs))]
				s[j] = s[j].set("outcome", o)
				return s, fmt.Sprintf("event %d: outcome %v", j, o)
			}
		}
	case 11, 12: // legacy THINKING events, with or without their openers
		var legacy []obj
		switch g.r.IntN(4) {
		case 0:
			legacy = []obj{{{"type", "THINKING_START"}, {"title", "plan"}}, {{"type", "THINKING_TEXT_MESSAGE_START"}},
				{{"type", "THINKING_TEXT_MESSAGE_CONTENT"}, {"delta", "hmm"}}, {{"type", "THINKING_TEXT_MESSAGE_END"}}, {{"type", "THINKING_END"}}}
		case 1:
			legacy = []obj{{{"type", "THINKING_TEXT_MESSAGE_CONTENT"}, {"delta", "orphan"}}}
		case 2:
			legacy = []obj{{{"type", "THINKING_START"}}, {{"type", "THINKING_TEXT_MESSAGE_START"}}, {{"type", "THINKING_TEXT_MESSAGE_CONTENT"}}, {{"type", "THINKING_END"}}}
		default:
			legacy = []obj{{{"type", "THINKING_END"}}}
		}
		s = append(s[:i], append(legacy, s[i:]...)...)
		return s, fmt.Sprintf("THINKING at %d", i)
	case 13: // the type itself
		t := []any{nil, "", 3, "run_started"}[g.r.IntN(4)]
		if t == nil {
			s[i] = e.del("type")
		} else {
			s[i] = e.set("type", t)
		}
		return s, fmt.Sprintf("event %d: type %v", i, t)
	case 14: // text roles
		for j := range s {
			if t, _ := s[j].get("type"); t == string(TextMessageStart) || t == string(TextMessageChunk) {
				r := g.pick("tool", "user", "system", "developer", "reasoning", "")
				s[j] = s[j].set("role", r)
				return s, fmt.Sprintf("event %d: role %q", j, r)
			}
		}
	case 15: // a RUN_STARTED input
		ins := []any{
			obj{{"threadId", "t"}, {"runId", "r"}, {"messages", []any{}}},
			obj{{"threadId", "t"}, {"runId", "r"}},
			obj{{"threadId", "t"}, {"runId", "r"}, {"messages", []any{}}, {"tools", []any{obj{{"name", "x"}, {"description", "d"}, {"parameters", nil}}}}, {"forwardedProps", nil}},
			obj{{"threadId", "t"}, {"runId", "r"}, {"messages", []any{}}, {"state", nil}},
			obj{{"threadId", "t"}, {"runId", "r"}, {"messages", []any{}}, {"tools", []any{obj{{"name", "x"}}}}},
			obj{{"threadId", "t"}, {"runId", "r"}, {"messages", []any{obj{{"id", "u"}, {"role", "user"}, {"content", []any{obj{{"type", "audio"}, {"source", obj{{"type", "url"}, {"value", "http://a"}}}, {"metadata", nil}}}}}}}},
		}
		for j := range s {
			if t, _ := s[j].get("type"); t == string(RunStarted) {
				in := ins[g.r.IntN(len(ins))]
				s[j] = s[j].set("input", in)
				return s, fmt.Sprintf("event %d: input", j)
			}
		}
	case 16: // nested unknown fields
		if t, _ := e.get("type"); t == string(RunFinished) {
			s[i] = e.set("outcome", map[string]any{"type": "success", "note": "x"})
		} else {
			s[i] = e.set("metadata", map[string]any{"anything": []any{1, nil}})
		}
		return s, fmt.Sprintf("event %d: nested extra", i)
	case 17: // activity
		a := []obj{
			{{"type", string(ActivitySnapshot)}, {"messageId", "act_9"}, {"activityType", "plan"}, {"content", g.pick("x", "")}},
			{{"type", string(ActivitySnapshot)}, {"messageId", "act_9"}, {"activityType", "plan"}, {"content", []any{}}},
			{{"type", string(ActivityDelta)}, {"messageId", "act_9"}, {"activityType", "plan"}, {"patch", map[string]any{}}},
			{{"type", string(ActivitySnapshot)}, {"messageId", "act_9"}, {"activityType", "plan"}, {"content", map[string]any{}}, {"replace", "yes"}},
		}
		x := a[g.r.IntN(len(a))]
		s = append(s[:i], append([]obj{x}, s[i:]...)...)
		return s, fmt.Sprintf("activity at %d", i)
	case 18: // encrypted values and subagent events
		x := []obj{
			{{"type", string(ReasoningEncryptedValue)}, {"subtype", "thought"}, {"entityId", "m_1"}, {"encryptedValue", "e"}},
			{{"type", string(SubagentStarted)}, {"subagentRunId", "sub_9"}},
			{{"type", string(SubagentFinished)}, {"subagentRunId", "sub_9"}, {"outcome", map[string]any{"type": "suspended", "interruptIds": []any{1}}}},
			{{"type", string(RunError)}},
			{{"type", string(Custom)}, {"name", "n"}},
			{{"type", string(Raw)}},
		}[g.r.IntN(6)]
		s = append(s[:i], append([]obj{x}, s[i:]...)...)
		return s, fmt.Sprintf("shape at %d", i)
	default: // a chunk with odd fields
		c := obj{{"type", g.pick(string(TextMessageChunk), string(ToolCallChunk), string(ReasoningMessageChunk))}, {"delta", g.pick("x", "")}}
		if g.chance(0.5) {
			c = c.set("messageId", g.pick("m_1", "m_77")).set("toolCallId", "call_77").set("toolCallName", "x")
		}
		if g.chance(0.3) {
			c = c.set("parentMessageId", nil)
		}
		s = append(s[:i], append([]obj{c}, s[i:]...)...)
		return s, fmt.Sprintf("chunk at %d", i)
	}
	return s, "unchanged"
}

// clipBody quotes the start of a body for a failure message.
func clipBody(b []byte) string {
	if len(b) > 1500 {
		return strconv.Quote(string(b[:1500])) + "..."
	}
	return strconv.Quote(string(b))
}

// TestClientConformanceEdges runs hand-made bodies at the edges of the
// client's reading through both sides.
func TestClientConformanceEdges(t *testing.T) {
	dir := needOracle(t)
	bodies := edgeBodies()
	var names []string
	var cases []httpCase
	for name, b := range bodies {
		names = append(names, name)
		cases = append(cases, httpCase{Body: base64.StdEncoding.EncodeToString([]byte(b))})
	}
	results := runHTTPAgent(t, dir, cases)
	for i, res := range results {
		body := []byte(bodies[names[i]])
		ours, err := clientVerdict(body)
		if err != nil {
			t.Errorf("%s: aguitest cannot read it: %v", names[i], err)
			continue
		}
		if err := sameVerdict(res, ours); err != nil {
			t.Errorf("%s: %v\nbody: %q", names[i], err, body)
		}
	}
}

// edgeBodies are hand-made bodies at the edges of the client's reading.
func edgeBodies() map[string]string {
	const (
		start  = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
		finish = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	)
	sse := func(frames ...string) string {
		var b strings.Builder
		for _, f := range frames {
			b.WriteString("data: " + f + "\n\n")
		}
		return b.String()
	}
	return map[string]string{
		"invalid utf-8 in a delta":       sse(start, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`, "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"a\xff\xfe\xe2\x82b\"}", `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, finish),
		"invalid utf-8 in an id":         sse(start, "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\xc3\"}", "{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\xc3\"}", finish),
		"invalid utf-8 splits ids":       sse(start, "{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\xe2\x82\"}", "{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\xe2\"}", finish),
		"lone surrogate escapes":         sse(start, `{"type":"TEXT_MESSAGE_START","messageId":"\ud800"}`, `{"type":"TEXT_MESSAGE_END","messageId":"\udc00"}`, finish),
		"duplicate keys, last wins":      sse(start, `{"type":"TEXT_MESSAGE_START","messageId":"a","messageId":"b"}`, `{"type":"TEXT_MESSAGE_END","messageId":"b"}`, finish),
		"duplicate type":                 sse(start, `{"type":"TEXT_MESSAGE_END","type":"CUSTOM","name":"x","value":1}`, finish),
		"__proto__ key":                  sse(start, `{"type":"CUSTOM","name":"x","value":1,"__proto__":{"a":1}}`, finish),
		"constructor key":                sse(start, `{"type":"CUSTOM","name":"x","value":1,"constructor":5}`, finish),
		"hasOwnProperty in metadata":     sse(start, `{"type":"CUSTOM","name":"x","value":1,"metadata":{"hasOwnProperty":1}}`, finish),
		"deep value":                     sse(start, `{"type":"CUSTOM","name":"x","value":`+strings.Repeat("[", 500)+strings.Repeat("]", 500)+`}`, finish),
		"big integers":                   sse(start, `{"type":"CUSTOM","name":"x","value":123456789012345678901234567890,"timestamp":9007199254740991}`, finish),
		"timestamp 2^53":                 sse(start, `{"type":"CUSTOM","name":"x","value":1,"timestamp":9007199254740992}`, finish),
		"timestamp -2^53":                sse(start, `{"type":"CUSTOM","name":"x","value":1,"timestamp":-9007199254740992}`, finish),
		"timestamp 1.0":                  sse(start, `{"type":"CUSTOM","name":"x","value":1,"timestamp":1.0}`, finish),
		"timestamp 1e2":                  sse(start, `{"type":"CUSTOM","name":"x","value":1,"timestamp":1E2}`, finish),
		"timestamp -0":                   sse(start, `{"type":"CUSTOM","name":"x","value":1,"timestamp":-0}`, finish),
		"bom mid-stream":                 "data: " + start + "\n\n\uFEFFdata: " + finish + "\n\n",
		"bom then crlf":                  "\uFEFFdata: " + start + "\r\n\r\n",
		"two spaces after data":          "data:  " + start + "\n\n",
		"data without colon":             "data\ndata: " + start + "\n\n",
		"tab after data":                 "data:\t" + start + "\n\n",
		"only comments":                  ": hello\n\n: world\n\n",
		"empty body":                     "",
		"only blank lines":               "\n\n\n\n",
		"cr only body":                   "data: " + start + "\rdata: " + finish + "\r\r",
		"crlf single event":              "data: " + start + "\r\n\r\n",
		"lf then crlf":                   "data: " + start + "\n\ndata: " + finish + "\r\n\r\n",
		"null frame":                     sse(start, "null", finish),
		"type empty":                     sse(start, `{"type":""}`, finish),
		"type number":                    sse(start, `{"type":1}`, finish),
		"legacy thinking with messageId": sse(start, `{"type":"THINKING_TEXT_MESSAGE_START","messageId":"mine"}`, `{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x","messageId":"mine"}`, `{"type":"THINKING_TEXT_MESSAGE_END"}`, finish),
		"legacy thinking content first":  sse(start, `{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x"}`, finish),
		"legacy thinking end first":      sse(start, `{"type":"THINKING_END","messageId":"x"}`, finish),
		"legacy thinking title":          sse(start, `{"type":"THINKING_START","title":7}`, `{"type":"THINKING_END"}`, finish),
		"legacy thinking no delta":       sse(start, `{"type":"THINKING_TEXT_MESSAGE_START"}`, `{"type":"THINKING_TEXT_MESSAGE_CONTENT"}`, `{"type":"THINKING_TEXT_MESSAGE_END"}`, finish),
		"result null on finish":          sse(start, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":null,"outcome":null,"rawEvent":null}`),
		"snapshot binary with id only":   sse(start, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"binary","mimeType":"image/png","id":"f1"}]}]}`, finish),
		"snapshot binary with url":       sse(start, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"binary","mimeType":"text/plain","url":"http://x","filename":"a.txt"}]}]}`, finish),
		"snapshot binary mirrored":       sse(start, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"binary","mimeType":"image/png","data":"AA"},{"type":"image","source":{"type":"data","value":"AA","mimeType":"image/png"}}]}]}`, finish),
		"snapshot media metadata null":   sse(start, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"image","source":{"type":"url","value":"http://x"},"metadata":null}]}]}`, finish),
		"snapshot text metadata null":    sse(start, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"text","text":"x","metadata":null}]}]}`, finish),
		"input resume payload null":      sse(`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"resolved","payload":null}]}}`, finish),
		"input resume bad status":        sse(`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"maybe"}]}}`, finish),
		"input context":                  sse(`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"context":[{"description":"d"}]}}`, finish),
		"tool result with image":         sse(start, `{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"x"}`, `{"type":"TOOL_CALL_END","toolCallId":"c"}`, `{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c","content":[{"type":"image","source":{"type":"file","value":"f","provider":"openai"}},{"type":"document","source":{"type":"data","value":"x"}}]}`, finish),
		"delta with unknown op member":   sse(start, `{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a","from":3,"extra":true}]}`, finish),
		"delta pointer tilde":            sse(start, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a~0b~1c/~","value":1}]}`, finish),
		"escaped keys":                   sse(start, `{"type":"TEXT_MESSAGE_START","message\u0049d":"m"}`, `{"typ\u0065":"TEXT_MESSAGE_END","messageId":"m"}`, finish),
		"escaped type value":             sse(start, `{"type":"TEXT_MESSAGE_ST\u0041RT","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, finish),
		"chunk then unknown type":        sse(start, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}`, `{"type":"PING"}`, `{"type":"TEXT_MESSAGE_CHUNK","delta":"b"}`, finish),
		"chunk parentMessageId null":     sse(start, `{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"x","parentMessageId":null,"delta":"{}"}`, finish),
		"chunk with extra field":         sse(start, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a","extra":1}`, finish),
		"subagent finished result null":  sse(start, `{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}`, `{"type":"SUBAGENT_FINISHED","subagentRunId":"s","result":null}`, finish),
		"run error no message":           sse(start, `{"type":"RUN_ERROR","code":"x"}`),
		"activity replace string":        sse(start, `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{},"replace":"no"}`, finish),
		"whitespace around json":         "data:   \t" + start + " \t \n\n",
	}
}
