package agui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aguitest/aguitest/internal/jsonpatch"
)

// FuzzApplyPatch applies arbitrary patches to arbitrary documents. Nothing
// may panic; a result is one JSON value, and the same patch on the same
// document gives the same result.
func FuzzApplyPatch(f *testing.F) {
	f.Add([]byte(`{"a":[1,2]}`), []byte(`[{"op":"move","from":"/a/0","path":"/a/-"}]`))
	f.Add([]byte(`{}`), []byte(`[{"op":"move","from":"","path":"/x"},{"op":"remove","path":"/x"}]`))
	f.Add([]byte(`"abc"`), []byte(`[{"op":"copy","from":"/length","path":"/0"}]`))
	f.Add([]byte(`{"a":{}}`), []byte(`[{"op":"test","path":"/a","value":{"hasOwnProperty":1}}]`))
	f.Add([]byte(`[[]]`), []byte(`[{"op":"add","path":"/0/4294967295","value":1e400}]`))
	g := patchGen{rand.New(rand.NewPCG(1, 2))}
	for range 30 {
		doc := g.value(3)
		d, _ := json.Marshal(doc)
		p, _ := json.Marshal(g.patch(doc))
		f.Add(d, p)
	}
	f.Fuzz(func(t *testing.T, doc, patch []byte) {
		got, err := jsonpatch.Apply(doc, patch)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if !json.Valid(got) {
			t.Fatalf("ApplyPatch gave invalid JSON %q", got)
		}
		again, err := jsonpatch.Apply(doc, patch)
		if err != nil || !bytes.Equal(got, again) {
			t.Fatalf("not deterministic: %s, then %s, %v", got, again, err)
		}
	})
}

// FuzzView applies arbitrary event sequences (one JSON object per line) to
// a view with a history. Nothing may panic, and the messages and state are
// always JSON.
func FuzzView(f *testing.F) {
	for i := range 30 {
		var b bytes.Buffer
		for _, e := range genConversation(viewSeed, i).Events {
			j, _ := json.Marshal(e)
			b.Write(j)
			b.WriteByte('\n')
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"type":"STATE_DELTA","delta":[{"op":"move","from":"","path":"/a"}]}` + "\n" + `{"type":"STATE_SNAPSHOT","snapshot":1}`))
	f.Add([]byte(`{"type":"ACTIVITY_SNAPSHOT","messageId":"u1","activityType":"x","content":null,"replace":false}` + "\n" + `{"type":"ACTIVITY_DELTA","messageId":"a1","patch":[{"op":"copy","from":"/toString","path":"/t"}]}`))
	f.Add([]byte(`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u1","role":"user"},{"id":"u1","role":"user"},7,null],"metadata":{"@ag-ui/client":{"authoritativeActivityTypes":null}}}` + "\n" + `{"type":"TEXT_MESSAGE_CONTENT","messageId":"u1","delta":"\ud83d"}`))
	f.Add([]byte(`{"type":"TOOL_CALL_START","toolCallId":"c9","toolCallName":1,"parentMessageId":"u1"}` + "\n" + `{"type":"TOOL_CALL_ARGS","toolCallId":"c9","delta":{}}` + "\n" + `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c9","encryptedValue":[1]}`))
	history := []Message{
		UserMessage("u1", "hi"),
		AssistantMessage("a1", "", NewToolCall("c1", "f", "{}")),
		ToolMessage("t1", "c1", "ok"),
		{ID: "act1", Role: RoleActivity, ActivityType: "plan", Activity: json.RawMessage(`{"s":[1]}`)},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v := NewView(RunAgentInput{Messages: history, State: json.RawMessage(`{"n":[0]}`)})
		for _, line := range bytes.Split(data, []byte("\n")) {
			if e, err := ParseEvent(line); err == nil {
				if err := v.Apply(e); err != nil && err.Error() == "" {
					t.Fatal("empty error")
				}
				if err := indexCurrent(v); err != nil {
					t.Fatalf("after %s: %v", e.Type(), err)
				}
			}
		}
		if m := v.MessagesJSON(); !json.Valid(m) {
			t.Fatalf("MessagesJSON is not JSON: %q", m)
		}
		if err := lookupsMatchJSON(v); err != nil {
			t.Fatal(err)
		}
		if s := v.State(); !json.Valid(s) {
			t.Fatalf("State is not JSON: %q", s)
		}
		_ = v.Messages()
		v.AddMessages(UserMessage("u9", "next"))
		if !json.Valid([]byte(v.String())) {
			t.Fatalf("String is not JSON: %q", v.String())
		}
	})
}

