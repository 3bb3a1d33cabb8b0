/**
 * Full-text queries for PostgreSQL: plain words as a tsquery, the native
 * language (websearch_to_tsquery) as the store declares it, and relevance.
 */
import { plainWords } from "../plain-words.js";
import type { QuerySyntax } from "../store.js";

/** PostgreSQL's native query language, as tools describe it. */
export const WEBSEARCH_SYNTAX: QuerySyntax = {
  name: "websearch",
  summary:
    'PostgreSQL websearch syntax: words (all must match), "exact phrase", `or` between alternatives, ' +
    "-word to exclude; other punctuation is ignored and no query is ever malformed.",
  example: "cache redis or memcached -legacy",
  strict: false,
};

/**
 * A `to_tsquery` text for plain words: each word quoted (tokens are letters,
 * digits and marks only, so quoting is safe), any may match (`|`), the last as
 * a prefix when the text ends inside it. Undefined without a word.
 */
export function plainTsQuery(text: string): { query: string; terms: number } | undefined {
  const { words, prefixLast } = plainWords(text);
  if (words.length === 0) return undefined;
  const parts = words.map((t) => `'${t}'`);
  if (prefixLast) parts[parts.length - 1] = `${parts[parts.length - 1]}:*`;
  return { query: parts.join(" | "), terms: words.length };
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
