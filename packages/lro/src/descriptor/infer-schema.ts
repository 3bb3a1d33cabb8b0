/**
 * A compact JSON Schema inferred from observed values: the fields and types the
 * lines of a generic section actually have. Nested objects are described two
 * levels deep and at most {@link MAX_PROPERTIES} keys per object, so a schema
 * stays small whatever the data.
 */
import type { CompactShape, JsonSchema } from "../types.js";

const MAX_PROPERTIES = 40;
const MAX_DEPTH = 2;

interface Shape {
  types: Set<JsonType>;
  /** Keys of object values (insertion order = first seen). */
  props?: Map<string, Shape>;
  /** Elements of array values. */
  items?: Shape;
}

/** The JSON type `value` serializes to (`toJSON` applied, non-finite numbers are null). */
export function jsonTypeOf(value: unknown): JsonType {
  return typeOf(jsonValue(value));
}

/** `value` as JSON.stringify sees it: `toJSON()` applied (Dates become strings). */
export function jsonValue(value: unknown): unknown {
  if (value !== null && typeof value === "object") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return toJSON.call(value);
  }
  if (typeof value === "number" && !Number.isFinite(value)) return null;
  return value;
}

/** Types of JSON values, as a line schema names them. */
export type JsonType = "string" | "integer" | "number" | "boolean" | "null" | "array" | "object";

function typeOf(value: unknown): JsonType {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return Number.isInteger(value) ? "integer" : "number";
    case "boolean":
      return "boolean";
    case "object":
      return "object";
    default:
      // bigint, function, symbol: JSON.stringify turns them into strings or nothing.
      return "string";
  }
}

function observe(shape: Shape, raw: unknown, depth: number): void {
  const value = jsonValue(raw);
  const t = typeOf(value);
  shape.types.add(t);
  if (depth >= MAX_DEPTH) return;
  if (t === "object") {
    shape.props ??= new Map();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      // Absent from the JSON line, so absent from its schema.
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      let child = shape.props.get(k);
      if (!child) {
        if (shape.props.size >= MAX_PROPERTIES) continue;
        child = { types: new Set() };
        shape.props.set(k, child);
      }
      observe(child, v, depth + 1);
    }
  } else if (t === "array") {
    shape.items ??= { types: new Set() };
    for (const v of value as unknown[]) observe(shape.items, v, depth + 1);
  }
}

function toSchema(shape: Shape): JsonSchema {
  const types = [...shape.types];
  // An integer that is sometimes fractional is a number.
  const merged = types.includes("number") ? types.filter((t) => t !== "integer") : types;
  const schema: JsonSchema = {};
  if (merged.length === 1) schema.type = merged[0];
  else if (merged.length > 1) schema.type = merged;
  if (shape.props && shape.props.size > 0) {
    schema.properties = Object.fromEntries(
      [...shape.props.entries()].map(([k, v]) => [k, toSchema(v)]),
    );
  }
  if (shape.items && shape.items.types.size > 0) schema.items = toSchema(shape.items);
  return schema;
}

/** Infers a line schema item by item (a streamed result is never held whole). */
export class LineSchemaAccumulator {
  private readonly shape: Shape = { types: new Set() };
  add(item: unknown): void {
    observe(this.shape, item, 0);
  }
  result(): JsonSchema {
    return toSchema(this.shape);
  }
}

/** The schema of one line, inferred from every item (each item is one line). */
export function inferLineSchema(items: readonly unknown[]): JsonSchema {
  const acc = new LineSchemaAccumulator();
  for (const item of items) acc.add(item);
  return acc.result();
}

/** Fields of a nested object a compact shape spells out. */
const MAX_NESTED_FIELDS = 3;

function typeName(schema: JsonSchema): string {
  const t = schema.type;
  return Array.isArray(t) ? t.join("|") : typeof t === "string" ? t : "any";
}

/**
 * `schema` (as {@link LineSchemaAccumulator} infers it) in the compact form a
 * generic descriptor shows: field names and types, a third of the JSON
 * Schema's tokens.
 */
export function compactShape(schema: JsonSchema, depth = 0): CompactShape {
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  const n = props ? Object.keys(props).length : 0;
  // A nested object is spelled out when small; a big one is just "object" (a preview shows it).
  if (props && n > 0 && (depth === 0 || n <= MAX_NESTED_FIELDS)) {
    const only = typeName(schema);
    const shape: { [field: string]: CompactShape } = {};
    for (const [k, v] of Object.entries(props)) shape[k] = compactShape(v, depth + 1);
    // An object that is sometimes something else says so.
    return only === "object" ? shape : { ...shape, "(type)": only };
  }
  const items = schema.items as JsonSchema | undefined;
  return items ? `${typeName(schema)}<${typeName(items)}>` : typeName(schema);
}
