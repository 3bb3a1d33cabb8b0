/**
 * SQL for ranked reads (search and rank): one SELECT yielding `seq`,
 * `relevance` and optionally `score` per hit, which the store wraps with a
 * keyset, an order and a limit. Rows are read through the covering index
 * `memories_rank` (filter and score columns only): scoring tens of thousands of
 * full-text matches then touches a few megabytes of index instead of the wide
 * rows with their content.
 */
import { scoreSql } from "../ranking.js";
import { whereClause } from "../sql.js";
import type { MemoryFilter, Scoring } from "../store.js";
import type { WeightedTerm } from "../term-coverage.js";
import { filterSql } from "./filter-sql.js";

/**
 * bm25 with FTS5 column weights (title, content, tags): a word in the title says
 * more about what a memory is than the same word deep in its content. Negated,
 * so that higher is better and a match is >= 0.
 */
const RELEVANCE_SQL = "-bm25(memories_fts, 4.0, 1.0, 2.0)";

export interface RankedSelect {
  /** FTS5 MATCH expression; undefined selects every memory (relevance 0). */
  match: string | undefined;
  filter: MemoryFilter | undefined;
  /** Only rows with `seq <= horizon`. */
  horizon: number | undefined;
  /** When given, a `score` column per {@link Scoring}. */
  scoring?: Scoring | undefined;
  /** Restrict to the row with this `seq` (to re-score a cursor's anchor). */
  onlySeq?: number | undefined;
  /** Restrict to rows that also match this FTS5 expression (candidate pruning; bm25 still uses `match`). */
  within?: string | undefined;
  /** Only rows whose coverage is at least this (the relevance floor; with a MATCH and a coverage). */
  minCoverage?: number | undefined;
  /** Relevance is bm25 times the weight of the phrases a row matches (see `term-coverage.ts`). */
  coverage?: readonly WeightedTerm<string>[] | undefined;
}

/**
 * The SELECT for `options` and its parameters, in textual order. With a MATCH
 * the join is forced to start from the full-text index (CROSS JOIN): probing
 * FTS5 once per row of a filter index would be far slower.
 */
export function rankedSelect(options: RankedSelect): { sql: string; params: unknown[] } {
  const covered =
    options.match !== undefined && options.coverage
      ? coverageTable(options.coverage, options.within)
      : undefined;
  const coverage = covered ? "c.coverage" : undefined;
  const relevance =
    options.match === undefined
      ? "0.0"
      : coverage
        ? `(${RELEVANCE_SQL} * pow(${coverage}, 2))`
        : RELEVANCE_SQL;
  const params: unknown[] = [];
  const score = options.scoring
    ? scoreSql(
        relevance,
        { confidence: "m.confidence", modifiedMs: "m.modified_ms" },
        options.scoring,
        {
          param: (value) => {
            params.push(value);
            return "?";
          },
          greatest: "max",
          power: "pow",
        },
      )
    : undefined;
  const columns = `m.seq AS seq, ${relevance} AS relevance, ${coverage ?? "NULL"} AS coverage${score ? `, ${score} AS score` : ""}`;
  const conditions: string[] = [];
  let from =
    options.match !== undefined
      ? "memories_fts CROSS JOIN memories m INDEXED BY memories_rank ON m.seq = memories_fts.rowid"
      : "memories m INDEXED BY memories_rank";
  if (covered) from += " CROSS JOIN c ON c.cid = memories_fts.rowid";
  if (options.match !== undefined) {
    conditions.push("memories_fts MATCH ?");
    params.push(options.match);
  }
  const kept = keptSql(options.filter, options.horizon);
  conditions.push(...kept.where);
  params.push(...kept.params);
  if (options.match !== undefined) {
    if (options.within !== undefined) {
      // The unary + keeps the IN list away from FTS5's rowid lookup (one seek
      // per value); as a plain filter it is a hash probe per match, and bm25
      // and the join then run for the surviving rows only.
      conditions.push(
        "+memories_fts.rowid IN (SELECT p.rowid FROM memories_fts AS p WHERE p.memories_fts MATCH ?)",
      );
      params.push(options.within);
    }
    if (options.onlySeq !== undefined) {
      // CAST: FTS5 silently ignores a rowid constraint bound as a REAL (every
      // JS number binds as one), returning every match instead of one row.
      conditions.push("memories_fts.rowid = CAST(? AS INTEGER)");
      params.push(options.onlySeq);
    }
    if (covered && options.minCoverage !== undefined) {
      conditions.push("c.coverage >= ?");
      params.push(options.minCoverage);
    }
  } else if (options.onlySeq !== undefined) {
    conditions.push("m.seq = ?");
    params.push(options.onlySeq);
  }
  const select = `SELECT ${columns} FROM ${from}${whereClause(conditions)}`;
  if (!covered) return { sql: select, params };
  // The table comes first in the text, so its parameters bind first.
  return {
    sql: `WITH c AS MATERIALIZED ${covered.sql} ${select}`,
    params: [...covered.params, ...params],
  };
}

/**
 * The coverage of every row matching any of the phrases (`cid`, `coverage`):
 * each phrase's matches read once from the index (only those also in the
 * pruned candidates `within`, when given), their weights summed per row,
 * materialized once per statement. Bound, so the text depends only on the
 * number of phrases (one prepared statement per shape).
 */
function coverageTable(
  terms: readonly WeightedTerm<string>[],
  within?: string,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const parts = terms.map((t) => {
    params.push(t.weight, within === undefined ? t.term : `(${t.term}) AND (${within})`);
    return "SELECT rowid AS cid, ? AS w FROM memories_fts WHERE memories_fts MATCH ?";
  });
  return {
    sql: `(SELECT cid, sum(w) AS coverage FROM (${parts.join(" UNION ALL ")}) GROUP BY cid)`,
    params,
  };
}

/** The filter and horizon conditions of a ranked select, and their parameters. */
function keptSql(
  filter: MemoryFilter | undefined,
  horizon: number | undefined,
): { where: string[]; params: unknown[] } {
  const f = filterSql(filter);
  const where = [...f.where];
  const params = [...f.params];
  if (horizon !== undefined) {
    where.push("m.seq <= ?");
    params.push(horizon);
  }
  return { where, params };
}

/** Whether some memory of the filter and horizon matches `match` (one row at most). */
export function existsSelect(
  match: string,
  filter: MemoryFilter | undefined,
  horizon: number | undefined,
): { sql: string; params: unknown[] } {
  const kept = keptSql(filter, horizon);
  return {
    sql: `SELECT 1 FROM memories_fts CROSS JOIN memories m INDEXED BY memories_rank ON m.seq = memories_fts.rowid${whereClause(["memories_fts MATCH ?", ...kept.where])} LIMIT 1`,
    params: [match, ...kept.params],
  };
}

/** The best coverage among the memories of the filter and horizon (a scan of every match). */
export function bestCoverageSelect(
  coverage: readonly WeightedTerm<string>[],
  filter: MemoryFilter | undefined,
  horizon: number | undefined,
): { sql: string; params: unknown[] } {
  const kept = keptSql(filter, horizon);
  const table = coverageTable(coverage);
  return {
    sql: `SELECT coalesce(max(c.coverage), 0) FROM ${table.sql} c CROSS JOIN memories m INDEXED BY memories_rank ON m.seq = c.cid${whereClause(kept.where)}`,
    params: [...table.params, ...kept.params],
  };
}
