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
import type { LightRecord } from "../model/memory.js";
import type { Fielded, MemoryFilter, ReadFields } from "../store/store.js";
import { checkCursorArg, checkLimit } from "./args.js";
import { member, openCursor, rankPositionOf } from "./cursor-args.js";
import { fusedScore, fusedValue, VECTOR_CANDIDATES } from "./fusion.js";
import type { ServiceOptions } from "./memory-service.js";
import { type PositionedHit, pageOf, RankedRead, type ReadOptions } from "./ranked-read.js";
import {
  DEFAULT_RECALL_LIMIT,
  RECALL_SCORING,
  type RecallInput,
  type RecallResult,
  RecallService,
} from "./recall-service.js";

/** Full memories read per statement while streaming a whole set at medium or full detail. */
const FULL_BATCH = 200;

/** See the module comment. */
export class HybridRecallService extends RecallService {
  override readonly byMeaning = true;

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
      page: (count, horizon) =>
        this.fused(text, filter, asOf, horizon, fields, options.signal, count),
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
    const ranked = await this.ranked(text, filter, asOf, horizon, signal);
    for (let i = 0; i < ranked.length; i += FULL_BATCH) {
      yield* await this.withFields(ranked.slice(i, i + FULL_BATCH), fields);
    }
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
    const rest = (await this.ranked(text, filter, asOf, horizon)).filter(
      (h) => h.score < after.value || (h.score === after.value && h.position.seq > after.seq),
    );
    const page = await this.withFields(rest.slice(0, limit + 1), "full");
    const spec = { op: "recall" as const, print, cursorFields: { t: asOf } };
    const { hits, next_cursor } = pageOf(spec, page, limit, horizon, false);
    return { hits, next_cursor };
  }

  /** `count` hits of the fused list, with the fields asked for. */
  private async fused<F extends ReadFields>(
    text: string,
    filter: MemoryFilter,
    asOf: number,
    horizon: number,
    fields: F | undefined,
    signal: AbortSignal | undefined,
    count: number,
  ): Promise<PositionedHit<Fielded<F>>[]> {
    const ranked = await this.ranked(text, filter, asOf, horizon, signal);
    return this.withFields(ranked.slice(0, count), fields);
  }

  /**
   * Every hit of the fused list at this clock and horizon, best first, as
   * light records: ranking reads no content; {@link withFields} reads the
   * full memories of the hits that are returned.
   */
  private async ranked(
    text: string,
    filter: MemoryFilter,
    asOf: number,
    horizon: number,
    signal?: AbortSignal,
  ): Promise<PositionedHit<LightRecord>[]> {
    const vector = await this.embeddings.queryVector(text, signal);
    const byId = new Map<
      string,
      { memory: LightRecord | undefined; seq: number; lexical?: number; vector?: number }
    >();
    let rank = 0;
    const scoring = { ...RECALL_SCORING, asOf };
    const lexical = this.store.rankAll({
      text,
      filter,
      scoring,
      floor: this.floor,
      fields: "light",
      horizon,
    });
    for await (const hit of lexical) {
      signal?.throwIfAborted();
      byId.set(hit.memory.id, { memory: hit.memory, seq: hit.position.seq, lexical: ++rank });
    }
    const near = await this.embeddings.vectors.nearest({
      vector,
      filter,
      limit: VECTOR_CANDIDATES,
      horizon,
      minSimilarity: this.embeddings.minSimilarity,
    });
    near.forEach((h, i) => {
      const known = byId.get(h.id);
      if (known) known.vector = i + 1;
      else byId.set(h.id, { memory: undefined, seq: h.seq, vector: i + 1 });
    });
    const missing = near.filter((h) => byId.get(h.id)?.memory === undefined).map((h) => h.id);
    for (const memory of await this.store.getMany(missing)) {
      const entry = byId.get(memory.id);
      if (entry) entry.memory = toLightRecord(memory);
    }
    const hits: PositionedHit<LightRecord>[] = [];
    for (const e of byId.values()) {
      if (e.memory === undefined) continue; // deleted since the vector read
      const score = fusedScore(fusedValue(e.lexical, e.vector));
      hits.push({ memory: e.memory, score, position: { value: score, seq: e.seq } });
    }
    hits.sort((a, b) => b.score - a.score || a.position.seq - b.position.seq);
    return hits;
  }

  /** These hits with the fields asked for: light as ranked, full read by id (one batch). */
  private async withFields<F extends ReadFields>(
    hits: readonly PositionedHit<LightRecord>[],
    fields: F | undefined,
  ): Promise<PositionedHit<Fielded<F>>[]> {
    if (fields === "light") return hits as PositionedHit<Fielded<F>>[];
    const full = new Map(
      (await this.store.getMany(hits.map((h) => h.memory.id))).map((m) => [m.id, m]),
    );
    const out: PositionedHit<Fielded<F>>[] = [];
    for (const h of hits) {
      const memory = full.get(h.memory.id);
      if (memory) out.push({ ...h, memory: memory as Fielded<F> });
    }
    return out;
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
