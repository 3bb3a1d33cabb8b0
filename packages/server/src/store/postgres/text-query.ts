/**
 * Full-text queries for PostgreSQL: plain words and the query language of
 * `query-syntax.ts` as `to_tsquery` text, and relevance.
 */
import { plainWords } from "../plain-words.js";
import type { Phrase, QueryClause } from "../query-syntax.js";
import type { WeightedTerm } from "../term-coverage.js";

/** A `to_tsquery` text and the number of words relevance scales by (see {@link relevanceSql}). */
export interface TsQuery {
  query: string;
  terms: number;
  /** Plain words: each word's own `to_tsquery` text (for coverage, see `term-coverage.ts`). */
  words?: string[];
  /** Relevance is ts_rank times the weight of the words a row matches (see `term-coverage.ts`). */
  coverage?: readonly WeightedTerm<string>[] | undefined;
}

/**
 * A `to_tsquery` text for plain words: each word quoted (tokens are letters,
 * digits and marks only, so quoting is safe), any may match (`|`), the last as
 * a prefix when the text ends inside it. Undefined without a word.
 */
export function plainTsQuery(text: string): TsQuery | undefined {
  const { words, prefixLast } = plainWords(text);
  if (words.length === 0) return undefined;
  const parts = words.map((t) => `'${t}'`);
  if (prefixLast) parts[parts.length - 1] = `${parts[parts.length - 1]}:*`;
  return { query: parts.join(" | "), terms: words.length, words: parts };
}

/**
 * The `to_tsquery` text of parsed query clauses: phrases as `<->` chains
 * (a quoted multi-word span is one too: `'gpt-4'` reads as `'gpt' <-> '-4'`),
 * alternatives `|`, clauses `&`, exclusions `& !`, all parenthesised.
 * Undefined without a clause that must match (exclusions alone match nothing).
 */
export function clausesTsQuery(clauses: QueryClause[]): TsQuery | undefined {
  const group = (c: QueryClause) => `(${c.any.map(phraseTs).join(" | ")})`;
  const must = clauses.filter((c) => !c.exclude);
  if (must.length === 0) return undefined;
  const parts = must.map(group);
  for (const c of clauses) if (c.exclude) parts.push(`!${group(c)}`);
  return { query: parts.join(" & "), terms: must.length };
}

/** A phrase's words adjacent, or (when punctuation joined them) the span as PostgreSQL's parser reads it. */
function phraseTs(p: Phrase): string {
  const parts = p.words.map((w) => `'${w}'`);
  if (p.prefix) parts[parts.length - 1] = `${parts[parts.length - 1]}:*`;
  const adjacent = `(${parts.join(" <-> ")})`;
  // `joined` holds no quote or backslash (see JOINED), so quoting it is safe.
  return p.joined === undefined ? adjacent : `(${adjacent} | '${p.joined}')`;
}

/**
 * Relevance in SQL: ts_rank with weights title (A) 1.0, tags (B) 0.5, content
 * (D) 0.25, times the number of OR-ed words (ts_rank averages over the query's
 * words; the product sums them like bm25, so more matching words still rank
 * higher and adding a word to the query lowers no hit), times 30 so a title hit
 * lands near bm25's scale (x ~ 20: r ~ 0.8) and one content hit near 5 (r ~ 0.5).
 * float8, so positions round-trip through JSON exactly.
 */
export function relevanceSql(query: string, terms: string): string {
  return `(ts_rank('{0.25, 0, 0.5, 1.0}'::float4[], m.fts, ${query}, 0)::float8 * 30.0 * ${terms})`;
}
