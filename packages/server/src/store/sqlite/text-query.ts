/**
 * Full-text query text for FTS5: building a safe MATCH expression from plain
 * words, and turning FTS5's parse errors into messages a model can act on.
 */
import { StoreError } from "../errors.js";
import { plainWords } from "../plain-words.js";
import type { QuerySyntax } from "../store.js";

/**
 * A MATCH expression for plain words: every word quoted (so `AND`, `NOT`, `-`
 * or `:` in user text are just words), any word may match (OR), and the last
 * word also as a prefix when the text does not end after it (typing
 * "migra" finds "migration"). Undefined when the text has no searchable word.
 */
export function plainToFts(text: string): string | undefined {
  const phrases = plainPhrases(text);
  return phrases.length === 0 ? undefined : phrases.join(" OR ");
}

/** The phrases of {@link plainToFts}, one per word, each a valid FTS5 expression. */
export function plainPhrases(text: string): string[] {
  const { words, prefixLast } = plainWords(text);
  const parts = words.map((t) => `"${t}"`);
  if (prefixLast) parts[parts.length - 1] = `${parts[parts.length - 1]}*`;
  return parts;
}

/** SQLite's native query language, as tools describe it. */
export const FTS5_SYNTAX: QuerySyntax = {
  name: "fts5",
  summary:
    'SQLite FTS5 syntax: words (all must match), "exact phrase", prefix*, AND / OR / NOT (upper case), ' +
    "NEAR(a b, 10), parentheses, column filters title: / content: / tags:. " +
    'Quote words that contain punctuation such as - or : (e.g. "gpt-4").',
  example: "cache AND (redis OR memcached)",
  strict: true,
};

/** A `QUERY_INVALID` error for a native query FTS5 refused with `detail`. */
export function queryInvalid(query: string, detail: string, cause?: unknown): StoreError {
  let hint = detail;
  if (/^no such column: /.test(detail)) {
    hint = `${detail} (a word followed by ":" or preceded by "-" names a column; only title, content and tags exist)`;
  } else if (/^unknown special query/.test(detail)) {
    hint = "a query cannot start with * or be only an operator";
  }
  return new StoreError(
    "QUERY_INVALID",
    `Invalid full-text query ${JSON.stringify(query)}: ${hint}. ${FTS5_SYNTAX.summary}`,
    { cause },
  );
}
