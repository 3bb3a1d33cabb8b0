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

/** True once the tokenizer has been requested (it is loaded only for non-Latin text). */
export function isTokenizerLoaded(): boolean {
  return tokenizer !== undefined;
}

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

/** UTF-8 size of `text` (surrogate pairs as 4 bytes, a lone surrogate as U+FFFD's 3). */
export function utf8LengthPortable(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 2;
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

const nodeBuffer = (globalThis as { Buffer?: { byteLength(s: string, encoding: "utf8"): number } })
  .Buffer;

/**
 * UTF-8 size of `text`. Node's native count where there is one (measured ~15x
 * faster than a regex or a JS loop), a JS count elsewhere.
 */
export const utf8Length: (text: string) => number = nodeBuffer
  ? (text) => nodeBuffer.byteLength(text, "utf8")
  : utf8LengthPortable;

/**
 * Measures serialized lines one by one as one result set: Latin lines' characters
 * are summed before dividing (so one character past `4 * threshold` tips the
 * decision), non-Latin lines are tokenized and added. Also reports each line's
 * UTF-8 size, found in the same scan, so the writer needs no encoding pass.
 */
export class LineMeter {
  latinChars = 0;
  tokenizedSum = 0;
  /** Token counts of the non-Latin lines, by index. */
  readonly tokenized = new Map<number, number>();
  private count: CountTokens | undefined;

  /** Estimated tokens of the lines so far. */
  get tokens(): number {
    return Math.ceil(this.latinChars / 4) + this.tokenizedSum;
  }

  /**
   * Measure line `index`; returns its UTF-8 size, or -1 (nothing counted) when it
   * needs the tokenizer and that is not loaded yet: `await ready()` and call again.
   */
  add(line: string, index: number): number {
    if (!NON_LATIN.test(line)) {
      this.latinChars += line.length;
      return utf8Length(line);
    }
    if (!this.count) return -1;
    const n = this.count(line);
    this.tokenized.set(index, n);
    this.tokenizedSum += n;
    return utf8Length(line);
  }

  /** Load the tokenizer (once per process). */
  async ready(): Promise<void> {
    this.count ??= await loadTokenizer();
  }

  /** Measure, loading the tokenizer first if this line needs it. */
  async addAsync(line: string, index: number): Promise<number> {
    const bytes = this.add(line, index);
    if (bytes >= 0) return bytes;
    await this.ready();
    return this.add(line, index);
  }

  /** The totals as a {@link LinesEstimate}. */
  snapshot(): LinesEstimate {
    return { tokens: this.tokens, latinChars: this.latinChars, tokenized: this.tokenized };
  }
}

/** Estimate serialized record lines as one result set (see {@link LineMeter}). */
export async function estimateLines(lines: readonly string[]): Promise<LinesEstimate> {
  const meter = new LineMeter();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (meter.add(line, i) < 0) await meter.addAsync(line, i);
  }
  return meter.snapshot();
}

/**
 * Estimated tokens of a whole MCP `CallToolResult` (its JSON), against `threshold`.
 * The texts alone, at chars / 4, decide when they are already above: the JSON
 * is longer still, and non-Latin text only costs more tokens per character (a
 * large text is then never serialized again). Else the JSON is serialized and,
 * at or below the threshold by chars / 4, estimated properly.
 */
export async function estimateCallResultTokens(
  result: { content?: unknown },
  threshold: number,
): Promise<number> {
  let chars = 0;
  for (const block of Array.isArray(result.content) ? result.content : []) {
    const b = block as { type?: unknown; text?: unknown } | null;
    if (b?.type === "text" && typeof b.text === "string") chars += b.text.length;
  }
  const byText = Math.ceil(chars / 4);
  if (byText > threshold) return byText;
  return estimateTextTokens(JSON.stringify(result), threshold);
}

/**
 * Tokens of `text` as judged against `threshold`: chars / 4 above it decides
 * alone (non-Latin text, the only kind the tokenizer is for, costs more tokens
 * per character, not fewer); at or below it, the real estimate.
 */
export async function estimateTextTokens(text: string, threshold: number): Promise<number> {
  const byChars = Math.ceil(text.length / 4);
  return byChars > threshold ? byChars : estimateTokens(text);
}
