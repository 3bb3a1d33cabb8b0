/**
 * Cutting an upstream's byte stream into messages (stdio lines, SSE events) with
 * a bound: a message is held as a list of chunks (joined once, never concatenated
 * chunk by chunk), and one over the bound is dropped as it arrives, keeping only
 * its first and last bytes (whose response it was). Memory stays within the bound
 * whatever the upstream sends.
 */
import { KEPT_BYTES } from "./message-bound.js";

/** Finds where messages end. */
export interface MessageBoundary {
  /** The index just past the next message end in `chunk` from `from`, or -1. */
  next(chunk: Buffer, from: number): number;
}

/** A message ends after each `\n` (stdio). */
export const lineBoundary: MessageBoundary = {
  next(chunk, from) {
    const nl = chunk.indexOf(10, from);
    return nl < 0 ? -1 : nl + 1;
  },
};

const LF = 10;
const CR = 13;

/** An SSE event ends after a blank line; lines end in CRLF, LF or CR (the SSE specification's). */
export class SseEventBoundary implements MessageBoundary {
  private atLineStart = true;
  /** The last terminator was CR: an LF right after it belongs to it. */
  private afterCr = false;

  next(chunk: Buffer, from: number): number {
    let lf = chunk.indexOf(LF, from);
    let cr = chunk.indexOf(CR, from);
    let i = from;
    for (;;) {
      const t = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (t !== i && i < chunk.length) {
        // Line content before the terminator (or to the chunk's end).
        this.atLineStart = false;
        this.afterCr = false;
      }
      if (t < 0) return -1;
      const isCr = chunk[t] === CR;
      if (!isCr && this.afterCr) this.afterCr = false;
      else if (this.atLineStart) {
        this.afterCr = isCr;
        return t + 1;
      } else {
        this.atLineStart = true;
        this.afterCr = isCr;
      }
      i = t + 1;
      if (isCr) cr = chunk.indexOf(CR, i);
      else lf = chunk.indexOf(LF, i);
    }
  }
}

/** What became of one message. */
export interface FramerSink {
  /** A whole message within the bound, as the chunks it came in (terminator included). */
  message(parts: Buffer[], bytes: number): void;
  /** The message went over the bound: from now on its bytes are dropped. */
  overflow?(): void;
  /** A dropped message ended: its first and last bytes. */
  dropped(head: Buffer, tail: Buffer): void;
}

/** The first `n` bytes of `parts`. */
function firstBytes(parts: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (const p of parts) {
    if (size >= n) break;
    out.push(p.subarray(0, n - size));
    size += out[out.length - 1]?.length ?? 0;
  }
  return Buffer.concat(out);
}

/** The last `n` bytes of `parts`. */
function lastBytes(parts: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (let i = parts.length - 1; i >= 0 && size < n; i--) {
    const p = parts[i] as Buffer;
    const part = p.subarray(Math.max(0, p.length - (n - size)));
    out.unshift(part);
    size += part.length;
  }
  return Buffer.concat(out);
}

export class MessageFramer {
  private held: Buffer[] = [];
  private bytes = 0;
  private head: Buffer | undefined;
  private tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly maxBytes: number,
    private readonly boundary: MessageBoundary,
    private readonly sink: FramerSink,
  ) {}

  /** Feed the next chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const end = this.boundary.next(chunk, start);
      this.take(chunk.subarray(start, end < 0 ? chunk.length : end));
      if (end < 0) return;
      this.finish();
      start = end;
    }
  }

  private take(part: Buffer): void {
    this.bytes += part.length;
    if (this.head) {
      this.tail = lastBytes([this.tail, part], KEPT_BYTES);
    } else if (this.bytes > this.maxBytes) {
      const all = [...this.held, part];
      this.head = firstBytes(all, KEPT_BYTES);
      this.tail = lastBytes(all, KEPT_BYTES);
      this.held = [];
      this.sink.overflow?.();
    } else {
      this.held.push(part);
    }
  }

  private finish(): void {
    if (this.head) this.sink.dropped(this.head, this.tail);
    else this.sink.message(this.held, this.bytes);
    this.held = [];
    this.bytes = 0;
    this.head = undefined;
    this.tail = Buffer.alloc(0) as Buffer;
  }
}
