/**
 * Compact JSON Schemas of one memory record line at each detail level: the
 * fields `memory-record.ts` defines (the engine must not depend on the server;
 * the server's record model reads the same definition).
 *
 * Every descriptor carries one, so it is only `required`: the fields every
 * line of its file has, in line order. Those are the level's own (atlatl's
 * lines have them all), or fewer when a producer's records lack some (JSON
 * leaves an undefined field out, and a `full` line is the record as it
 * came): the schema says what the lines carry, never more. The field names
 * are what an agent needs to write its own filter; the value shapes a filter
 * depends on are shown by the recipes beside it (recipe 5's `memory_type`
 * values, 7's tag array, 9's nullable confidence and where it lives at this
 * level). Measured in the `lro-engine` benchmark: typing those fields as well
 * cost 51 more tokens at full detail (111 against 60), and a fully typed
 * schema ~250 (chars/4); the descriptor's budget is 900 o200k (issue 30).
 */
import type { DetailLevel, JsonSchema } from "../../types.js";
import { MEMORY_RECORD_FIELDS } from "./memory-record.js";

/**
 * The line schema of memory records at `detail` whose lines all carry
 * `fields` (default: the level's, as atlatl's lines do), a fresh object the
 * caller may keep.
 */
export function memoryLineSchema(
  detail: DetailLevel,
  fields: readonly string[] = MEMORY_RECORD_FIELDS[detail],
): JsonSchema {
  return { type: "object", required: [...fields] };
}
