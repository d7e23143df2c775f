package bridgetest

import "github.com/aguitest/aguitest/agui"

// Conversation is a history every bridge's converter is tested on: a
// system prompt, a user message in parts, an assistant message with text
// and two calls (one streamed with no arguments), their results (one an
// error), an activity message, and the assistant's answer.
var Conversation = []agui.Message{
	agui.SystemMessage("s1", "Be brief."),
	{ID: "u1", Role: agui.RoleUser, Content: agui.PartsContent(agui.TextPart("Weather in Zürich?"), agui.TextPart("And a d20."))},
	agui.AssistantMessage("a1", "Checking.",
		agui.NewToolCall("c1", "get_weather", `{"city":"Zürich"}`),
		agui.NewToolCall("c2", "roll_dice", "")),
	agui.ToolMessage("t1", "c1", `{"tempC":18}`),
	{ID: "t2", Role: agui.RoleTool, ToolCallID: "c2", Error: "no dice"},
	{ID: "x1", Role: agui.RoleActivity, ActivityType: "progress"},
	agui.AssistantMessage("a2", "18°C; no dice."),
}

// Tools are declarations every bridge's converter is tested on.
var ToolDecls = []agui.Tool{
	{Name: "get_weather", Description: "The weather in a city.", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
	{Name: "roll_dice"},
}
