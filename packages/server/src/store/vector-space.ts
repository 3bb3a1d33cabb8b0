/** The one rule for a store's embedding space, for both backends (see `vector-index.ts`). */
import { EmbeddingsError } from "../embeddings/embeddings-client.js";
import type { EmbeddingSpace } from "./vector-index.js";

/**
 * Refuse `wanted` when the store's vectors were made in another space: distances
 * between vectors of two models mean nothing, so they are never mixed.
 */
export function spaceMismatch(stored: EmbeddingSpace, wanted: EmbeddingSpace): void {
  if (stored.model === wanted.model && stored.dimensions === wanted.dimensions) return;
  throw new EmbeddingsError(
    "EMBEDDINGS_MISMATCH",
    `the store's vectors were made with model ${stored.model} (${stored.dimensions} dimensions), but [embeddings] is model ${wanted.model} (${wanted.dimensions} dimensions); vectors of two models are never mixed: run \`atlatl embed --reset\` to re-embed every memory with ${wanted.model}, or set [embeddings] model and dimensions back to ${stored.model} and ${stored.dimensions}`,
  );
}
