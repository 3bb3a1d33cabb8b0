/**
 * The vector part of the storage seam (hybrid recall): one method set,
 * implemented by `sqlite/vector-index.ts` and `postgres/vector-index.ts`, run
 * through one contract suite (`test/store/vector-index.contract.ts`). What
 * differs between them is {@link VectorCapabilities}.
 *
 * Vectors are keyed by a memory's sequence number and read joined to
 * `memories`, so a deleted memory's vector is never returned (the backfill
 * prunes it) and no trigger or foreign key ties the memory tables to a table
 * that exists only where embeddings are configured. Each vector carries the
 * hash of the text it was made from: a memory whose title or content changed
 * since is stale, and `atlatl embed` redoes it.
 */
import type { EmbeddingRef } from "../model/memory.js";
import type { MemoryFilter } from "./store.js";

/** The model and vector length every vector of a store was made with. */
export interface EmbeddingSpace {
  model: string;
  dimensions: number;
}

/** How a backend stores and compares vectors. */
export interface VectorCapabilities {
  /** `sqlite-vec` (float32 blobs, its `vec_distance_cosine`), `pgvector` (`vector(n)`, `<=>`), or `array` (`real[]`, an exact scan in SQL). */
  readonly engine: "sqlite-vec" | "pgvector" | "array";
  /** True when nearest-neighbour reads are exact (every vector compared); false for an approximate index. */
  readonly exact: boolean;
}

/** One vector to store: the memory's id, the hash of its embedded text, the unit vector. */
export interface VectorEntry {
  id: string;
  hash: string;
  vector: Float32Array;
}

/** A memory as the backfill sees it: what to embed and the hash of the vector it has, if any. */
export interface EmbedCandidate {
  seq: number;
  id: string;
  title: string;
  content: string;
  /** Hash stored with its vector; null when it has none. */
  hash: string | null;
}

/** A nearest memory and its cosine similarity to the query, in [-1, 1]. */
export interface VectorHit {
  id: string;
  seq: number;
  similarity: number;
}

export interface NearestQuery {
  vector: Float32Array;
  filter?: MemoryFilter | undefined;
  /** At most this many, most similar first (ties: insertion order). */
  limit: number;
  /** Only memories whose sequence number is at most this. */
  horizon?: number | undefined;
  /** Only vectors at least this similar. */
  minSimilarity: number;
}

/** See the module comment. */
export interface VectorIndex {
  readonly capabilities: VectorCapabilities;
  /**
   * Bind the store to `space`: created on first use; a store whose vectors were
   * made with another model or length is refused with `EMBEDDINGS_MISMATCH`
   * (both named) unless `reset`, which drops every vector first. `readOnly`
   * creates nothing (a store without vectors reads as having none).
   */
  open(space: EmbeddingSpace, options?: { reset?: boolean; readOnly?: boolean }): Promise<void>;
  /** The space recorded in the store, or null when none is. */
  space(): Promise<EmbeddingSpace | null>;
  /**
   * Store vectors (replacing a memory's previous one) and, in the same
   * transaction, set each memory's MIF `embedding` reference to `ref(id)`.
   * Unknown ids are skipped. Returns how many were stored.
   */
  put(entries: readonly VectorEntry[], ref: (id: string) => EmbeddingRef): Promise<number>;
  /** Remove the vectors of these memories and clear their `embedding` reference. */
  remove(ids: readonly string[]): Promise<void>;
  /** Memories after `afterSeq` in sequence order, at most `limit`, any status (the backfill's walk). */
  candidates(afterSeq: number, limit: number): Promise<EmbedCandidate[]>;
  /** The nearest memories to `query.vector` among those matching the filter. */
  nearest(query: NearestQuery): Promise<VectorHit[]>;
  /** Delete vectors whose memory is gone; returns how many. */
  prune(): Promise<number>;
  /** How many memories have a vector. */
  count(): Promise<number>;
}
