/**
 * Quote one word for a POSIX shell. Single quotes keep every byte literal
 * (`$`, backslash, double quote, space); an embedded `'` becomes `'\''`.
 */
export function shellQuote(word: string): string {
  if (word.includes("\0")) throw new TypeError("a shell word cannot contain a NUL byte");
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** Characters that never need quoting in a POSIX shell word (not first on a line). */
const SAFE_WORD = /^[A-Za-z0-9_./-]+$/;

/**
 * A word as a POSIX shell reads it back: left bare when it has only characters
 * that are never special (letters, digits, `_ . / -`), else {@link shellQuote}d.
 * Used for paths in recipes: shorter and more natural where nothing needs quoting.
 */
export function shellWord(word: string): string {
  return SAFE_WORD.test(word) ? word : shellQuote(word);
}
