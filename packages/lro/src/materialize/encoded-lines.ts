/**
 * Lines encoded straight into UTF-8 chunks, for results too large to build a
 * string (or an object) per line: a 5 MB text is 50,000 line records, and
 * serializing each, then encoding them again, costs several times the text in
 * time and memory. The writer takes the chunks as they are
 * (`OffloadSection.encoded`).
 */

const CHUNK_BYTES = 1 << 20;
/** Characters JSON escapes (or, for surrogates, may escape when unpaired). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes.
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, newlines aside (they split lines).
const NEEDS_ESCAPING_BUT_NEWLINE = /["\\\u0000-\u0009\u000b-\u001f\ud800-\udfff]/;

/** JSONL lines appended as UTF-8, chunk by chunk; `count` lines, `bytes` bytes (newlines included). */
export class EncodedLines {
  readonly chunks: Uint8Array[] = [];
  bytes = 0;
  count = 0;
  private current = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;

  /** Make room for `chars` UTF-16 units (at most 3 UTF-8 bytes each) before {@link put}s. */
  reserve(chars: number): void {
    this.reserveBytes(chars * 3);
  }

  /** Make room for `max` bytes before {@link put}s. */
  reserveBytes(max: number): void {
    if (this.at + max <= this.current.length) return;
    if (this.at > 0) this.chunks.push(this.current.subarray(0, this.at));
    this.current = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, max));
    this.at = 0;
  }

  /**
   * Append `text` within reserved room. Buffer's own encoder without
   * `buf.write`'s argument handling (as the JSONL writer does), which costs
   * more than encoding a short line.
   */
  put(text: string): void {
    const buf = this.current as Buffer & { utf8Write?: (t: string, at: number) => number };
    const n = buf.utf8Write ? buf.utf8Write(text, this.at) : buf.write(text, this.at, "utf8");
    this.at += n;
    this.bytes += n;
  }

  /** Append one whole line (`line` is one JSON value, no newline). */
  line(line: string): void {
    this.reserve(line.length + 1);
    this.put(line);
    this.put("\n");
    this.count++;
  }

  /** The written bytes, as chunks (no more writes after this; idempotent). */
  finish(): readonly Uint8Array[] {
    if (this.at > 0) this.chunks.push(this.current.subarray(0, this.at));
    this.current = Buffer.alloc(0);
    this.at = 0;
    return this.chunks;
  }

  /** The lines back as strings (failure paths and small results only: it copies everything). */
  toLines(): string[] {
    const text = Buffer.concat(this.finish()).toString("utf8");
    const lines = text.split("\n");
    lines.pop();
    return lines;
  }
}

/**
 * Append the line records `{"block":block,"line":n,"text":"..."}` of one text
 * (lines numbered from 1; joining the texts with "\n" gives it back); returns
 * how many. One scan of the whole text usually settles that no line needs
 * escaping; each line is then written in parts, never concatenated first.
 */
export function encodeTextLines(out: EncodedLines, block: number, text: string): number {
  const prefix = `{"block":${block},"line":`;
  const escapeSome = NEEDS_ESCAPING_BUT_NEWLINE.test(text);
  let n = 0;
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const piece = nl < 0 ? text.slice(start) : text.slice(start, nl);
    n++;
    const quoted = escapeSome && NEEDS_ESCAPING.test(piece) ? JSON.stringify(piece) : undefined;
    const digits = String(n);
    // Written in parts: one concatenated string per line would be built and flattened first.
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
    out.count++;
    if (nl < 0) return n;
    start = nl + 1;
  }
}
