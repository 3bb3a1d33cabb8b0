/** Where an SSE event ends, for `@atlatl/lro`'s message framer. */
import type { MessageBoundary } from "@atlatl/lro/node";

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
