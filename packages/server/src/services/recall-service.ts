/**
 * Recall: memories ranked for a query by one score in [0, 1].
 *
 * Scoring (evaluated by the store, see `Scoring` in `store/store.ts`):
 *
 *   score = 0.7 * r + 0.2 * c + 0.1 * 0.5 ^ (age / 30 days)
 *
 *   r   = x / (x + 5): the backend's raw text relevance x (title weighted
 *         above tags above content, higher is better; SQLite: bm25 negated,
 *         PostgreSQL: ts_rank scaled alike) squashed into [0, 1); a title hit
 *         on a rare word lands near 0.8, a single content hit near 0.5.
 *         Monotone in x, and independent of the other hits, so a score means
 *         the same on every page. More matching words rank higher.
 *   c   = provenance.confidence, 0.5 when unknown.
 *   age = time since `modified`, measured from the first page's clock.
 *
 * An empty query has no text term: score = (2/3) c + (1/3) recency, so
 * "everything, most trusted and freshest first" still spans [0, 1].
 *
 * Pages: keyset on (score desc, insertion order) after the last hit. The
 * cursor pins the clock (recency does not drift between pages) and a horizon
 * (the store's sequence mark at the first page), so memories captured during
 * the walk never enter it. Relevance may read corpus-wide statistics (bm25), so
 * adding memories nudges every score; the store therefore re-scores the cursor's last
 * hit under the current statistics and continues after that value, not the
 * stale one (see `RankPosition`). A walk visits every hit exactly once unless
 * two hits swap places across a page boundary between calls; `list` is the
 * exact walk.
 */
import { encodeCursor, fingerprint } from "../model/cursor.js";
import { READ_LIMITS } from "../model/limits.js";
import type { Memory } from "../model/memory.js";
import type {
  Fielded,
  MemoryFilter,
  MemoryStore,
  RankPosition,
  ReadFields,
  Scoring,
} from "../store/store.js";
import {
  checkCursorArg,
  checkLimit,
  type FilterInput,
  normalizeFilter,
  refuseNul,
} from "./args.js";
import { member, openCursor, rankPositionFields, rankPositionOf } from "./cursor-args.js";
import { fromStoreError, invalidArgument } from "./errors.js";
import type { ServiceOptions } from "./memory-service.js";

/** Default number of recall hits. */
export const DEFAULT_RECALL_LIMIT = 20;

/** Longest accepted query, in characters. */
export const MAX_QUERY_CHARS = READ_LIMITS.queryChars;

const DAY_MS = 86_400_000;

/** The scoring of a query with words (see the module comment); `asOf` is set per walk. */
export const RECALL_SCORING: Omit<Scoring, "asOf"> = {
  weights: { relevance: 0.7, confidence: 0.2, recency: 0.1 },
  relevanceHalf: 5,
  defaultConfidence: 0.5,
  halfLifeMs: 30 * DAY_MS,
};

/** The scoring of an empty query: confidence and recency only, still in [0, 1]. */
export const RECALL_SCORING_NO_TEXT: Omit<Scoring, "asOf"> = {
  ...RECALL_SCORING,
  weights: { relevance: 0, confidence: 2 / 3, recency: 1 / 3 },
};

export interface RecallInput {
  /** Plain words (any may match, the last also as a prefix); empty or absent recalls by confidence and recency. */
  query?: string | undefined;
  filter?: FilterInput | undefined;
  /** 1 to 1000, default 20. */
  limit?: number | undefined;
  /** `next_cursor` of the previous page, with the same query and filter. */
  cursor?: string | null | undefined;
}

/** One recalled memory and its score in [0, 1]. */
export interface RecallHit<M extends Fielded<ReadFields> = Memory> {
  memory: M;
  score: number;
}

/** A hit of {@link RecallService.all}: where it stands, to page from it. */
export interface PositionedHit<M extends Fielded<ReadFields> = Memory> extends RecallHit<M> {
  position: RankPosition;
}

/** The hits of one whole-set read, and the clock they were scored at. */
export interface WholeRecall<M extends Fielded<ReadFields>>
  extends AsyncIterable<PositionedHit<M>> {
  /** The recency clock of this read: a page built from it pins the same one. */
  readonly asOf: number;
}

export interface RecallResult<M extends Fielded<ReadFields> = Memory> {
  /** Best first: score desc, then insertion order. */
  hits: RecallHit<M>[];
  /** Pass back to get the next page; null when this page is the last. */
  next_cursor: string | null;
}

