/**
 * Compact JSON Schemas of one memory record line at each detail level. Written
 * here (not derived from the server's types) because the engine must not depend
 * on the server. Every descriptor carries one, so they are kept small: `required`
 * lists every field a line has (in line order), and `properties` types only the
 * fields whose shape is not obvious from the name (enums, arrays, the nullable
 * flattened or nested confidence the recipes sort on). Measured in the
 * `lro-engine` benchmark: a fully typed schema cost ~250 tokens at full detail.
 */
import type { DetailLevel, JsonSchema } from "../types.js";
import { LIGHT_FIELDS } from "./project.js";

const nullableNumber = { type: ["number", "null"] };

const lightProps = {
  memory_type: { enum: ["semantic", "episodic", "procedural"] },
  tags: { type: "array", items: { type: "string" } },
};

/** Fields of a `full` line beyond `light`, in the record's order. */
const FULL_EXTRA_FIELDS = [
  "content",
  "summary",
  "aliases",
  "provenance",
  "entities",
  "relationships",
  "temporal",
  "embedding",
  "blocks",
  "citations",
  "extensions",
] as const;

const schemas: Record<DetailLevel, JsonSchema> = {
  light: { type: "object", required: [...LIGHT_FIELDS], properties: lightProps },
  medium: {
    type: "object",
    required: [...LIGHT_FIELDS, "content", "summary", "confidence"],
    properties: { ...lightProps, confidence: nullableNumber },
  },
  full: {
    type: "object",
    required: [...LIGHT_FIELDS, ...FULL_EXTRA_FIELDS],
    properties: {
      ...lightProps,
      provenance: { type: "object", properties: { confidence: nullableNumber } },
    },
  },
};

/** The line schema of a memory record at `detail` (a fresh copy the caller may keep). */
export function memoryLineSchema(detail: DetailLevel): JsonSchema {
  return structuredClone(schemas[detail]);
}
