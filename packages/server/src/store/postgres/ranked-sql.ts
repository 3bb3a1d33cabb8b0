/**
 * SQL of ranked reads (search and rank) on PostgreSQL: one inner SELECT of
 * narrow rows (seq, relevance, score) over the GIN index, which the store wraps
 * with a keyset, an order and a limit, then joins to the wide rows of the page.
 */
import { scoreSql } from "../ranking.js";
import type { MemoryFilter, Scoring } from "../store.js";
import { filterConditions, MEMORY_COLUMNS, type Params, whereClause } from "./sql.js";
import { relevanceSql } from "./text-query.js";

export interface RankedSelect {
  /** A tsquery: `to_tsquery` text for plain words, or websearch text; none selects every memory (relevance 0). */
  text?: { kind: "plain" | "websearch"; query: string; terms: number } | undefined;
  filter: MemoryFilter | undefined;
  horizon: number | undefined;
  /** When given, a `score` column per {@link Scoring}. */
  scoring?: Scoring | undefined;
  /** Only these sequence numbers (to re-score a cursor's anchors). */
  onlySeqs?: readonly number[] | undefined;
}

/** The inner SELECT yielding `seq`, `relevance` and optionally `score`. */
export function rankedInner(select: RankedSelect, p: Params): string {
  const conditions: string[] = [];
  let relevance = "0.0::float8";
  if (select.text) {
    const fn = select.text.kind === "plain" ? "to_tsquery" : "websearch_to_tsquery";
    const query = `${fn}('atlatl'::regconfig, ${p.add(select.text.query)})`;
    relevance = relevanceSql(query, p.add(select.text.terms));
    conditions.push(`m.fts @@ ${query}`);
  }
  const score = select.scoring
    ? scoreSql(
        relevance,
        { confidence: "m.confidence", modifiedMs: "m.modified_ms" },
        select.scoring,
        {
          param: (value) => `${p.add(value)}::float8`,
          greatest: "greatest",
          power: "power",
        },
      )
    : undefined;
  conditions.push(...filterConditions(select.filter, p));
  if (select.horizon !== undefined) conditions.push(`m.seq <= ${p.add(select.horizon)}`);
  if (select.onlySeqs !== undefined)
    conditions.push(`m.seq = ANY(${p.add(select.onlySeqs)}::bigint[])`);
  const columns = `m.seq, ${relevance} AS relevance${score ? `, ${score} AS score` : ""}`;
  return `SELECT ${columns} FROM memories m${whereClause(conditions)}`;
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
