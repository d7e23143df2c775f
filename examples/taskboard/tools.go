package taskboard

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// BoardTools are the four tools that move the board on the client's behalf.
// The agent runs them itself, but only when the client offered them in
// RunAgentInput.tools: a client that does not declare a board tool has not
// agreed to let the agent change its board that way.
var BoardTools = []string{"add_task", "move_task", "rename_task", "remove_task"}

// RenderA2UI is the tool the agent calls to send a UI surface to the
// frontend. No client offers it, as there is nothing for a client to run:
// the client draws the surface the arguments describe.
const RenderA2UI = "render_a2ui"

func object(props map[string]any, required ...string) shared.FunctionParameters {
	return shared.FunctionParameters{"type": "object", "properties": props, "required": required}
}

var str = map[string]any{"type": "string"}

// modelTools are the tools the model is offered, in a fixed order.
var modelTools = []openai.ChatCompletionToolUnionParam{
	tool("add_task", "Add a task to a column of the board (todo by default).",
		object(map[string]any{"title": str, "column": str}, "title")),
	tool("move_task", "Move a task, by id, to another column.",
		object(map[string]any{"id": str, "to": str}, "id", "to")),
	tool("rename_task", "Give a task, by id, a new title.",
		object(map[string]any{"id": str, "title": str}, "id", "title")),
	tool("remove_task", "Remove a task, by id, from the board.",
		object(map[string]any{"id": str}, "id")),
	tool(RenderA2UI, "Show the user a UI surface described in A2UI.",
		object(map[string]any{"surface": map[string]any{"type": "object"}}, "surface")),
}

func tool(name, description string, params shared.FunctionParameters) openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        name,
		Description: openai.String(description),
		Parameters:  params,
	})
}

func isBoardTool(name string) bool {
	for _, n := range BoardTools {
		if n == name {
			return true
		}
	}
	return false
}
