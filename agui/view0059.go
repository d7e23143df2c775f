package agui

import (
	"fmt"

	"github.com/aguitest/aguitest/internal/jsvalue"
	"github.com/aguitest/aguitest/internal/schema"
)

// NewClientView is NewView for the frontend of client version c: Apply
// then follows that version's pipeline (for 0.0.59: every event validated
// by its transport with @ag-ui/core 0.0.59's schemas, no compatibility
// boundary, its chunk expansion; THINKING_* events reach the reducer,
// which ignores them). The zero Client is 1.0.0.
func NewClientView(c Client, in RunAgentInput) *View {
	v := NewView(in)
	if c == ClientV100 {
		c = ""
	}
	v.client = c
	v.x.v0059 = c == ClientV0059
	return v
}

// Client returns the client version whose pipeline the view follows.
func (v *View) Client() Client {
	if v.client == "" {
		return ClientV100
	}
	return v.client
}

// apply0059 is Apply for the 0.0.59 client.
func (v *View) apply0059(e Event) error {
	if !fastValid0059(&e) {
		if issues := schema.Check0059(e.raw); len(issues) > 0 {
			v.err = fmt.Errorf("schema: %s", schemaText(e.typ, issues))
			return v.err
		}
		// What the transport hands on is zod's output.
		if jv, err := jsvalue.Parse(e.raw); err == nil {
			if b := jsvalue.Stringify(schema.Output0059(jv)); b != nil {
				if t, err := ParseEvent(b); err == nil {
					e = t
				}
			}
		}
	}
	return v.reduce(*transform0059(&e))
}
