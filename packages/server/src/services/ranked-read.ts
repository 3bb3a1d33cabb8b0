/**
 * One ranked read (recall or search) as one object: `stream()` yields every
 * hit from one pass over the store, and `firstPage(limit)` is the page the
 * paged call without a cursor returns. After a complete stream the page is the
 * stream's own first hits (the same objects, in order: `fromStream`), so a
 * caller that already turned them into lines reuses those lines and the store
 * is not asked twice; otherwise the page is one store query at the same clock.
 * What the read has asked of the store, and got, is reported as it happens
 * (`onProgress`), never ahead of it.
 */
import { encodeCursor } from "../model/cursor.js";
import type { Fielded, RankPosition, ReadFields } from "../store/store.js";
import { rankPositionFields } from "./cursor-args.js";
import { fromStoreError } from "./errors.js";
import { type ReadProgress, ReadWatch } from "./read-watch.js";

/** One hit of a ranked read: the memory, its score, where it stands (to page from it). */
export interface PositionedHit<M extends Fielded<ReadFields>> {
  memory: M;
  score: number;
  position: RankPosition;
}

export { PROGRESS_EVERY, type ReadOptions, type ReadProgress } from "./read-watch.js";

/** The first page of a ranked read. */
export interface RankedPage<M extends Fielded<ReadFields>> {
  /** Best first, at most `limit`. */
  hits: { memory: M; score: number }[];
  /** Pass back to the paged call for the next page; null when this page is the last. */
  next_cursor: string | null;
  /**
   * True when `hits` are the first hits `stream()` yielded (the same objects,
   * in order): whatever was made of them while streaming can be reused.
   */
  fromStream: boolean;
}

/** The operation-specific parts of a ranked read (see `RecallService.read`, `SearchService.read`). */
interface RankedReadSpec<M extends Fielded<ReadFields>> {
  op: "recall" | "search";
  /** The cursor's fingerprint of the query and filter. */
  print: string;
  /** Fields every cursor of this read carries besides the position and horizon (recall: its clock). */
  cursorFields: Record<string, unknown>;
  /** Every hit from the store, best first (scores as the caller shows them). */
  whole: () => AsyncIterable<PositionedHit<M>>;
  /** `count` hits from the store at or below `horizon`, best first. */
  page: (count: number, horizon: number) => Promise<PositionedHit<M>[]>;
  horizon: () => Promise<number>;
  /** How many first hits to keep while streaming (the page size asked for, plus one). */
  keep: number;
  onProgress?: ((progress: ReadProgress) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/** See the module comment. */
export class RankedRead<M extends Fielded<ReadFields>> {
  private readonly head: PositionedHit<M>[] = [];
  private horizonSeen = 0;
  private readonly watch: ReadWatch;
  private state: "new" | "streaming" | "complete" = "new";

  constructor(private readonly spec: RankedReadSpec<M>) {
    this.watch = new ReadWatch(spec);
  }

  /** Hits read from the store so far. */
  get count(): number {
    return this.watch.count;
  }

  /**
   * Every hit, best first, from one pass over the store. Once per read. With
   * `top`, the read is of the first `top` hits only (inject's pre-budget set):
   * the store is left after them, and that set has no next page.
   */
  async *stream(top = Number.POSITIVE_INFINITY): AsyncGenerator<PositionedHit<M>> {
    if (this.state !== "new") throw new Error("a ranked read streams once");
    this.state = "streaming";
    const watch = this.watch;
    watch.start();
    try {
      if (top > 0) {
        for await (const hit of this.spec.whole()) {
          watch.hit();
          if (this.head.length < this.spec.keep) this.head.push(hit);
          if (hit.position.seq > this.horizonSeen) this.horizonSeen = hit.position.seq;
          yield hit;
          if (watch.count >= top) break;
        }
      }
      watch.end();
    } catch (err) {
      fromStoreError(err, "query");
    }
    this.state = "complete";
  }

  /**
   * The first page of `limit` hits and the cursor after it, as the paged call
   * without a cursor returns them. From the streamed hits when the stream is
   * complete and kept enough of them; else one store query (at the horizon the
   * stream saw, when it saw one).
   */
  async firstPage(limit: number): Promise<RankedPage<M>> {
    const complete = this.state === "complete";
    if (complete && (this.head.length > limit || this.watch.count === this.head.length)) {
      return this.pageOf(this.head, limit, this.horizonSeen, true);
    }
    const horizon = complete ? this.horizonSeen : await this.spec.horizon();
    let hits: PositionedHit<M>[];
    try {
      this.spec.signal?.throwIfAborted();
      this.spec.onProgress?.({ kind: "query" });
      hits = await this.spec.page(limit + 1, horizon);
    } catch (err) {
      fromStoreError(err, "query");
    }
    return this.pageOf(hits, limit, horizon, false);
  }

  private pageOf(
    ranked: readonly PositionedHit<M>[],
    limit: number,
    horizon: number,
    fromStream: boolean,
  ): RankedPage<M> {
    return pageOf(this.spec, ranked, limit, horizon, fromStream);
  }
}

/** A page of `limit` hits from `limit + 1` ranked ones, and the cursor after it. */
export function pageOf<M extends Fielded<ReadFields>>(
  spec: Pick<RankedReadSpec<M>, "op" | "print" | "cursorFields">,
  ranked: readonly PositionedHit<M>[],
  limit: number,
  horizon: number,
  fromStream: boolean,
): RankedPage<M> {
  const page = ranked.slice(0, limit);
  const next_cursor =
    ranked.length > limit && page.length > 0
      ? encodeCursor(spec.op, spec.print, {
          ...rankPositionFields(page),
          h: horizon,
          ...spec.cursorFields,
        })
      : null;
  return {
    hits: page.map((h) => ({ memory: h.memory, score: h.score })),
    next_cursor,
    fromStream,
  };
}
