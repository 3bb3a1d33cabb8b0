/**
 * Cutting a byte stream into messages (stdio lines; a caller's boundary, such as
 * SSE events) with a bound, in time linear in the bytes: a message is held as a
 * list of chunks (joined once by its consumer, never concatenated chunk by
 * chunk), and one over the bound is dropped as it arrives, keeping only its first
 * and last bytes (enough to tell whose request or response it was). Memory stays
 * within the bound whatever the peer sends.
 */

/** Bytes kept from each end of a dropped message: enough for its id. */
const KEPT_BYTES = 512;

/** Finds where messages end. */
export interface MessageBoundary {
  /** The index just past the next message end in `chunk` from `from`, or -1. */
  next(chunk: Buffer, from: number): number;
}

/** A message ends after each `\n` (stdio: one JSON-RPC message per line). */
export const lineBoundary: MessageBoundary = {
  next(chunk, from) {
    const nl = chunk.indexOf(10, from);
    return nl < 0 ? -1 : nl + 1;
  },
};

/** What became of one message. */
export interface FramerSink {
  /** A whole message within the bound, as the chunks it came in (terminator included). */
  message(parts: Buffer[], bytes: number): void;
  /** The message went over the bound: from now on its bytes are dropped. */
  overflow?(): void;
  /** A dropped message ended: its first and last bytes, and its size. */
  dropped(head: Buffer, tail: Buffer, bytes: number): void;
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

/** Messages cut from a stream by `boundary`, each at most `maxBytes`, handed to `sink`. */
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

  /** The stream ended: a message without its end is delivered (or reported dropped) as it is. */
  flush(): void {
    if (this.bytes > 0) this.finish();
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
    if (this.head) this.sink.dropped(this.head, this.tail, this.bytes);
    else this.sink.message(this.held, this.bytes);
    this.held = [];
    this.bytes = 0;
    this.head = undefined;
    this.tail = Buffer.alloc(0) as Buffer;
  }
}
