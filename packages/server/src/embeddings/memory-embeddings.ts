/**
 * Memories and their vectors: what text a memory is embedded from, the MIF
 * `embedding` reference a memory with a vector carries, embedding on write,
 * the backfill of `atlatl embed`, and a query's vector.
 */
import { createHash } from "node:crypto";
import { DEFAULT_MIN_SIMILARITY_PERCENT } from "../config/embeddings-config.js";
import type { EmbeddingRef, Memory } from "../model/memory.js";
import type { VectorIndex } from "../store/vector-index.js";
import type { Embedder } from "./embeddings-client.js";

/** Memories per step of the backfill's walk (one read, at most one embeddings request per batch size). */
const BACKFILL_PAGE = 256;

/** The text a memory is embedded from: its title, a blank line, its content. */
function embedText(memory: { title: string; content: string }): string {
  return `${memory.title}\n\n${memory.content}`;
}

/** The hash stored beside a vector: of the model and the text, so either changing makes it stale. */
function textHash(model: string, text: string): string {
  return createHash("sha256")
    .update(model)
    .update("\u0000")
    .update(text)
    .digest("hex")
    .slice(0, 32);
}

/** Where a memory's vector is: in this store, under the memory's id (MIF `vectorUri`). */
function vectorUri(id: string): string {
  return `urn:atlatl:vector:${encodeURIComponent(id)}`;
}

/** Progress of {@link MemoryEmbeddings.backfill}. */
interface BackfillProgress {
  /** Memories looked at so far. */
  scanned: number;
  /** Memories in the store when the walk began. */
  total: number;
  /** Vectors made so far. */
  embedded: number;
}

/** See the module comment. */
export class MemoryEmbeddings {
  constructor(
    readonly vectors: VectorIndex,
    readonly embedder: Embedder,
    /** Where a write's embedding failure is reported (the memory is stored regardless). */
    private readonly warn: (message: string) => void = () => {},
    /** Least cosine similarity of a memory recalled by meaning (`[embeddings] min_similarity_percent`). */
    readonly minSimilarity = DEFAULT_MIN_SIMILARITY_PERCENT / 100,
  ) {}

  /** The MIF reference of a memory whose vector this store holds. */
  ref(id: string): EmbeddingRef {
    return {
      model: this.embedder.model,
      model_version: null,
      dimensions: this.embedder.dimensions,
      source_text: null,
      vector_uri: vectorUri(id),
      normalized: true,
    };
  }

  /** Embed and store these memories' vectors (throws `EMBEDDINGS_UNAVAILABLE`). */
  async index(
    memories: readonly { id: string; title: string; content: string }[],
    signal?: AbortSignal,
  ): Promise<number> {
    if (memories.length === 0) return 0;
    const texts = memories.map(embedText);
    const vectors = await this.embedder.embed(texts, signal);
    return this.vectors.put(
      memories.map((m, i) => ({
        id: m.id,
        hash: textHash(this.embedder.model, texts[i] as string),
        vector: vectors[i] as Float32Array,
      })),
      (id) => this.ref(id),
    );
  }

  /**
   * After a capture or update: embed the written memories and set their
   * `embedding` to what the store now holds, so the write's result shows it.
   * A failure never fails the write: their old vectors (now stale) are
   * removed, the failure is reported, and `atlatl embed` picks them up later.
   */
  async afterWrite(memories: readonly Memory[]): Promise<void> {
    try {
      await this.index(memories);
      for (const m of memories) m.embedding = this.ref(m.id);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.warn(
        `${memories.length} memor${memories.length === 1 ? "y was" : "ies were"} stored without a vector (${message}); run \`atlatl embed\` once the endpoint answers`,
      );
      for (const m of memories) m.embedding = null;
      await this.vectors.remove(memories.map((m) => m.id)).catch(() => undefined);
    }
  }

  /** The unit vector of a recall query (throws `EMBEDDINGS_UNAVAILABLE`). */
  async queryVector(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.embedder.embed([text], signal);
    return vector as Float32Array;
  }

  /**
   * Embed every memory without a current vector (none, or made from other
   * text), in sequence order, committing each batch: an interrupted run loses
   * at most one batch, and the next run skips what is done. Vectors of
   * deleted memories are pruned first.
   */
  async backfill(
    total: number,
    onProgress: (p: BackfillProgress) => void = () => {},
  ): Promise<BackfillProgress & { pruned: number }> {
    const pruned = await this.vectors.prune();
    const progress: BackfillProgress = { scanned: 0, total, embedded: 0 };
    onProgress(progress);
    let after = 0;
    for (;;) {
      const page = await this.vectors.candidates(after, BACKFILL_PAGE);
      if (page.length === 0) break;
      after = (page[page.length - 1] as { seq: number }).seq;
      const stale = page.filter((c) => c.hash !== textHash(this.embedder.model, embedText(c)));
      progress.embedded += await this.index(stale);
      progress.scanned += page.length;
      onProgress(progress);
    }
    return { ...progress, pruned };
  }
}