// indexCurrent reports where a valid index of v, kept up to date as
// messages and calls are added (messages appended at the end are indexed
// when it is next read), differs from one built afresh.
func indexCurrent(v *View) error {
	if !v.index.valid {
		return nil
	}
	v.grow()
	if v.index.n != len(v.msgs) {
		return fmt.Errorf("the index covers %d messages of %d", v.index.n, len(v.msgs))
	}
	fresh := (&View{msgs: v.msgs}).indexed()
	if err := sameRefs("messages", fresh.msgs.flat(), v.index.msgs.flat(), func(a, b int) bool { return a == b }); err != nil {
		return err
	}
	same := func(a, b callRef) bool { return a == b }
	if err := sameRefs("calls", fresh.calls.flat(), v.index.calls.flat(), same); err != nil {
		return err
	}
	return sameRefs("assistants' calls", fresh.assistants.flat(), v.index.assistants.flat(), same)
}

// flat returns the ids of m in one map.
func (m idMap[V]) flat() map[any]V {
	out := map[any]V{}
	for k, v := range m.str {
		out[k] = v
	}
	for k, v := range m.other {
		out[k] = v
	}
	return out
}

func sameRefs[V any](what string, want, got map[any]V, eq func(a, b V) bool) error {
	n := 0
	for k, w := range want {
		if f, ok := k.(float64); ok && f != f {
			continue // NaN finds nothing
		}
		n++
		g, ok := got[k]
		if !ok || !eq(w, g) {
			return fmt.Errorf("%s: id %v: index holds %v (%v), want %v", what, k, g, ok, w)
		}
	}
	for k := range got {
		if f, ok := k.(float64); ok && f != f {
			continue
		}
		n--
	}
	if n != 0 {
		return fmt.Errorf("%s: the index holds %d ids too many", what, -n)
	}
	return nil
}

// lookupsMatchJSON reports where the view's lookups (MessageContent,
// MessageCallIDs, CallOwner, CallArguments) differ from what a program
// reads from MessagesJSON decoded into Go values, for every id in it and
// a few that are not.
func lookupsMatchJSON(v *View) error {
	var list []map[string]any
	if err := json.Unmarshal(v.MessagesJSON(), &list); err != nil {
		return err
	}
	byID, owner := map[string]map[string]any{}, map[string]string{}
	ids, callIDs := []string{"", "absent", "\uFFFD"}, []string{"", "absent", "\uFFFD"}
	for _, m := range list {
		id, _ := m["id"].(string)
		ids = append(ids, id)
		if _, dup := byID[id]; !dup {
			byID[id] = m
		}
		calls, _ := m["toolCalls"].([]any)
		for _, x := range calls {
			if call, ok := x.(map[string]any); ok {
				if cid, ok := call["id"].(string); ok {
					callIDs = append(callIDs, cid)
					if _, dup := owner[cid]; !dup {
						owner[cid] = id
					}
				}
			}
		}
	}
	for _, id := range ids {
		want, wantOK := byID[id]["content"].(string)
		if got, ok := v.MessageContent(id); got != want || ok != wantOK {
			return fmt.Errorf("MessageContent(%q): got %q, %v, want %q, %v", id, got, ok, want, wantOK)
		}
		var wantCalls []string
		list, _ := byID[id]["toolCalls"].([]any)
		for _, x := range list {
			if call, ok := x.(map[string]any); ok {
				if cid, ok := call["id"].(string); ok {
					wantCalls = append(wantCalls, cid)
				}
			}
		}
		if got := v.MessageCallIDs(id); fmt.Sprint(got) != fmt.Sprint(wantCalls) {
			return fmt.Errorf("MessageCallIDs(%q): got %q, want %q", id, got, wantCalls)
		}
	}
	for _, cid := range callIDs {
		wantOwner, wantOK := owner[cid]
		if got, ok := v.CallOwner(cid); got != wantOwner || ok != wantOK {
			return fmt.Errorf("CallOwner(%q): got %q, %v, want %q, %v", cid, got, ok, wantOwner, wantOK)
		}
		var want string
		var wantArgs bool
		calls, _ := byID[owner[cid]]["toolCalls"].([]any)
		for _, x := range calls {
			call, _ := x.(map[string]any)
			if call["id"] == cid {
				fn, _ := call["function"].(map[string]any)
				want, wantArgs = fn["arguments"].(string)
				break
			}
		}
		if got, ok := v.CallArguments(cid); got != want || ok != wantArgs {
			return fmt.Errorf("CallArguments(%q): got %q, %v, want %q, %v", cid, got, ok, want, wantArgs)
		}
	}
	return nil
}
