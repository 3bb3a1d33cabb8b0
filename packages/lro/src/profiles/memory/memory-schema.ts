/**
 * Compact JSON Schemas of one memory record line at each detail level: the
 * fields `memory-record.ts` defines (the engine must not depend on the server;
 * the server's record model reads the same definition).
 *
 * Every descriptor carries one, so it is only `required`: every field a line
 * has, in line order. The field names are what an agent needs to write its own
 * filter; the value shapes a filter depends on are shown by the recipes beside
 * it (recipe 5's `memory_type` values, 7's tag array, 9's nullable confidence
 * and where it lives at this level). Measured in the `lro-engine` benchmark:
 * typing those fields as well cost 51 more tokens at full detail (111 against
 * 60), and a fully typed schema ~250; the descriptor's budget is 700.
 */
import type { DetailLevel, JsonSchema } from "../../types.js";
import { MEMORY_RECORD_FIELDS } from "./memory-record.js";

/** The line schema of a memory record at `detail` (a fresh object the caller may keep). */
export function memoryLineSchema(detail: DetailLevel): JsonSchema {
  return { type: "object", required: [...MEMORY_RECORD_FIELDS[detail]] };
}
