/**
 * The JSON Schema of one corpus line (a full-detail {@link MemoryRecord}),
 * exactly: every field a line has is listed and required, nothing else is
 * allowed. It is the `line_schema` of every descriptor the agents see (the
 * engine's own schema describes the full MIF record, whose optional fields
 * these lines do not carry); a test validates every frozen line against it.
 */
import type { MemoryRecord } from "./records.js";

type Schema = Record<string, unknown>;

const string = (description: string): Schema => ({ type: "string", description });

function object(properties: Record<string, Schema>, description?: string): Schema {
  return {
    type: "object",
    ...(description ? { description } : {}),
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

const recordProperties: Record<keyof MemoryRecord, Schema> = {
  id: { type: "string", format: "uuid", description: "Memory id (UUID)" },
  title: string("Short title"),
  namespace: string("Namespace, e.g. _episodic/incidents"),
  memory_type: { type: "string", enum: ["episodic", "semantic", "procedural"] },
  tags: { type: "array", items: { type: "string" } },
  created: { type: "string", format: "date-time" },
  modified: { type: "string", format: "date-time" },
  status: { type: "string", enum: ["active", "archived"] },
  content: string("Full text of the memory"),
  summary: string("One-line summary"),
  provenance: object({
    source: string("Where the memory came from"),
    confidence: { type: "number", minimum: 0, maximum: 1 },
    agent: string("Agent that recorded it"),
  }),
  extensions: object(
    { priority: { type: "integer", minimum: 1, maximum: 5, description: "1 lowest, 5 highest" } },
    "Fields beyond the MIF core",
  ),
};

export const CORPUS_LINE_SCHEMA: Schema = object(recordProperties);
