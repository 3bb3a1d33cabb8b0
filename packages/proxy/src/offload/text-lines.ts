/**
 * The text section's lines, encoded straight into UTF-8 chunks: one line record
 * `{"block":i,"line":n,"text":"..."}` per line of text. A 5 MB text is 50,000
 * lines; building a string (or an object) per line and encoding them again costs
 * several times the text in time and memory, so each line is written once into
 * a chunk, as is when it needs no JSON escaping (the common case) and through
 * `JSON.stringify` when it does.
 */

const CHUNK_BYTES = 1 << 20;
/** Characters JSON escapes (or, for surrogates, may escape when unpaired). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes.
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** UTF-8 bytes appended chunk by chunk; the chunks are the output. */
export class ChunkedUtf8 {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  private current = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;

  write(text: string): void {
    // A UTF-8 character is at most 3 bytes per UTF-16 unit.
    const max = text.length * 3;
    if (this.at + max > this.current.length) {
      this.flush();
      if (max > this.current.length) this.current = Buffer.allocUnsafe(max);
    }
    const n = this.current.write(text, this.at, "utf8");
    this.at += n;
    this.bytes += n;
  }

  private flush(): void {
    if (this.at > 0) this.chunks.push(this.current.subarray(0, this.at));
    this.current = Buffer.allocUnsafe(CHUNK_BYTES);
    this.at = 0;
  }

  /** The written bytes, as chunks (no more writes after this). */
  finish(): Buffer[] {
    this.flush();
    return this.chunks;
  }
}

/** Append the line records of text block `block` (each ending in `\n`); returns how many. */
export function encodeTextLines(out: ChunkedUtf8, block: number, text: string): number {
  const prefix = `{"block":${block},"line":`;
  let n = 0;
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const piece = nl < 0 ? text.slice(start) : text.slice(start, nl);
    n++;
    const quoted = NEEDS_ESCAPING.test(piece) ? JSON.stringify(piece) : `"${piece}"`;
    out.write(`${prefix}${n},"text":${quoted}}\n`);
    if (nl < 0) return n;
    start = nl + 1;
  }
}
