import type { LightRecord, Memory, MemoryStatus, MemoryType } from "../model/memory.js";
import type { VectorIndex } from "./vector-index.js";

/** Filters shared by list, search and recall. All given conditions must hold. */
export interface MemoryFilter {
  /** Namespace prefix on whole segments: `_semantic` matches `_semantic/decisions`, not `_semanticx`. */
  namespace?: string | undefined;
  memory_type?: MemoryType | undefined;
  /** Every listed tag must be present (exact, case-sensitive). */
  tags?: readonly string[] | undefined;
  /** Defaults to `active`; `any` disables the status filter. */
  status?: MemoryStatus | "any" | undefined;
}

export type ListSort = "created" | "modified" | "title";
export type SortOrder = "asc" | "desc";

/**
 * Keyset position in a listing: the sort key and sequence number of the last
 * row seen (epoch milliseconds for `created`/`modified`, the title for
 * `title`). Opaque to callers: take it from {@link ListedMemory.position}.
 */
export interface ListPosition {
  key: string | number;
  seq: number;
}

export interface ListQuery {
  filter?: MemoryFilter | undefined;
  sort: ListSort;
  order: SortOrder;
  limit: number;
  /**
   * Rows strictly after this position in (sort key, seq) order, both in the
   * direction of `order`: ties on the key keep insertion order. Title order is
   * case-insensitive for ASCII letters.
   */
  after?: ListPosition | undefined;
  /**
   * Rows to skip before the page, in the database (read, never decoded).
   * Only for a store whose capabilities have `listOffset`.
   */
  offset?: number | undefined;
}

/**
 * Which fields of each memory a whole-set read fills in: `full` (the default)
 * the whole memory; `light` only those of a light record, so the backend
 * neither reads nor decodes content, document and enrichment it would throw away.
 */
export type ReadFields = "light" | "full";

/** The memory a read of `fields` yields. */
export type Fielded<F extends ReadFields> = F extends "light" ? LightRecord : Memory;

/** The query of a whole-set read: no page, and the fields to read. */
export type WholeQuery<Q, F extends ReadFields> = Omit<Q, "limit" | "after"> & {
  fields?: F | undefined;
};

/** A listed memory and the position to continue after it. */
export interface ListedMemory<M extends LightRecord = Memory> {
  memory: M;
  position: ListPosition;
}

/**
 * Keyset position in a ranked result: rows strictly after (value desc, seq asc),
 * i.e. ties on the value keep insertion order. Relevance drifts with corpus
 * statistics as memories are added or removed, so backends re-anchor on the
 * *current* value of the memory with sequence number `seq` when it is still a
 * hit, else of the first of `previous` that is, and use `value` only when none
 * is. Opaque to callers: take it from a hit's `position`.
 */
export interface RankPosition {
  value: number;
  seq: number;
  /** Sequence numbers of the hits just before `seq`, nearest first: fallback anchors. */
  previous?: readonly number[] | undefined;
  /**
   * The store's write epoch when the position was issued. While it is current,
   * no statistics have moved and `value` is used as it is (no re-anchoring).
   */
  epoch?: number | undefined;
}

export interface TextQuery {
  /**
   * Full-text query. `syntax: "plain"` treats it as words (any may match, the
   * last also as a prefix); `syntax: "native"` reads the query language of
   * `query-syntax.ts` (see {@link StoreCapabilities.querySyntax}). No text is
   * malformed: a query without a searchable word has no hits.
   */
  text: string;
  syntax: "plain" | "native";
  filter?: MemoryFilter | undefined;
  limit: number;
  /** Hits strictly after this (relevance, seq) position (see {@link RankPosition}). */
  after?: RankPosition | undefined;
  /** Only memories whose sequence number is at most this (see {@link MemoryStore.horizon}). */
  horizon?: number | undefined;
  /**
   * The relevance floor, a fraction in (0, 1]: only hits whose coverage is at
   * least this share of the best coverage among the query's hits (with its
   * filter and horizon); see `services/relevance-floor.ts`.
   */
  floor?: number | undefined;
}

