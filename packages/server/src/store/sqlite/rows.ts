/**
 * The SQLite side of memory <-> row (`../memory-row.ts`): the columns read
 * back, and the decoder of raw rows.
 */
import type { LightRecord, Memory } from "../../model/memory.js";
import { fromRow } from "../memory-row.js";
import type { Fielded, ReadFields } from "../store.js";

/** Columns read back for a memory, in table order. */
export const MEMORY_COLUMNS =
  "m.id, m.memory_type, m.status, m.namespace, m.created, m.modified, m.title, m.tags, m.content, m.doc";

/** Columns read back for a light memory (`fields: "light"`): no content, no document. */
const LIGHT_COLUMNS =
  "m.id, m.memory_type, m.status, m.namespace, m.created, m.modified, m.title, m.tags";

/** Columns read back for `fields`. */
export function columnsOf(fields: ReadFields | undefined): string {
  return fields === "light" ? LIGHT_COLUMNS : MEMORY_COLUMNS;
}

/**
 * The decoder of raw rows (arrays: better-sqlite3's `raw(true)`, a good third
 * cheaper than row objects over a whole set) of `columnsOf(fields)`, read
 * from index `at` on. The indexes follow {@link MEMORY_COLUMNS}, of which
 * {@link LIGHT_COLUMNS} is the head.
 */
export function rawReader<F extends ReadFields>(
  fields: F | undefined,
  at: number,
): (values: unknown[]) => Fielded<F> {
  const light = (v: unknown[]): LightRecord => ({
    id: v[at] as string,
    title: v[at + 6] as string,
    namespace: v[at + 3] as string,
    memory_type: v[at + 1] as Memory["memory_type"],
    tags: JSON.parse(v[at + 7] as string) as string[],
    created: v[at + 4] as string,
    modified: v[at + 5] as string,
    status: v[at + 2] as Memory["status"],
  });
  const full = (v: unknown[]): Memory =>
    fromRow({
      id: v[at] as string,
      memory_type: v[at + 1] as string,
      status: v[at + 2] as string,
      namespace: v[at + 3] as string,
      created: v[at + 4] as string,
      modified: v[at + 5] as string,
      title: v[at + 6] as string,
      tags: v[at + 7] as string,
      content: v[at + 8] as string,
      doc: v[at + 9] as string,
    });
  return (fields === "light" ? light : full) as (values: unknown[]) => Fielded<F>;
}
