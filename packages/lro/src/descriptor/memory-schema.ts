/**
 * Compact JSON Schemas of one memory record line at each detail level. Written
 * here (not derived from the server's types) because the engine must not depend
 * on the server; kept small because every descriptor carries one.
 */
import type { DetailLevel, JsonSchema } from "../types.js";

const str = { type: "string" };
const strOrNull = { type: ["string", "null"] };
const strings = { type: "array", items: str };
const objects = { type: "array", items: { type: "object" } };
const objOrNull = { type: ["object", "null"] };

const lightProps = {
  id: str,
  title: str,
  namespace: str,
  memory_type: { enum: ["semantic", "episodic", "procedural"] },
  tags: strings,
  created: { type: "string", format: "date-time" },
  modified: { type: "string", format: "date-time" },
  status: { enum: ["active", "archived", "superseded"] },
};

const schemas: Record<DetailLevel, JsonSchema> = {
  light: { type: "object", properties: lightProps },
  medium: {
    type: "object",
    properties: {
      ...lightProps,
      content: str,
      summary: strOrNull,
      confidence: { type: ["number", "null"] },
    },
  },
  full: {
    type: "object",
    properties: {
      ...lightProps,
      content: str,
      summary: strOrNull,
      aliases: strings,
      provenance: {
        type: "object",
        properties: {
          confidence: { type: ["number", "null"] },
          trust_level: strOrNull,
          source_type: strOrNull,
          agent: strOrNull,
        },
      },
      entities: objects,
      relationships: objects,
      temporal: objOrNull,
      embedding: objOrNull,
      blocks: objOrNull,
      citations: objects,
      extensions: { type: "object" },
    },
  },
};

/** The line schema of a memory record at `detail` (a fresh copy the caller may keep). */
export function memoryLineSchema(detail: DetailLevel): JsonSchema {
  return structuredClone(schemas[detail]);
}
