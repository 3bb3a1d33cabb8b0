/** `seedStore`: a synthetic corpus into a MemoryStore, in transactions. */
import type { Memory } from "../model/memory.js";
import type { MemoryStore } from "../store/store.js";
import { type CorpusOptions, generateCorpus } from "./generate.js";

export const DEFAULT_SEED_BATCH_SIZE = 2000;

export interface SeedOptions extends CorpusOptions {
  /** Memories per transaction; default 2000 (SQLite commits dominate bulk loads: 2000 clears 10k/s with headroom). */
  batchSize?: number;
  /** Called after each committed batch. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/**
 * Generate `count` memories (deterministic for a seed) and upsert them in batches.
 * Returns how many were written. Seeding the same seed again updates the same ids.
 */
export async function seedStore(store: MemoryStore, options: SeedOptions): Promise<number> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_SEED_BATCH_SIZE));
  let batch: Memory[] = [];
  let done = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await store.upsertMany(batch);
    done += batch.length;
    batch = [];
    options.onProgress?.({ done, total: options.count });
  };
  for (const memory of generateCorpus(options)) {
    batch.push(memory);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  if (done > 0) await store.afterBulkWrite?.();
  return done;
}
