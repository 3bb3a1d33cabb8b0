/**
 * Token estimation: ceil(chars / 4) for Latin-script text (the specification's
 * heuristic), a real BPE tokenizer (`gpt-tokenizer`, o200k) for CJK or other
 * non-Latin text, where chars / 4 undercounts several times over. The tokenizer
 * costs ~0.4 s to load, so it is imported only the first time such text appears.
 */

/**
 * Anything outside Latin (Basic, Latin-1, Extended A/B, IPA, combining marks,
 * Extended Additional/C/D/E, ligatures) and the common punctuation and symbol
 * blocks (general punctuation, currency, letterlike, arrows, math, box drawing,
 * dingbats). Greek, Cyrillic, CJK, emoji (astral, so surrogates) all match.
 */
const NON_LATIN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: starts at U+0000 on purpose (all of Basic Latin).
  /[^\u0000-\u036f\u1e00-\u1eff\u2000-\u27bf\u2c60-\u2c7f\ua720-\ua7ff\uab30-\uab6f\ufb00-\ufb06]/;

/** True when ceil(chars / 4) is a fair estimate for `text` (no CJK or other script). */
export function isLatinText(text: string): boolean {
  return !NON_LATIN.test(text);
}

/** The specification's heuristic alone: ceil(UTF-16 length / 4). */
export function estimateLatinTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

type CountTokens = (text: string) => number;
let tokenizer: Promise<CountTokens> | undefined;

/** Load the tokenizer once, on first need. */
export function loadTokenizer(): Promise<CountTokens> {
  // Special-token text (`<|endoftext|>`) in user data is just text: never throw on it.
  const noSpecial = { disallowedSpecial: new Set<string>() };
  tokenizer ??= import("gpt-tokenizer").then(
    (m) => (text: string) => m.countTokens(text, noSpecial),
  );
  return tokenizer;
}

/**
 * Estimated tokens of `text`: ceil(chars / 4) when it is Latin-script, otherwise
 * the tokenizer's count (loaded lazily).
 */
export async function estimateTokens(text: string): Promise<number> {
  if (isLatinText(text)) return estimateLatinTokens(text);
  return (await loadTokenizer())(text);
}

/** Per-line costs of a set of serialized lines, as one total. */
export interface LinesEstimate {
  /** Estimated tokens of all lines together. */
  tokens: number;
  /** UTF-16 length of the Latin lines together. */
  latinChars: number;
  /** Token counts of the non-Latin lines, by line index. */
  tokenized: Map<number, number>;
}

/**
 * Estimate serialized record lines as one result set: the Latin lines' characters
 * are summed before dividing (so one more character past `4 * threshold` tips the
 * decision), non-Latin lines are tokenized and added.
 */
export async function estimateLines(lines: readonly string[]): Promise<LinesEstimate> {
  let latinChars = 0;
  let tokenizedSum = 0;
  const tokenized = new Map<number, number>();
  let count: CountTokens | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!NON_LATIN.test(line)) {
      latinChars += line.length;
      continue;
    }
    count ??= await loadTokenizer();
    const n = count(line);
    tokenized.set(i, n);
    tokenizedSum += n;
  }
  return { tokens: Math.ceil(latinChars / 4) + tokenizedSum, latinChars, tokenized };
}
