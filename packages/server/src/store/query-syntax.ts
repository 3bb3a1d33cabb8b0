/**
 * The search query language, one for both backends: a query is words, and
 * operators count only where a person clearly writes them. Parsed here into
 * clauses that each backend quotes in its own engine's syntax
 * (`{sqlite,postgres}/text-query.ts`), so no text is ever malformed and both
 * stores answer the same query alike.
 *
 * - words: every word must match (stemmed); punctuation separates words;
 * - words joined by punctuation without a space (`zephyrine-valve`, `gpt-4`,
 *   `v1.2`) are a phrase, as the engines index them: `zephyrine valve` adjacent;
 * - `"exact phrase"`: its words adjacent, in order (an unclosed quote runs to the end);
 * - `OR` (upper case, between two terms): either may match;
 * - `-word`, `-"a phrase"` or `NOT word` (upper case): must not match;
 *   exclusions only narrow a query, alone they match nothing;
 * - `word*`: a prefix (`migra*` finds "migration");
 * - `AND` (upper case) is the default and reads as nothing; parentheses,
 *   colons and any other punctuation are separators, never syntax;
 * - a lone stopword ("the", "which", see `stopwords.ts`) is left out when the
 *   query has other words, so a question matches on its significant terms;
 *   quoted or joined (`"the valve"`, `the-valve`) it is matched as written.
 *
 * A query without a word matches nothing (no hits, never an error).
 */
import { MAX_PLAIN_TOKENS, WORD } from "./plain-words.js";
import { STOPWORDS } from "./stopwords.js";
import type { QuerySyntax } from "./store.js";

/** Words that must stand adjacent, in order; `prefix`: the last one is a prefix. */
export interface Phrase {
  words: string[];
  prefix: boolean;
  /**
   * The words as typed when punctuation joined them (`gpt-4`, `v1.2`), for an
   * engine whose tokenizer keeps such a span whole or signed (PostgreSQL reads
   * `gpt-4` as "gpt", "-4"); only spans of words and `-._/@+`.
   */
  joined?: string | undefined;
}

/** One condition: any of its phrases matches (`OR`), or, when `exclude`, none does. */
export interface QueryClause {
  exclude: boolean;
  any: Phrase[];
}

/** The language, as tools and errors describe it (both backends declare it). */
export const QUERY_SYNTAX: QuerySyntax = {
  name: "atlatl",
  summary:
    'words (all must match, stopwords such as "the" aside; punctuation separates words, so gpt-4 is the phrase "gpt 4"), ' +
    '"exact phrase", OR between alternatives, -word or NOT word to exclude, prefix*; ' +
    "other punctuation is ignored, so no query is ever malformed.",
  example: "cache redis OR memcached -legacy evict*",
};

/**
 * The clauses of `text`, all of which must hold; at most
 * {@link MAX_PLAIN_TOKENS} words in all (a pasted paragraph is cut, not refused).
 */
export function parseQuery(text: string): QueryClause[] {
  const clauses: QueryClause[] = [];
  /** Phrases that are one unquoted stopword. */
  const stop = new Set<Phrase>();
  let words = 0;
  let or = false;
  let not = false;
  let i = 0;
  while (i < text.length && words < MAX_PLAIN_TOKENS) {
    if (/\s/u.test(text[i] as string)) {
      i++;
      continue;
    }
    let exclude = not;
    not = false;
    if (text[i] === "-" && i + 1 < text.length && !/\s/u.test(text[i + 1] as string)) {
      exclude = true;
      i++;
    }
    let chunk: string;
    let quoted = false;
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      const end = close < 0 ? text.length : close;
      chunk = text.slice(i + 1, end);
      i = end + 1;
      quoted = true;
    } else {
      const start = i;
      while (i < text.length && text[i] !== '"' && !/\s/u.test(text[i] as string)) i++;
      chunk = text.slice(start, i);
      if (!exclude && (chunk === "OR" || chunk === "AND" || chunk === "NOT")) {
        if (chunk === "OR") or = clauses.length > 0;
        if (chunk === "NOT") not = true;
        continue;
      }
    }
    const phrase = phraseOf(chunk, quoted, MAX_PLAIN_TOKENS - words);
    if (!phrase) continue;
    if (!quoted && phrase.words.length === 1 && STOPWORDS.has(phrase.words[0] as string)) {
      stop.add(phrase);
    }
    words += phrase.words.length;
    const last = clauses[clauses.length - 1];
    if (or && !exclude && last && !last.exclude) last.any.push(phrase);
    else clauses.push({ exclude, any: [phrase] });
    or = false;
  }
  const isStop = (c: QueryClause) => !c.exclude && c.any.every((p) => stop.has(p));
  const significant = clauses.some((c) => !c.exclude && !isStop(c));
  return significant ? clauses.filter((c) => !isStop(c)) : clauses;
}

/** A span of words joined by punctuation a tokenizer may keep inside one token. */
const JOINED = /^[\p{L}\p{N}\p{M}\-._/@+]+$/u;

/** The phrase of one term: its words, lower-cased, and a `*` right after the last unless quoted. */
function phraseOf(chunk: string, quoted: boolean, room: number): Phrase | undefined {
  const words: string[] = [];
  let start = 0;
  let end = 0;
  for (const match of chunk.matchAll(WORD)) {
    if (words.length === room) break;
    if (words.length === 0) start = match.index;
    words.push(match[0].toLowerCase());
    end = match.index + match[0].length;
  }
  if (words.length === 0) return undefined;
  const prefix = !quoted && chunk[end] === "*";
  const span = chunk.slice(start, end);
  const joined =
    !quoted && !prefix && words.length > 1 && JOINED.test(span) ? span.toLowerCase() : undefined;
  return { words, prefix, joined };
}