/** Ranked recall over the store. Knows nothing of offloading. */
export class RecallService {
  private readonly now: () => Date;
  constructor(
    private readonly store: MemoryStore,
    options: ServiceOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** The query's words and filter, checked (throws `INVALID_ARGUMENT`). */
  private checked(input: RecallInput): { text: string; filter: MemoryFilter } {
    const query = input?.query ?? "";
    if (typeof query !== "string") throw invalidArgument("query", "query must be text.");
    if (query.length > MAX_QUERY_CHARS) {
      throw invalidArgument("query", `query must be at most ${MAX_QUERY_CHARS} characters.`);
    }
    refuseNul("query", query);
    return { text: query.trim(), filter: normalizeFilter(input?.filter) };
  }

  /**
   * Every hit `recall` would page through, best first, scored at one clock and
   * read from the store in one pass (no cursor, no limit). Arguments are
   * checked now; the store is read as the result is iterated. Each memory
   * has the `fields` asked for (see `ReadFields`; default the whole memory).
   */
  all<F extends ReadFields = "full">(
    input: Omit<RecallInput, "limit" | "cursor">,
    fields?: F,
  ): WholeRecall<Fielded<F>> {
    const { text, filter } = this.checked(input);
    const base = text.length > 0 ? RECALL_SCORING : RECALL_SCORING_NO_TEXT;
    const asOf = this.now().getTime();
    const hits = this.store.rankAll({ text, filter, scoring: { ...base, asOf }, fields });
    const iterate = async function* () {
      try {
        for await (const h of hits) {
          yield { memory: h.memory, score: clamp01(h.score), position: h.position };
        }
      } catch (err) {
        fromStoreError(err, "query");
      }
    };
    return { asOf, [Symbol.asyncIterator]: iterate };
  }

  /**
   * The first page `recall` (no cursor) returns, built from hits already read
   * by {@link all} instead of a second store query: `head` holds that read's
   * first `limit + 1` hits (fewer when the read had fewer), in its order;
   * `horizon` is the largest sequence number of all its hits (every memory at
   * or below it existed at the read, so the walk sees the same set); `asOf`
   * is the read's clock. The cursor continues exactly as `recall`'s would.
   */
  firstPage<M extends Fielded<ReadFields>>(
    input: Omit<RecallInput, "cursor">,
    read: { head: readonly PositionedHit<M>[]; horizon: number; asOf: number },
  ): RecallResult<M> {
    const { text, filter } = this.checked(input);
    const limit = checkLimit(input.limit, DEFAULT_RECALL_LIMIT);
    const print = fingerprint({ op: "recall", query: text, filter });
    return pageOf(read.head, limit, print, read.horizon, read.asOf);
  }

  async recall(input: RecallInput): Promise<RecallResult> {
    const { text, filter } = this.checked(input);
    const limit = checkLimit(input.limit, DEFAULT_RECALL_LIMIT);
    const cursor = checkCursorArg(input.cursor);
    const print = fingerprint({ op: "recall", query: text, filter });

    let asOf: number;
    let horizon: number;
    let after: RankPosition | undefined;
    if (cursor !== undefined) {
      const p = openCursor(cursor, "recall", print);
      asOf = member(p, "t", "number");
      horizon = member(p, "h", "number");
      after = rankPositionOf(p);
    } else {
      asOf = this.now().getTime();
      horizon = await this.store.horizon();
    }

    const base = text.length > 0 ? RECALL_SCORING : RECALL_SCORING_NO_TEXT;
    let ranked: Awaited<ReturnType<MemoryStore["rank"]>>;
    try {
      ranked = await this.store.rank({
        text,
        filter,
        scoring: { ...base, asOf },
        limit: limit + 1,
        after,
        horizon,
      });
    } catch (err) {
      fromStoreError(err, "query");
    }
    return pageOf(ranked, limit, print, horizon, asOf);
  }
}

/** A page of `limit` hits from `limit + 1` ranked ones, and the cursor after it. */
function pageOf<M extends Fielded<ReadFields>>(
  ranked: readonly { memory: M; score: number; position: RankPosition }[],
  limit: number,
  print: string,
  horizon: number,
  asOf: number,
): RecallResult<M> {
  const page = ranked.slice(0, limit);
  const last = page[page.length - 1];
  const next_cursor =
    ranked.length > limit && last
      ? encodeCursor("recall", print, { ...rankPositionFields(page), h: horizon, t: asOf })
      : null;
  return {
    hits: page.map((h) => ({ memory: h.memory, score: clamp01(h.score) })),
    next_cursor,
  };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
