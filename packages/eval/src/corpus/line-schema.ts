/**
 * The JSON Schema of one corpus line (a full-detail {@link MemoryRecord}),
 * exactly: every field a line has is listed and required, nothing else is
 * allowed. Types, formats, enums and ranges only (no prose), to keep the
 * descriptor near the paper's ~800 tokens. It is the `line_schema` of every descriptor the agents see (the
 * engine's own schema describes the full MIF record, whose optional fields
 * these lines do not carry); a test validates every frozen line against it.
 */
import type { MemoryRecord } from "./records.js";

type Schema = Record<string, unknown>;

const string: Schema = { type: "string" };

function object(properties: Record<string, Schema>): Schema {
  return {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

const recordProperties: Record<keyof MemoryRecord, Schema> = {
  id: { type: "string", format: "uuid" },
  title: string,
  namespace: string,
  memory_type: { type: "string", enum: ["episodic", "semantic", "procedural"] },
  tags: { type: "array", items: { type: "string" } },
  created: { type: "string", format: "date-time" },
  modified: { type: "string", format: "date-time" },
  status: { type: "string", enum: ["active", "archived"] },
  content: string,
  summary: string,
  provenance: object({
    source: string,
    confidence: { type: "number", minimum: 0, maximum: 1 },
    agent: string,
  }),
  extensions: object({ priority: { type: "integer", minimum: 1, maximum: 5 } }),
};

export const CORPUS_LINE_SCHEMA: Schema = object(recordProperties);
