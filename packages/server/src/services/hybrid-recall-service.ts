/**
 * Hybrid recall (with `[embeddings]`): the lexical ranking of `RecallService`
 * and the query's nearest vectors, fused by reciprocal rank (`fusion.ts`).
 * An empty query has no meaning to compare and stays `RecallService`'s.
 *
 * The fused list is built whole (both lists are needed to rank either), at
 * one clock and one horizon, so it is the same on every call with them: a
 * page is a slice, and a cursor continues after its (score, seq) position in
 * the list rebuilt at the cursor's clock and horizon. An endpoint that is
 * down or slower than `[embeddings] timeout_seconds` fails the call with
 * `EMBEDDINGS_UNAVAILABLE`, never a hang; `search_memories` stays lexical.
 */
import type { MemoryEmbeddings } from "../embeddings/memory-embeddings.js";
import { fingerprint } from "../model/cursor.js";
import { toLightRecord } from "../model/detail.js";
import type { Fielded, MemoryFilter, ReadFields } from "../store/store.js";
import { checkCursorArg, checkLimit } from "./args.js";
import { member, openCursor, rankPositionOf } from "./cursor-args.js";
import { fusedScore, fusedValue, MIN_SIMILARITY, VECTOR_CANDIDATES } from "./fusion.js";
import type { ServiceOptions } from "./memory-service.js";
import { type PositionedHit, pageOf, RankedRead, type ReadOptions } from "./ranked-read.js";
import {
  DEFAULT_RECALL_LIMIT,
  RECALL_SCORING,
  type RecallInput,
  type RecallResult,
  RecallService,
} from "./recall-service.js";

/** See the module comment. */
export class HybridRecallService extends RecallService {
  constructor(
    store: ConstructorParameters<typeof RecallService>[0],
    private readonly embeddings: MemoryEmbeddings,
    options: ServiceOptions = {},
  ) {
    super(store, options);
  }

  private print(text: string, filter: MemoryFilter): string {
    return fingerprint({
      op: "recall",
      query: text,
      filter,
      embeddings: this.embeddings.embedder.model,
    });
  }

  override read<F extends ReadFields = "full">(
    input: Omit<RecallInput, "cursor">,
    options: ReadOptions<F> = {},
  ): RankedRead<Fielded<F>> {
    const { text, filter } = this.checked(input);
    if (text.length === 0) return super.read(input, options);
    const limit = checkLimit(input.limit, DEFAULT_RECALL_LIMIT);
    const asOf = this.now().getTime();
    const fields = options.fields;
    return new RankedRead<Fielded<F>>({
      op: "recall",
      print: this.print(text, filter),
      cursorFields: { t: asOf },
      keep: limit + 1,
      onProgress: options.onProgress,
      signal: options.signal,
      horizon: () => this.store.horizon(),
      whole: () => this.streamed(text, filter, asOf, fields, options.signal),
      page: async (count, horizon) =>
        (await this.fused(text, filter, asOf, horizon, fields, options.signal)).slice(0, count),
    });
  }

  private async *streamed<F extends ReadFields>(
    text: string,
    filter: MemoryFilter,
    asOf: number,
    fields: F | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<PositionedHit<Fielded<F>>> {
    const horizon = await this.store.horizon();
    yield* await this.fused(text, filter, asOf, horizon, fields, signal);
  }

  override async recall(input: RecallInput): Promise<RecallResult> {
    const { text, filter } = this.checked(input);
    const cursor = checkCursorArg(input.cursor);
    if (text.length === 0 || cursor === undefined) return super.recall(input);
    const limit = checkLimit(input.limit, DEFAULT_RECALL_LIMIT);
    const print = this.print(text, filter);
    const p = openCursor(cursor, "recall", print);
    const asOf = member(p, "t", "number");
    const horizon = member(p, "h", "number");
    const after = rankPositionOf(p);
    const all = await this.fused<"full">(text, filter, asOf, horizon, "full");
    const rest = all.filter(
      (h) => h.score < after.value || (h.score === after.value && h.position.seq > after.seq),
    );
    const spec = { op: "recall" as const, print, cursorFields: { t: asOf } };
    const { hits, next_cursor } = pageOf(spec, rest.slice(0, limit + 1), limit, horizon, false);
    return { hits, next_cursor };
  }

  /** Every hit of the fused list at this clock and horizon, best first. */
  private async fused<F extends ReadFields>(
    text: string,
    filter: MemoryFilter,
    asOf: number,
    horizon: number,
    fields: F | undefined,
    signal?: AbortSignal,
  ): Promise<PositionedHit<Fielded<F>>[]> {
    const vector = await this.embeddings.queryVector(text, signal);
    const byId = new Map<
      string,
      { memory: Fielded<F>; seq: number; lexical?: number; vector?: number }
    >();
    let rank = 0;
    const scoring = { ...RECALL_SCORING, asOf };
    for await (const hit of this.store.rankAll({ text, filter, scoring, fields, horizon })) {
      signal?.throwIfAborted();
      byId.set(hit.memory.id, {
        memory: hit.memory as Fielded<F>,
        seq: hit.position.seq,
        lexical: ++rank,
      });
    }
    const near = await this.embeddings.vectors.nearest({
      vector,
      filter,
      limit: VECTOR_CANDIDATES,
      horizon,
      minSimilarity: MIN_SIMILARITY,
    });
    const missing: string[] = [];
    near.forEach((h, i) => {
      const known = byId.get(h.id);
      if (known) known.vector = i + 1;
      else missing.push(h.id);
    });
    if (missing.length > 0) {
      const rankOf = new Map(near.map((h, i) => [h.id, { seq: h.seq, rank: i + 1 }]));
      for (const memory of await this.store.getMany(missing)) {
        const at = rankOf.get(memory.id);
        if (!at) continue;
        byId.set(memory.id, {
          memory: (fields === "light" ? toLightRecord(memory) : memory) as Fielded<F>,
          seq: at.seq,
          vector: at.rank,
        });
      }
    }
    const hits = [...byId.values()].map((e) => {
      const score = fusedScore(fusedValue(e.lexical, e.vector));
      return { memory: e.memory, score, position: { value: score, seq: e.seq } };
    });
    hits.sort((a, b) => b.score - a.score || a.position.seq - b.position.seq);
    return hits;
  }
}

/**
 * Recall as ranked ids, best first (the labelled-set bench's column): the same
 * read the `recall_memories` tool makes, lexical or hybrid as configured.
 */
export async function recallIds(
  recall: RecallService,
  query: string,
  limit = 10,
): Promise<string[]> {
  const ids: string[] = [];
  for await (const hit of recall.read({ query, limit }, { fields: "light" }).stream(limit)) {
    ids.push(hit.memory.id);
  }
  return ids;
}
