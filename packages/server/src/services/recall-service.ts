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
 *         the same on every page. x is the engine's score times the
 *         memory's coverage squared (the share of the query's words it
 *         carries, rarer words weighing more: `store/term-coverage.ts`), so
 *         carrying more of the query ranks higher; memories carrying too
 *         little of it are not matches (`relevance-floor.ts`).
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
import { fingerprint } from "../model/cursor.js";
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
import { member, openCursor, rankPositionOf } from "./cursor-args.js";
import { fromStoreError, invalidArgument } from "./errors.js";
import type { ServiceOptions } from "./memory-service.js";
import { type PositionedHit, pageOf, RankedRead, type ReadOptions } from "./ranked-read.js";
import { DEFAULT_RELEVANCE_FLOOR_PERCENT, floorFraction } from "./relevance-floor.js";

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

export interface RecallResult<M extends Fielded<ReadFields> = Memory> {
  /** Best first: score desc, then insertion order. */
  hits: RecallHit<M>[];
  /** Pass back to get the next page; null when this page is the last. */
  next_cursor: string | null;
}

/** Ranked recall over the store. Knows nothing of offloading. */
export class RecallService {
  /** Whether recall also matches by meaning (hybrid, with `[embeddings]`). */
  readonly byMeaning: boolean = false;
  protected readonly now: () => Date;
  /** The store's relevance floor (see `relevance-floor.ts`). */
  protected readonly floor: number | undefined;
  constructor(
    protected readonly store: MemoryStore,
    options: ServiceOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.floor = floorFraction(options.relevanceFloorPercent ?? DEFAULT_RELEVANCE_FLOOR_PERCENT);
  }

  /** The query's words and filter, checked (throws `INVALID_ARGUMENT`). */
  protected checked(input: RecallInput): { text: string; filter: MemoryFilter } {
    const query = input?.query ?? "";
    if (typeof query !== "string") throw invalidArgument("query", "query must be text.");
    if (query.length > MAX_QUERY_CHARS) {
      throw invalidArgument("query", `query must be at most ${MAX_QUERY_CHARS} characters.`);
    }
    refuseNul("query", query);
    return { text: query.trim(), filter: normalizeFilter(input?.filter) };
  }

  /**
   * One ranked read of `input` (see `RankedRead`): `stream()` yields every
   * hit `recall` would page through, best first, scored at one clock, from
   * one pass over the store, each memory with the `fields` asked for (see
   * `ReadFields`); `firstPage(limit)` is the page `recall` returns without a
   * cursor. Arguments are checked now; `input.limit` is the page size the
   * caller will ask for (the stream keeps that many first hits, plus one).
   */
  read<F extends ReadFields = "full">(
    input: Omit<RecallInput, "cursor">,
    options: ReadOptions<F> = {},
  ): RankedRead<Fielded<F>> {
    const { text, filter } = this.checked(input);
    const limit = checkLimit(input.limit, DEFAULT_RECALL_LIMIT);
    const asOf = this.now().getTime();
    const scoring = { ...(text.length > 0 ? RECALL_SCORING : RECALL_SCORING_NO_TEXT), asOf };
    const store = this.store;
    const floor = this.floor;
    return new RankedRead<Fielded<F>>({
      op: "recall",
      print: fingerprint({ op: "recall", query: text, filter }),
      cursorFields: { t: asOf },
      keep: limit + 1,
      onProgress: options.onProgress,
      signal: options.signal,
      horizon: () => store.horizon(),
      whole: () => clamped(store.rankAll({ text, filter, scoring, floor, fields: options.fields })),
      page: async (count, horizon) =>
        (await store.rank({ text, filter, scoring, floor, limit: count, horizon })).map((h) => ({
          memory: h.memory as Fielded<F>,
          score: clamp01(h.score),
          position: h.position,
        })),
    });
  }

  async recall(input: RecallInput): Promise<RecallResult> {
    const { text, filter } = this.checked(input);
    const limit = checkLimit(input.limit, DEFAULT_RECALL_LIMIT);
    const cursor = checkCursorArg(input.cursor);
    if (cursor === undefined) {
      const { hits, next_cursor } = await this.read(input).firstPage(limit);
      return { hits, next_cursor };
    }
    const print = fingerprint({ op: "recall", query: text, filter });
    const p = openCursor(cursor, "recall", print);
    const asOf = member(p, "t", "number");
    const horizon = member(p, "h", "number");
    const base = text.length > 0 ? RECALL_SCORING : RECALL_SCORING_NO_TEXT;
    let ranked: Awaited<ReturnType<MemoryStore["rank"]>>;
    try {
      ranked = await this.store.rank({
        text,
        filter,
        scoring: { ...base, asOf },
        floor: this.floor,
        limit: limit + 1,
        after: rankPositionOf(p),
        horizon,
      });
    } catch (err) {
      fromStoreError(err, "query");
    }
    const hits = ranked.map((h) => ({ ...h, score: clamp01(h.score) }));
    const spec = { op: "recall" as const, print, cursorFields: { t: asOf } };
    const { hits: page, next_cursor } = pageOf(spec, hits, limit, horizon, false);
    return { hits: page, next_cursor };
  }
}

/** Hits with their scores clamped to [0, 1]. */
async function* clamped<M extends Fielded<ReadFields>>(
  hits: AsyncIterable<{ memory: M; score: number; position: RankPosition }>,
): AsyncGenerator<PositionedHit<M>> {
  for await (const h of hits)
    yield { memory: h.memory, score: clamp01(h.score), position: h.position };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
