/** Validation and normalization of arguments shared by the read services. */
import { READ_LIMITS } from "../model/limits.js";
import { MEMORY_STATUSES, type MemoryStatus, type MemoryType } from "../model/memory.js";
import { checkMemoryType, checkNamespace, cleanTags } from "../model/new-memory.js";
import type { MemoryFilter } from "../store/store.js";
import { invalidArgument } from "./errors.js";

/** Filter arguments as callers give them (every key optional). */
export interface FilterInput {
  namespace?: string | undefined;
  memory_type?: MemoryType | undefined;
  tags?: readonly string[] | undefined;
  status?: MemoryStatus | "any" | undefined;
}

/** A filter after {@link normalizeFilter}: status always present. */
export type NormalizedFilter = MemoryFilter & { status: MemoryStatus | "any" };

/**
 * A checked filter with defaults applied (status `active`) and tags sorted, so
 * equal filters fingerprint alike. Throws `INVALID_ARGUMENT` naming the field.
 */
export function normalizeFilter(input: FilterInput | undefined): NormalizedFilter {
  const filter: NormalizedFilter = { status: "active" };
  if (input === undefined || input === null) return filter;
  if (typeof input !== "object") throw invalidArgument("filter", "filter must be an object.");
  if (input.namespace !== undefined) {
    const problem = checkNamespace(input.namespace);
    if (problem) throw invalidArgument(problem.field, problem.message);
    filter.namespace = input.namespace;
  }
  if (input.memory_type !== undefined) {
    const problem = checkMemoryType(input.memory_type);
    if (problem) throw invalidArgument(problem.field, problem.message);
    filter.memory_type = input.memory_type;
  }
  if (input.tags !== undefined) {
    const cleaned = cleanTags(input.tags, "tags");
    if ("field" in cleaned) throw invalidArgument(cleaned.field, cleaned.message);
    for (const tag of cleaned.tags) refuseNul("tag", tag);
    if (cleaned.tags.length > 0) filter.tags = [...cleaned.tags].sort();
  }
  if (input.status !== undefined) {
    const allowed: readonly string[] = [...MEMORY_STATUSES, "any"];
    if (!allowed.includes(input.status)) {
      throw invalidArgument(
        "status",
        `status must be one of ${allowed.join(", ")}; got ${JSON.stringify(input.status)}.`,
      );
    }
    filter.status = input.status;
  }
  return filter;
}

/**
 * Refuse text holding a NUL character. PostgreSQL text cannot hold one, so a
 * filter or query with it is refused here, before any store, with the same
 * `INVALID_ARGUMENT` naming `field` on every backend (never a store failure).
 */
export function refuseNul(field: string, text: string): void {
  if (text.includes("\u0000")) {
    throw invalidArgument(
      field,
      `${field} must not contain a NUL character (\\u0000); got ${JSON.stringify(text.slice(0, 40))}.`,
    );
  }
}

/** A checked page size: an integer from 1 to `READ_LIMITS.pageSize`, `fallback` when absent. */
export function checkLimit(limit: number | undefined, fallback: number): number {
  if (limit === undefined) return fallback;
  if (
    typeof limit !== "number" ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > READ_LIMITS.pageSize
  ) {
    throw invalidArgument(
      "limit",
      `limit must be an integer from 1 to ${READ_LIMITS.pageSize}; got ${JSON.stringify(limit)}.`,
    );
  }
  return limit;
}

/** A checked optional cursor string (absent, null and "" all mean "first page"). */
export function checkCursorArg(cursor: string | null | undefined): string | undefined {
  if (cursor === undefined || cursor === null || cursor === "") return undefined;
  if (typeof cursor !== "string" || cursor.length > READ_LIMITS.cursorChars) {
    throw invalidArgument("cursor", "cursor must be the next_cursor string of a previous page.");
  }
  return cursor;
}
