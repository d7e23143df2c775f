// Writes internal/schema/schema_gen.go: the schemas of @ag-ui/core 1.0.0
// (its zod validators, read through zod's own introspection) as Go tables
// for the schema stage of agui's verifier and view. Run by "go generate
// ./internal/schema"; a test of that package runs it again and fails when
// the committed file differs.
//
// Usage: node genschema.mjs > ../schema/schema_gen.go
import * as S from "@ag-ui/core/schemas";

const names = new Map(); // schema object -> exported name
for (const [name, value] of Object.entries(S)) {
  if (name.endsWith("Schema") && value && value._zod && !names.has(value)) {
    names.set(value, name.slice(0, -"Schema".length));
  }
}

const out = []; // Go declarations, dependencies first
const emitted = new Set();

const def = (z) => z._zod.def;
const accepts = (z, v) => z.safeParse(v).success;

function goString(s) {
  return JSON.stringify(s);
}

function goVar(name) {
  return "z" + name;
}

// expr returns the Go expression for schema z, declaring named schemas.
function expr(z) {
  const name = names.get(z);
  if (name !== undefined && def(z).type === "object") {
    declare(name, z);
    return goVar(name);
  }
  if (name !== undefined && def(z).type === "union") {
    declare(name, z);
    return goVar(name);
  }
  return inline(z);
}

function declare(name, z) {
  if (emitted.has(name)) return;
  emitted.add(name);
  const body = inline(z); // declares what it references first
  out.push(`var ${goVar(name)} = ${body}`);
}

function inline(z) {
  const d = def(z);
  switch (d.type) {
    case "optional":
    case "default":
      throw new Error("optional outside a field");
    case "pipe":
      return inline(d.in);
    case "nullable":
      return inline(d.innerType).replace("&Schema{", "&Schema{nullable: true, ");
    case "string": {
      const re = (d.checks ?? []).map((c) => def(c)).find((c) => c.format === "regex");
      if (re) return `&Schema{kind: sPattern, pattern: ${goString(re.pattern.source)}}`;
      if ((d.checks ?? []).length) throw new Error("unknown string check");
      return `&Schema{kind: sString}`;
    }
    case "number": {
      if (d.format === "safeint") {
        const checks = (d.checks ?? []).map((c) => def(c));
        const min = checks.find((c) => c.check === "greater_than");
        const max = checks.find((c) => c.check === "less_than");
        return `&Schema{kind: sInt, min: ${min ? min.value : "minSafeInt"}, max: ${max ? max.value : "maxSafeInt"}}`;
      }
      if ((d.checks ?? []).length) throw new Error("unknown number check");
      return `&Schema{kind: sNumber}`;
    }
    case "boolean":
      return `&Schema{kind: sBool}`;
    case "literal":
      if (d.values.length !== 1 || typeof d.values[0] !== "string") throw new Error("literal");
      return `&Schema{kind: sLiteral, values: []string{${goString(d.values[0])}}}`;
    case "enum":
      return `&Schema{kind: sEnum, values: []string{${Object.values(d.entries).map(goString).join(", ")}}}`;
    case "any":
    case "unknown": {
      const nullOK = accepts(z, null);
      const undefinedOK = accepts(z, undefined);
      if (nullOK && undefinedOK) return `&Schema{kind: sAny}`;
      if (!nullOK && undefinedOK) return `&Schema{kind: sAnyNotNull}`;
      if (nullOK && !undefinedOK) return `&Schema{kind: sAnyPresent}`;
      throw new Error("any that rejects null and undefined");
    }
    case "custom": {
      // The metadata shape: an object, not null, not an array.
      if (accepts(z, {}) && !accepts(z, []) && !accepts(z, null) && !accepts(z, 1)) {
        return `&Schema{kind: sRecordAny}`;
      }
      throw new Error("unknown custom schema");
    }
    case "object": {
      const open = z.meta()?.specOpen === true;
      const fields = Object.entries(d.shape).map(([key, f]) => {
        let optional = false;
        let inner = f;
        for (;;) {
          const t = def(inner).type;
          if (t === "optional" || t === "default") {
            optional = true;
            inner = def(inner).innerType;
          } else if (t === "pipe") {
            inner = def(inner).in; // the shape the wire data has
          } else {
            break;
          }
        }
        if (accepts(f, undefined) && !optional && !["any", "unknown"].includes(def(inner).type)) {
          throw new Error(`field ${key} accepts undefined without being optional`);
        }
        return `{${goString(key)}, ${expr(inner)}, ${optional}}`;
      });
      return `&Schema{kind: sObject, open: ${open}, fields: []field{\n\t${fields.join(",\n\t")},\n}}`;
    }
    case "array": {
      const checks = (d.checks ?? []).map((c) => def(c));
      const min = checks.find((c) => c.check === "min_length");
      if (checks.some((c) => c.check !== "min_length")) throw new Error("unknown array check");
      return `&Schema{kind: sArray, elem: ${expr(d.element)}${min ? `, minLen: ${min.minimum}` : ""}}`;
    }
    case "record":
      return `&Schema{kind: sRecord, elem: ${expr(d.valueType)}}`;
    case "union": {
      const options = d.options.map(expr);
      if (typeof d.discriminator === "string") {
        return `&Schema{kind: sTagged, tag: ${goString(d.discriminator)}, options: []*Schema{${options.join(", ")}}}`;
      }
      return `&Schema{kind: sUnion, options: []*Schema{${options.join(", ")}}}`;
    }
    default:
      throw new Error(`unknown zod type ${d.type}`);
  }
}

const events = def(S.EventSchema).options.map((o) => {
  const t = def(def(o).shape.type).values[0];
  return [t, expr(o)];
});
const input = expr(S.RunAgentInputSchema);
const message = expr(S.MessageSchema);

process.stdout.write(`// Code generated by internal/oracle/genschema.mjs from @ag-ui/core 1.0.0; DO NOT EDIT.

package schema

${out.join("\n\n")}

// eventTypes lists the event types in the order of EventSchema's options.
var eventTypes = []string{
${events.map(([t]) => `\t${goString(t)},`).join("\n")}
}

// eventSchemas maps each event type to its schema.
var eventSchemas = map[string]*Schema{
${events.map(([t, e]) => `\t${goString(t)}: ${e},`).join("\n")}
}

// schemaRunAgentInput and schemaMessage validate a run's input and one
// message of it.
var (
\tschemaRunAgentInput = ${input}
\tschemaMessage       = ${message}
)
`);
