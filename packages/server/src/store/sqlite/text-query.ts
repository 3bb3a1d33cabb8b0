/**
 * Full-text query text for FTS5: safe MATCH expressions from plain words and
 * from the query language of `query-syntax.ts`, and the message of an
 * expression FTS5 refused anyway.
 */
import { StoreError } from "../errors.js";
import { plainWords } from "../plain-words.js";
import { type Phrase, QUERY_SYNTAX, type QueryClause } from "../query-syntax.js";

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

/**
 * The MATCH expression of parsed query clauses: each phrase quoted (its words
 * are letters, digits and marks only), alternatives OR-ed, clauses AND-ed,
 * exclusions NOT-ed, all parenthesised so FTS5's precedence never matters.
 * Undefined without a clause that must match (exclusions alone match nothing).
 */
export function clausesToFts(clauses: QueryClause[]): string | undefined {
  const group = (c: QueryClause) => `(${c.any.map(phraseFts).join(" OR ")})`;
  const must = clauses.filter((c) => !c.exclude).map(group);
  if (must.length === 0) return undefined;
  let expr = must.join(" AND ");
  for (const c of clauses) if (c.exclude) expr = `(${expr}) NOT ${group(c)}`;
  return expr;
}

function phraseFts(p: Phrase): string {
  return `"${p.words.join(" ")}"${p.prefix ? "*" : ""}`;
}

/** A `QUERY_INVALID` error for a MATCH expression FTS5 refused with `detail`. */
export function queryInvalid(query: string, detail: string, cause?: unknown): StoreError {
  return new StoreError(
    "QUERY_INVALID",
    `Invalid full-text query ${JSON.stringify(query)}: ${detail}. Query syntax: ${QUERY_SYNTAX.summary}`,
    { cause },
  );
}
