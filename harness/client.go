package harness

import (
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/aguitest/aguitest/agui"
)

// conversation is the client side of a case: the messages and state an
// AG-UI client assembles from the events it receives, as the next request
// carries them back to the agent.
type conversation struct {
	messages []agui.Message
	state    json.RawMessage
	byID     map[string]int // message id -> index
	callMsg  map[string]int // tool call id -> index of the message holding it
	callIdx  map[string]int // tool call id -> index in that message's ToolCalls
}

func newConversation(msgs []agui.Message, state json.RawMessage) *conversation {
	c := &conversation{state: state}
	c.reset(msgs)
	return c
}

func (c *conversation) reset(msgs []agui.Message) {
	c.messages = nil
	c.byID = map[string]int{}
	c.callMsg = map[string]int{}
	c.callIdx = map[string]int{}
	for _, m := range msgs {
		c.add(m)
	}
}

func (c *conversation) add(m agui.Message) int {
	i := len(c.messages)
	c.messages = append(c.messages, m)
	if m.ID != "" {
		c.byID[m.ID] = i
	}
	for j, tc := range m.ToolCalls {
		c.callMsg[tc.ID] = i
		c.callIdx[tc.ID] = j
	}
	return i
}

// apply updates the conversation with one (expanded) event. It returns an
// error for an event the client cannot apply, such as a STATE_DELTA that
// does not patch the state.
func (c *conversation) apply(e agui.Event) error {
	switch e.Type() {
	case agui.TextMessageStart:
		id := e.MessageID()
		if _, ok := c.byID[id]; !ok {
			role := agui.Role(e.Role())
			if role == "" {
				role = agui.RoleAssistant
			}
			c.add(agui.Message{ID: id, Role: role})
		}
	case agui.TextMessageContent:
		if i, ok := c.byID[e.MessageID()]; ok {
			c.messages[i].Content.Text += e.Delta()
		}
	case agui.ToolCallStart:
		parent := e.ParentMessageID()
		i, ok := c.byID[parent]
		if !ok || parent == "" {
			// A call without a known parent gets its own assistant
			// message, as clients do.
			id := parent
			if id == "" {
				id = e.ToolCallID()
			}
			i = c.add(agui.Message{ID: id, Role: agui.RoleAssistant})
		}
		m := &c.messages[i]
		m.ToolCalls = append(m.ToolCalls, agui.NewToolCall(e.ToolCallID(), e.ToolCallName(), ""))
		c.callMsg[e.ToolCallID()] = i
		c.callIdx[e.ToolCallID()] = len(m.ToolCalls) - 1
	case agui.ToolCallArgs:
		if i, ok := c.callMsg[e.ToolCallID()]; ok {
			tc := &c.messages[i].ToolCalls[c.callIdx[e.ToolCallID()]]
			tc.Function.Arguments += e.Delta()
		}
	case agui.ToolCallResult:
		content := ""
		if raw, ok := e.Field("content"); ok {
			if err := json.Unmarshal(raw, &content); err != nil {
				content = string(raw) // content parts: keep their JSON
			}
		}
		id := e.MessageID()
		if id == "" {
			id = e.ToolCallID() + "-result"
		}
		c.add(agui.ToolMessage(id, e.ToolCallID(), content))
	case agui.ReasoningMessageStart:
		if _, ok := c.byID[e.MessageID()]; !ok {
			c.add(agui.Message{ID: e.MessageID(), Role: agui.RoleReasoning})
		}
	case agui.ReasoningMessageContent:
		if i, ok := c.byID[e.MessageID()]; ok {
			c.messages[i].Content.Text += e.Delta()
		}
	case agui.ReasoningEncryptedValue:
		// A provider's opaque artefact (a thinking signature) on a message
		// or a call, carried back in the next request as clients do.
		var v struct{ Subtype, EntityID, EncryptedValue string }
		if err := json.Unmarshal([]byte(e.String()), &v); err != nil {
			return fmt.Errorf("REASONING_ENCRYPTED_VALUE: %w", err)
		}
		if v.Subtype == "tool-call" {
			if i, ok := c.callMsg[v.EntityID]; ok {
				c.messages[i].ToolCalls[c.callIdx[v.EntityID]].EncryptedValue = v.EncryptedValue
			}
		} else if i, ok := c.byID[v.EntityID]; ok {
			c.messages[i].EncryptedValue = v.EncryptedValue
		}
	case agui.StateSnapshot:
		raw, _ := e.Field("snapshot")
		c.state = append(json.RawMessage(nil), raw...)
	case agui.StateDelta:
		raw, _ := e.Field("delta")
		patch, err := jsonpatch.DecodePatch(raw)
		if err != nil {
			return fmt.Errorf("STATE_DELTA is not a JSON Patch: %w", err)
		}
		doc := c.state
		if len(doc) == 0 || string(doc) == "null" {
			doc = json.RawMessage("{}")
		}
		out, err := patch.Apply(doc)
		if err != nil {
			return fmt.Errorf("STATE_DELTA does not apply to the state: %w", err)
		}
		c.state = out
	case agui.MessagesSnapshot:
		raw, _ := e.Field("messages")
		var msgs []agui.Message
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return fmt.Errorf("MESSAGES_SNAPSHOT: %w", err)
		}
		c.reset(msgs)
	}
	return nil
}

// copyMessages returns the messages, deep enough that later changes to the
// conversation do not show through.
func (c *conversation) copyMessages() []agui.Message {
	out := make([]agui.Message, len(c.messages))
	for i, m := range c.messages {
		m.ToolCalls = append([]agui.ToolCall(nil), m.ToolCalls...)
		out[i] = m
	}
	return out
}
