/**
 * Quote one word for a POSIX shell. Single quotes keep every byte literal
 * (`$`, backslash, double quote, space); an embedded `'` becomes `'\''`.
 */
export function shellQuote(word: string): string {
  if (word.includes("\0")) throw new TypeError("a shell word cannot contain a NUL byte");
  return `'${word.replaceAll("'", "'\\''")}'`;
}