/** A full-text hit with the backend's raw relevance (higher is better, >= 0). */
export interface TextHit<M extends LightRecord = Memory> {
  memory: M;
  relevance: number;
  /** Where the hit stands: continue after it with `after: position` (add `previous`). */
  position: RankPosition;
}

/**
 * How {@link MemoryStore.rank} scores a memory, all terms in [0, 1]:
 *
 *   score = w.relevance  * r
 *         + w.confidence * (provenance.confidence ?? defaultConfidence)
 *         + w.recency    * 0.5 ^ (max(0, asOf - modified) / halfLife)
 *
 * where r = x / (x + relevanceHalf) and x is the raw relevance of
 * {@link TextHit} (r = 0 when `text` is empty, i.e. no text condition). With
 * weights summing to 1 the score lies in [0, 1]. The formula is fixed here so
 * every backend ranks alike; callers choose the numbers.
 */
export interface Scoring {
  weights: { relevance: number; confidence: number; recency: number };
  /** Raw relevance at which r = 0.5. */
  relevanceHalf: number;
  /** Used when a memory has no confidence. */
  defaultConfidence: number;
  /** Half-life of the recency term, in milliseconds. */
  halfLifeMs: number;
  /** The clock for recency, epoch milliseconds; fixed across pages of one walk. */
  asOf: number;
}

export interface RankQuery {
  /** Plain words (any may match); empty means every memory matching the filter, text without a word none. */
  text: string;
  filter?: MemoryFilter | undefined;
  scoring: Scoring;
  limit: number;
  /** Hits strictly after this (score, seq) position (see {@link RankPosition}). */
  after?: RankPosition | undefined;
  /** Only memories whose sequence number is at most this. */
  horizon?: number | undefined;
  /**
   * The relevance floor, a fraction in (0, 1]: only hits whose coverage is at
   * least this share of the best coverage among the query's hits (with its
   * filter and horizon); see `services/relevance-floor.ts`.
   */
  floor?: number | undefined;
}

/** A ranked hit: the combined score of {@link Scoring} and the raw text relevance. */
export interface RankedHit<M extends LightRecord = Memory> {
  memory: M;
  score: number;
  relevance: number;
  /** Where the hit stands: continue after it with `after: position` (add `previous`). */
  position: RankPosition;
}

export interface UpdateOptions {
  /** The memory as the caller read it (see {@link MemoryStore.update}). */
  expected?: Memory | undefined;
}

export interface UpsertReport {
  inserted: number;
  updated: number;
}

/** The full-text query language, as tools describe it to a model. */
export interface QuerySyntax {
  /** Short name, e.g. `atlatl` (see `query-syntax.ts`). */
  readonly name: string;
  /** One sentence: what the language accepts (words, phrases, operators). */
  readonly summary: string;
  /** A query in the language, e.g. `cache redis OR memcached`. */
  readonly example: string;
}

/** What a backend can do; services branch on these, never on the backend's kind. */
export interface StoreCapabilities {
  /** Name of the full-text engine, e.g. `fts5` or `tsvector`. */
  readonly fullText: string;
  /** True when native query syntax (phrases, boolean operators, prefixes) is supported. */
  readonly nativeQuerySyntax: boolean;
  /** The native language (meaningful when `nativeQuerySyntax`). */
  readonly querySyntax: QuerySyntax;
  /** True when `list` honours `ListQuery.offset`; otherwise callers read the skipped rows and drop them. */
  readonly listOffset?: boolean;
}

/**
 * The storage seam: `store/sqlite/` and `store/postgres/` implement it (both run
 * `test/store/store.contract.ts`); `openStore` in `open-store.ts` picks one by
 * configuration.
 * Every method is async so that a network backend fits the same shape. Failures
 * are `StoreError`s with a string code.
 */
