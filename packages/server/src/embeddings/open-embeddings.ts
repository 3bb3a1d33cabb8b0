/** Hybrid recall's start: the endpoint's client and the store's vectors, bound to the configured model. */
import type { EmbeddingsConfig } from "../config/embeddings-config.js";
import { StoreError } from "../store/errors.js";
import type { MemoryStore } from "../store/store.js";
import { EmbeddingsClient } from "./embeddings-client.js";
import { MemoryEmbeddings } from "./memory-embeddings.js";

/**
 * Null without `[embeddings]`. Otherwise the store's vector index opened for
 * the configured model and length: a store whose vectors came from another
 * is refused here, at start, with `EMBEDDINGS_MISMATCH` (unless `reset`).
 * Write-time embedding failures are reported on stderr as JSON lines.
 */
export async function openEmbeddings(
  config: EmbeddingsConfig | null,
  store: MemoryStore,
  options: { readOnly: boolean; reset: boolean },
): Promise<MemoryEmbeddings | null> {
  if (config === null) return null;
  const vectors = store.vectors?.();
  if (!vectors) {
    throw new StoreError("BACKEND", "this memory store keeps no vectors; unset [embeddings] url");
  }
  await vectors.open(
    { model: config.model, dimensions: config.dimensions },
    { readOnly: options.readOnly, reset: options.reset },
  );
  return new MemoryEmbeddings(
    vectors,
    new EmbeddingsClient(config),
    (message) => {
      process.stderr.write(
        `${JSON.stringify({ level: "warn", code: "EMBEDDINGS_UNAVAILABLE", message })}\n`,
      );
    },
    config.minSimilarity,
  );
}
