// Package schema is the schema stage of the AG-UI clients agui models: the
// event schemas of @ag-ui/core 1.0.0 and 0.0.59, generated from the npm
// packages' own zod validators (schema_gen.go, schema0059_gen.go), and what
// each client does with them.
//
// For 1.0.0 (HttpAgent's enforcement stage): [Checker.Check] validates an
// event with the validator's messages in its order, [NeedsStrip] and
// [AppendStripped] remove what the schema does not describe, and
// [Removals] says what is removed and why. For 0.0.59 (its transport's
// parse): [Check0059] and [Output0059]. [FlatEvent] and [FlatEvent0059]
// describe each event field by field, for agui's one-pass fast path.
//
// Everything works on an event's raw JSON bytes and the spans of
// internal/jsonx; nothing here knows agui's Event.
package schema

// Event returns the @ag-ui/core 1.0.0 schema of event type typ, or nil when
// typ is not one of its event types.
func Event(typ string) *Schema { return eventSchemas[typ] }

// Check0059 validates the JSON event raw against EventSchemas of
// @ag-ui/core 0.0.59 and returns zod's issues, in its order; none when it
// is valid or raw is not JSON.
func Check0059(raw []byte) []Issue { return z3Check(raw) }

// Output0059 returns what zod 3 makes of the valid event v (a value of
// internal/jsvalue) under 0.0.59's EventSchemas: nested unknown fields
// stripped, defaults filled in, a null read as absent where a transform
// says so.
func Output0059(v any) any { return z3Output(v, z3EventSchemas) }
