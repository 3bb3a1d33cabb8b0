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
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, newlines aside (they split lines).
const NEEDS_ESCAPING_BUT_NEWLINE = /["\\\u0000-\u0009\u000b-\u001f\ud800-\udfff]/;

/** UTF-8 bytes appended chunk by chunk; the chunks are the output. */
export class ChunkedUtf8 {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  private current = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;

  /** Make room for `chars` UTF-16 units (at most 3 UTF-8 bytes each) before {@link put}s. */
  reserve(chars: number): void {
    const max = chars * 3;
    if (this.at + max <= this.current.length) return;
    if (this.at > 0) this.chunks.push(this.current.subarray(0, this.at));
    this.current = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, max));
    this.at = 0;
  }

  /**
   * Append `text` within reserved room. Buffer's own encoder without
   * `buf.write`'s argument handling (as the library's JSONL writer does), which
   * costs more than encoding a short line.
   */
  put(text: string): void {
    const buf = this.current as Buffer & { utf8Write?: (t: string, at: number) => number };
    const n = buf.utf8Write ? buf.utf8Write(text, this.at) : buf.write(text, this.at, "utf8");
    this.at += n;
    this.bytes += n;
  }

  write(text: string): void {
    this.reserve(text.length);
    this.put(text);
  }

  /** The written bytes, as chunks (no more writes after this). */
  finish(): Buffer[] {
    if (this.at > 0) this.chunks.push(this.current.subarray(0, this.at));
    this.current = Buffer.alloc(0);
    this.at = 0;
    return this.chunks;
  }
}

/** Append the line records of text block `block` (each ending in `\n`); returns how many. */
export function encodeTextLines(out: ChunkedUtf8, block: number, text: string): number {
  const prefix = `{"block":${block},"line":`;
  // One scan of the whole text usually settles it: no line needs escaping.
  const escapeSome = NEEDS_ESCAPING_BUT_NEWLINE.test(text);
  let n = 0;
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const piece = nl < 0 ? text.slice(start) : text.slice(start, nl);
    n++;
    // Written in parts: one concatenated string per line would be built and flattened first.
    const quoted = escapeSome && NEEDS_ESCAPING.test(piece) ? JSON.stringify(piece) : undefined;
    const digits = String(n);
    out.reserve(prefix.length + digits.length + 13 + (quoted ?? piece).length);
    out.put(prefix);
    out.put(digits);
    if (quoted) {
      out.put(',"text":');
      out.put(quoted);
      out.put("}\n");
    } else {
      out.put(',"text":"');
      out.put(piece);
      out.put('"}\n');
    }
    if (nl < 0) return n;
    start = nl + 1;
  }
}
