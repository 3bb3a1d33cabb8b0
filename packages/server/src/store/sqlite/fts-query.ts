/**
 * Full-text query text for FTS5: building a safe MATCH expression from plain
 * words, and turning FTS5's parse errors into messages a model can act on.
 */
import { StoreError } from "../errors.js";
import type { QuerySyntax } from "../store.js";

/** More words than this are ignored: a long pasted paragraph should not build a huge OR. */
export const MAX_PLAIN_TOKENS = 32;

/** Shorter last words get no prefix match: `a*` would expand to half the vocabulary. */
const MIN_PREFIX_CHARS = 3;

/**
 * The words of `text` as FTS5 sees them (letters and digits; everything else
 * separates), lower-cased and de-duplicated, at most {@link MAX_PLAIN_TOKENS}.
 */
export function plainTokens(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    seen.add(match[0].toLowerCase());
    if (seen.size >= MAX_PLAIN_TOKENS) break;
  }
  return [...seen];
}

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
  const tokens = plainTokens(text);
  const endsInWord = /[\p{L}\p{N}\p{M}]$/u.test(text);
  const parts = tokens.map((t) => `"${t}"`);
  const last = tokens[tokens.length - 1];
  if (endsInWord && last !== undefined && last.length >= MIN_PREFIX_CHARS) {
    parts[parts.length - 1] = `"${last}"*`;
  }
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
