/**
 * SQL of ranked reads (search and rank) on PostgreSQL: one inner SELECT of
 * narrow rows (seq, relevance, score) over the GIN index, which the store wraps
 * with a keyset, an order and a limit, then joins to the wide rows of the page.
 */
import { scoreSql } from "../ranking.js";
import { whereClause } from "../sql.js";
import type { MemoryFilter, Scoring } from "../store.js";
import { filterConditions, MEMORY_COLUMNS, type Params } from "./filter-sql.js";
import { relevanceSql, type TsQuery } from "./text-query.js";

export interface RankedSelect {
  /** A `to_tsquery` text; none selects every memory (relevance 0). */
  text?: TsQuery | undefined;
  filter: MemoryFilter | undefined;
  horizon: number | undefined;
  /** When given, a `score` column per {@link Scoring}. */
  scoring?: Scoring | undefined;
  /** Only these sequence numbers (to re-score a cursor's anchors). */
  onlySeqs?: readonly number[] | undefined;
  /** Only hits whose coverage is at least this (the relevance floor; with a text's coverage). */
  minCoverage?: number | undefined;
  /** The relevance floor (see `RankQuery.floor`), which {@link RankedSelect.minCoverage} is resolved from. */
  floor?: number | undefined;
}

/**
 * Planner setting of every read with a text condition, SET LOCAL in its
 * transaction. PostgreSQL prices `@@` like a trivial operator, so once
 * statistics show a common word matching a fifth of the memories it prefers a
 * sequential scan evaluating `@@` on every row (100,000 tsvectors: ~60 ms)
 * over the GIN bitmap of the hits (~5 ms) plus their heap pages. Without
 * sequential scans the planner still picks between the GIN index and a
 * selective filter's btree index, which is the choice that matters.
 */
export const TEXT_READ_SETTINGS = "SET LOCAL enable_seqscan = off";

/**
 * The inner SELECT yielding `seq`, `relevance` and optionally `score`.
 *
 * Relevance is computed once per hit in a fenced subquery (`OFFSET 0` keeps
 * the planner from pulling it up and inlining the ts_rank expression into
 * every use: the score reads it twice, the outer page once more, and ts_rank
 * is the costliest step per hit after the heap visit).
 *
 * The horizon is a filter, never an index condition (`seq + 0`): it excludes
 * only the few memories written since a walk began, so an index range on it
 * never narrows anything, yet without statistics (right after a bulk import)
 * the planner would AND a bitmap of the whole primary key into every text read.
 */
export function rankedInner(select: RankedSelect, p: Params): string {
  const conditions: string[] = [];
  let relevance = "0.0::float8";
  let coverage = "NULL::float8";
  let covered = false;
  if (select.text) {
    const query = `to_tsquery('atlatl'::regconfig, ${p.add(select.text.query)})`;
    relevance = relevanceSql(query, p.add(select.text.terms));
    const terms = select.text.coverage?.map(
      (t) =>
        `((m.fts @@ to_tsquery('atlatl'::regconfig, ${p.add(t.term)}))::int * ${p.add(t.weight)}::float8)`,
    );
    if (terms) {
      covered = true;
      coverage = `(${terms.join(" + ")})`;
      relevance = `(${relevance} * power(${coverage}, 2))`;
    }
    conditions.push(`m.fts @@ ${query}`);
  }
  conditions.push(...filterConditions(select.filter, p));
  if (select.horizon !== undefined) conditions.push(`m.seq + 0 <= ${p.add(select.horizon)}`);
  if (select.onlySeqs !== undefined)
    conditions.push(`m.seq = ANY(${p.add(select.onlySeqs)}::bigint[])`);
  const hits = `SELECT m.seq, m.confidence, m.modified_ms, ${relevance} AS relevance, ${coverage} AS coverage FROM memories m${whereClause(conditions)} OFFSET 0`;
  const score = select.scoring
    ? scoreSql(
        "h.relevance",
        { confidence: "h.confidence", modifiedMs: "h.modified_ms" },
        select.scoring,
        {
          param: (value) => `${p.add(value)}::float8`,
          greatest: "greatest",
          power: "power",
        },
      )
    : undefined;
  const floor =
    covered && select.minCoverage !== undefined
      ? ` WHERE h.coverage >= ${p.add(select.minCoverage)}::float8`
      : "";
  return `SELECT h.seq, h.relevance, h.coverage${score ? `, ${score} AS score` : ""} FROM (${hits}) h${floor}`;
}

/**
 * Hits of `select` by `key` desc then seq asc, strictly after `after`, at most
 * `limit` (none: all), with the memory `columns` of each hit (default: all).
 */
export function rankedPage(
  key: "relevance" | "score",
  select: RankedSelect,
  after: { value: number; seq: number } | undefined,
  limit: number | undefined,
  p: Params,
  columns: string = MEMORY_COLUMNS,
): string {
  const inner = rankedInner(select, p);
  let keyset = "";
  if (after) {
    const v = p.add(after.value);
    keyset = ` WHERE s.${key} < ${v}::float8 OR (s.${key} = ${v}::float8 AND s.seq > ${p.add(after.seq)})`;
  }
  const cap = limit === undefined ? "" : ` LIMIT ${p.add(limit)}`;
  const extra = key === "score" ? ", r.score" : "";
  return `SELECT r.seq, r.relevance${extra}, ${columns} FROM (SELECT * FROM (${inner}) s${keyset} ORDER BY s.${key} DESC, s.seq ASC${cap}) r JOIN memories m ON m.seq = r.seq ORDER BY r.${key} DESC, r.seq ASC`;
}

/**
 * Whether some memory of the filter and horizon matches every word of
 * `words` (`to_tsquery` texts), one row at most.
 */
export function existsSql(
  words: readonly string[],
  select: Pick<RankedSelect, "filter" | "horizon">,
  p: Params,
): string {
  const query = words.map((w) => `(${w})`).join(" & ");
  const conditions = [
    `m.fts @@ to_tsquery('atlatl'::regconfig, ${p.add(query)})`,
    ...filterConditions(select.filter, p),
  ];
  if (select.horizon !== undefined) conditions.push(`m.seq + 0 <= ${p.add(select.horizon)}`);
  return `SELECT 1 FROM memories m${whereClause(conditions)} LIMIT 1`;
}

/** The best coverage among the hits of `select` (a scan of every hit). */
export function bestCoverageSql(select: RankedSelect, p: Params): string {
  return `SELECT coalesce(max(h.coverage), 0) AS best FROM (${rankedInner({ ...select, minCoverage: undefined, scoring: undefined }, p)}) h`;
}
