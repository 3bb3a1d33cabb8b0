/**
 * Plain-text queries, for both backends: the words of what a person typed, and
 * whether the last one is still being typed (a prefix match). Each backend
 * quotes them in its own query language (`{sqlite,postgres}/text-query.ts`).
 */

import { STOPWORDS } from "./stopwords.js";

/** More words than this are ignored: a long pasted paragraph should not build a huge OR. */
export const MAX_PLAIN_TOKENS = 32;

/** A word as the full-text engines see it: letters, digits and marks; everything else separates. */
export const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Shorter last words get no prefix match: `a*` would expand to half the vocabulary. */
const MIN_PREFIX_CHARS = 3;

/**
 * The significant words of `text` as the full-text engines see them (letters,
 * digits and marks; everything else separates), lower-cased and
 * de-duplicated, at most {@link MAX_PLAIN_TOKENS}: its stopwords are left out
 * unless it has nothing else (see `stopwords.ts`).
 */
export function plainTokens(text: string): string[] {
  const significant = new Set<string>();
  const stop = new Set<string>();
  for (const match of text.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    if (!STOPWORDS.has(word)) {
      significant.add(word);
      if (significant.size >= MAX_PLAIN_TOKENS) break;
    } else if (stop.size < MAX_PLAIN_TOKENS) {
      stop.add(word);
    }
  }
  return [...(significant.size > 0 ? significant : stop)];
}

/**
 * The words of `text`, and whether the last is matched as a prefix: when the
 * text ends inside it (typing "migra" finds "migration") and it is long enough.
 */
export function plainWords(text: string): { words: string[]; prefixLast: boolean } {
  const words = plainTokens(text);
  const last = words[words.length - 1];
  const typed = text.match(/[\p{L}\p{N}\p{M}]+$/u)?.[0].toLowerCase();
  const prefixLast = last !== undefined && last.length >= MIN_PREFIX_CHARS && typed === last;
  return { words, prefixLast };
}
