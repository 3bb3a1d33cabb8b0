import { jsonRpcErrorHttpResponse } from "@atlatl/lro/node";

/** The window refused listens are counted in. */
const WINDOW_MS = 60_000;

/**
 * At most `perMinute` refused 2026-07-28 `subscriptions/listen` requests per
 * principal in a minute; past that its listens are refused before they reach
 * the SDK (which builds a server instance for each, refused or not), until the
 * minute is over. A refused listen is one the SDK answered with an error
 * rather than a stream (its `maxSubscriptions` reached, bad params): cheap to
 * send, so a client looping on one must not cost the server work per request.
 */
export class ListenRefusals {
  private readonly windows = new Map<string, { start: number; refused: number }>();

  constructor(private readonly perMinute: number) {}

  /** The 429 for `principalId` while it is over the bound; undefined when its listen may go on. */
  check(principalId: string, now = Date.now()): Response | undefined {
    const w = this.windows.get(principalId);
    if (!w) return undefined;
    if (now - w.start >= WINDOW_MS) {
      this.windows.delete(principalId);
      return undefined;
    }
    if (w.refused < this.perMinute) return undefined;
    const retryAfter = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    return jsonRpcErrorHttpResponse(
      429,
      null,
      {
        code: -32000,
        message:
          `Too many refused subscriptions/listen: this token's listens were refused ${w.refused} times ` +
          `this minute ([server.http] max_listen_refusals_per_minute = ${this.perMinute}). ` +
          `End an open listen stream before opening another; retry after ${retryAfter} s.`,
      },
      { "retry-after": String(retryAfter) },
    );
  }

  /** Count a listen of `principalId` that was answered with an error instead of a stream. */
  refused(principalId: string, now = Date.now()): void {
    const w = this.windows.get(principalId);
    if (w && now - w.start < WINDOW_MS) w.refused++;
    else this.windows.set(principalId, { start: now, refused: 1 });
  }
}
