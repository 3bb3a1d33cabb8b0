/** SQL building for the PostgreSQL store: numbered parameters and filter conditions. */
import type { MemoryFilter, ReadFields } from "../store.js";

/** Parameters of one statement; `add` returns the placeholder (`$1`, `$2`, ...). */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Columns read back for a memory (the `MemoryRow` shape of `../memory-row.ts`). */
export const MEMORY_COLUMNS =
  "m.id, m.memory_type, m.status, m.namespace, m.created, m.modified, m.title, m.tags_json AS tags, m.content, m.doc";

/** Columns read back for a light memory (`fields: "light"`; `fromLightRow`'s shape). */
const LIGHT_COLUMNS =
  "m.id, m.memory_type, m.status, m.namespace, m.created, m.modified, m.title, m.tags_json AS tags";

/** Columns read back for `fields`. */
export function columnsOf(fields: ReadFields | undefined): string {
  return fields === "light" ? LIGHT_COLUMNS : MEMORY_COLUMNS;
}

/**
 * Conditions for `filter` over `memories m`. Namespace prefixes match whole
 * segments by byte range (the column has the "C" collation): `p/...` sorts
 * after `p/` and before `p0`. Tags use the GIN index through `@>`.
 */
export function filterConditions(filter: MemoryFilter | undefined, p: Params): string[] {
  const where: string[] = [];
  const status = filter?.status ?? "active";
  if (status !== "any") where.push(`m.status = ${p.add(status)}`);
  if (filter?.namespace !== undefined) {
    const prefix = filter.namespace.replace(/\/+$/, "");
    where.push(
      `(m.namespace = ${p.add(prefix)} OR (m.namespace > ${p.add(`${prefix}/`)} AND m.namespace < ${p.add(`${prefix}0`)}))`,
    );
  }
  if (filter?.memory_type !== undefined) where.push(`m.memory_type = ${p.add(filter.memory_type)}`);
  const tags = [...new Set(filter?.tags ?? [])];
  if (tags.length > 0) where.push(`m.tags @> ${p.add(tags)}::text[]`);
  return where;
}
