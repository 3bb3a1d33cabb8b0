/**
 * Access path of a listing. SQLite's planner, given a namespace or tag filter,
 * reads every matching row through that filter's index and sorts them all: fine
 * for a narrow filter, tens of milliseconds for `_semantic` over 100,000
 * memories, where walking the sort index and skipping non-matching rows stops
 * after a page. Which one wins depends on how many rows the filter matches, so
 * this counts them, up to a bound, through the filter's own index (a fraction
 * of a millisecond) and pins the access path with `INDEXED BY` / `NOT INDEXED`.
 */
import type Database from "better-sqlite3";
import type { ListSort, MemoryFilter } from "../store.js";

/** Filters matching at most this many rows are read through their own index and sorted. */
export const NARROW_FILTER_ROWS = 2000;

const SORT_INDEX: Record<ListSort, string> = {
  created: "memories_created",
  modified: "memories_modified",
  title: "memories_title",
};

/** The table reference for `memories m` with an access-path hint. */
export function listTable(
  statement: (sql: string) => Database.Statement,
  filter: MemoryFilter | undefined,
  sort: ListSort,
): string {
  let narrowest = Number.POSITIVE_INFINITY;
  let via = "";
  if (filter?.namespace !== undefined) {
    const prefix = filter.namespace.replace(/\/+$/, "");
    const n = statement(
      `SELECT count(*) FROM (SELECT 1 FROM memories INDEXED BY memories_namespace
         WHERE namespace = ? OR (namespace > ? AND namespace < ?) LIMIT ${NARROW_FILTER_ROWS + 1})`,
    )
      .pluck()
      .get(prefix, `${prefix}/`, `${prefix}0`) as number;
    if (n < narrowest) {
      narrowest = n;
      via = "memories m INDEXED BY memories_namespace";
    }
  }
  for (const tag of filter?.tags ?? []) {
    const n = statement(
      `SELECT count(*) FROM (SELECT 1 FROM memory_tags WHERE tag = ? LIMIT ${NARROW_FILTER_ROWS + 1})`,
    )
      .pluck()
      .get(tag) as number;
    if (n < narrowest) {
      narrowest = n;
      // Rows are then fetched by rowid from the tag subquery.
      via = "memories m NOT INDEXED";
    }
  }
  return narrowest <= NARROW_FILTER_ROWS ? via : `memories m INDEXED BY ${SORT_INDEX[sort]}`;
}
