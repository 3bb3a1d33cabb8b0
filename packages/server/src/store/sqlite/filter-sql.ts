/** SQL conditions for a {@link MemoryFilter} over the `memories` table aliased `m`. */
import type { MemoryFilter } from "../store.js";

interface SqlFragment {
  /** Conditions to AND together (empty: no condition). */
  where: string[];
  params: unknown[];
}

/**
 * Conditions for `filter`. The namespace prefix matches whole segments with two
 * index-friendly comparisons instead of LIKE (whose `_` is a wildcard and
 * namespaces start with `_`): `p/...` sorts after `p/` and before `p0`, because
 * `0` is the character right after `/`.
 */
export function filterSql(filter: MemoryFilter | undefined): SqlFragment {
  const where: string[] = [];
  const params: unknown[] = [];
  const status = filter?.status ?? "active";
  if (status !== "any") {
    where.push("m.status = ?");
    params.push(status);
  }
  if (filter?.namespace !== undefined) {
    const prefix = filter.namespace.replace(/\/+$/, "");
    where.push("(m.namespace = ? OR (m.namespace > ? AND m.namespace < ?))");
    params.push(prefix, `${prefix}/`, `${prefix}0`);
  }
  if (filter?.memory_type !== undefined) {
    where.push("m.memory_type = ?");
    params.push(filter.memory_type);
  }
  for (const tag of new Set(filter?.tags ?? [])) {
    where.push("m.seq IN (SELECT t.seq FROM memory_tags t WHERE t.tag = ?)");
    params.push(tag);
  }
  return { where, params };
}