export interface MemoryStore {
  readonly capabilities: StoreCapabilities;
  get(id: string): Promise<Memory | undefined>;
  /** The memories with these ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly string[]): Promise<Memory[]>;
  /** Fails with a `StoreError` of code `DUPLICATE_ID` when the id exists. */
  insert(memory: Memory): Promise<void>;
  /**
   * Insert new memories, in order, in one transaction: every one is stored or
   * none; an id that exists or repeats fails the whole call with `DUPLICATE_ID`.
   */
  insertMany(memories: readonly Memory[]): Promise<void>;
  /**
   * Insert or replace by id, all in one transaction: either every memory is stored
   * or none (a bad row fails the whole call with `INVALID_MEMORY`).
   */
  upsertMany(memories: readonly Memory[]): Promise<UpsertReport>;
  /**
   * Replace a stored memory; false when the id is unknown. With `expected`, an
   * optimistic check: the replacement happens only if the stored memory still
   * equals `expected` (what the caller read), else it fails with a `StoreError`
   * of code `CONFLICT` and changes nothing, so read-modify-write callers on
   * several processes never lose an update (they re-read and retry).
   */
  update(memory: Memory, options?: UpdateOptions): Promise<boolean>;
  /** False when the id is unknown. */
  delete(id: string): Promise<boolean>;
  /**
   * A page of memories in the query's order. With `fields: "light"` only a
   * light record's fields need be read (a backend may still fill in more).
   */
  list<F extends ReadFields = "full">(
    query: ListQuery & { fields?: F | undefined },
  ): Promise<ListedMemory<Fielded<F>>[]>;
  /** Full-text hits by raw relevance desc, then insertion order. */
  search(query: TextQuery): Promise<TextHit[]>;
  /** Hits by combined score desc, then insertion order (see {@link Scoring}). */
  rank(query: RankQuery): Promise<RankedHit[]>;
  /**
   * Every hit of `rank`, in its order (score desc, seq asc), read in one pass,
   * each memory with the `fields` asked for (see {@link ReadFields}).
   */
  rankAll<F extends ReadFields = "full">(
    query: WholeQuery<RankQuery, F>,
  ): AsyncIterable<RankedHit<Fielded<F>>>;
  /** Every hit of `search`, in its order (relevance desc, seq asc), read in one pass (see `rankAll`). */
  searchAll<F extends ReadFields = "full">(
    query: WholeQuery<TextQuery, F>,
  ): AsyncIterable<TextHit<Fielded<F>>>;
  /** Every memory of `list`, in the query's order, read in one pass (see `rankAll`). */
  listAll<F extends ReadFields = "full">(
    query: WholeQuery<ListQuery, F>,
  ): AsyncIterable<ListedMemory<Fielded<F>>>;
  count(filter?: MemoryFilter): Promise<number>;
  /**
   * A value that differs after any process commits a write to the store, so a
   * result read at one value may be reused while it holds. Present only on
   * backends that can tell cheaply and synchronously (SQLite); its absence
   * (PostgreSQL) means nothing read may be reused across calls.
   */
  writeEpoch?(): string;
  /** Every matching memory, in (created, insertion) order, read in pages. */
  iterate(filter?: MemoryFilter): AsyncIterable<Memory>;
  /**
   * The current sequence mark: every stored memory has a sequence number, new
   * inserts get larger ones (updates keep theirs). Ranked walks pass it as
   * `horizon` so memories added mid-walk do not shift later pages.
   */
  horizon(): Promise<number>;
  /**
   * Upkeep after a bulk write (an import, a seed): fold into the read
   * structures what the backend deferred while writing, so the reads that
   * follow are as fast as later ones. Optional: a backend that defers nothing
   * leaves it out. Everything written stays written whatever this does.
   */
  afterBulkWrite?(): Promise<void>;
  /**
   * The store's vectors (hybrid recall, `vector-index.ts`). Nothing is created
   * until the index is opened, which only a configured `[embeddings]` does.
   */
  vectors?(): VectorIndex;
  close(): Promise<void>;
}
