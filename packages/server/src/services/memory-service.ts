/** Capture, get, update and forget single memories. */
import { BATCH_LIMITS, MEMORY_LIMITS } from "../model/limits.js";
import type { Memory } from "../model/memory.js";
import {
  applyPatch,
  buildMemory,
  type CaptureInput,
  isProblem,
  type MemoryPatch,
} from "../model/new-memory.js";
import { isStoreError } from "../store/errors.js";
import type { MemoryStore } from "../store/store.js";
import { fromStoreError, invalidArgument } from "./errors.js";

/** Optimistic update attempts before giving up with `CONFLICT` (contention on one memory). */
const MAX_UPDATE_ATTEMPTS = 20;

/** Options shared by the services: an injectable clock for tests. */
export interface ServiceOptions {
  now?: () => Date;
  /**
   * Runs after memories are captured or updated (hybrid recall embeds them and
   * sets their `embedding` reference, which the call then returns); must not throw.
   */
  afterWrite?: ((memories: readonly Memory[]) => Promise<void>) | undefined;
  /** Recall and search keep matches scoring at least this percentage of the best (see `relevance-floor.ts`). */
  relevanceFloorPercent?: number | undefined;
}

function checkId(id: unknown): string {
  if (typeof id !== "string" || id.length === 0 || id.length > MEMORY_LIMITS.idChars) {
    throw invalidArgument(
      "id",
      "id must be the id string of a memory (from capture, recall or list).",
    );
  }
  return id;
}

/** Single-memory operations. Validation failures are `ServiceError` `INVALID_ARGUMENT`. */
export class MemoryService {
  private readonly now: () => Date;
  private readonly afterWrite: (memories: readonly Memory[]) => Promise<void>;
  constructor(
    private readonly store: MemoryStore,
    options: ServiceOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.afterWrite = options.afterWrite ?? (async () => {});
  }

  /**
   * Store a new memory. Only `content` is required; the id is a fresh UUID, the
   * title defaults to the content's first heading (else first line), `memory_type` to `semantic`, the
   * namespace to `_{memory_type}/general`.
   */
  async capture(input: CaptureInput): Promise<Memory> {
    const memory = buildMemory(input, { now: this.now() });
    if (isProblem(memory)) throw invalidArgument(memory.field, memory.message);
    try {
      await this.store.insert(memory);
    } catch (err) {
      fromStoreError(err, "memory");
    }
    await this.afterWrite([memory]);
    return memory;
  }

  /**
   * Store many new memories, all or nothing: each item is checked like
   * {@link capture} (its problem is `INVALID_ARGUMENT` naming `memories[i]`),
   * the batch against {@link BATCH_LIMITS}, and then every memory is inserted
   * in one transaction. Returns the memories in the order given.
   */
  async captureMany(inputs: readonly CaptureInput[]): Promise<Memory[]> {
    if (!Array.isArray(inputs) || inputs.length === 0) {
      throw invalidArgument("memories", "memories must be a non-empty array of memories.");
    }
    if (inputs.length > BATCH_LIMITS.memories) {
      throw invalidArgument(
        "memories",
        `At most ${BATCH_LIMITS.memories} memories per call (got ${inputs.length}); split the batch.`,
      );
    }
    let bytes = 0;
    for (const input of inputs) bytes += Buffer.byteLength(JSON.stringify(input) ?? "");
    if (bytes > BATCH_LIMITS.totalBytes) {
      throw invalidArgument(
        "memories",
        `The batch is ${bytes} bytes of JSON, over ${BATCH_LIMITS.totalBytes}; split it into smaller calls.`,
      );
    }
    const now = this.now();
    const batch = inputs.map((input, index) => {
      const memory = buildMemory(input, { now });
      if (isProblem(memory)) {
        throw invalidArgument(
          `memories[${index}].${memory.field}`,
          `memories[${index}]: ${memory.message} Nothing was stored.`,
        );
      }
      return memory;
    });
    try {
      await this.store.insertMany(batch);
    } catch (err) {
      fromStoreError(err, "memories");
    }
    await this.afterWrite(batch);
    return batch;
  }

  /** The memory with `id`, or undefined when there is none. */
  async get(id: string): Promise<Memory | undefined> {
    return this.store.get(checkId(id));
  }

  /**
   * Apply a partial change and bump `modified`. Returns the updated memory, or
   * undefined when there is no memory with `id`. Read-modify-write with an
   * optimistic check: when another writer (another process on the same
   * database) changed the memory in between, the store refuses with
   * `CONFLICT` and the patch is re-applied to the fresh memory, so no update
   * is lost.
   */
  async update(id: string, patch: MemoryPatch): Promise<Memory | undefined> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.store.get(checkId(id));
      if (!current) return undefined;
      const next = applyPatch(current, patch, this.now());
      if (isProblem(next)) throw invalidArgument(next.field, next.message);
      let stored = false;
      try {
        stored = await this.store.update(next, { expected: current });
      } catch (err) {
        if (isStoreError(err, "CONFLICT") && attempt < MAX_UPDATE_ATTEMPTS) continue;
        fromStoreError(err, "memory");
      }
      if (stored) await this.afterWrite([next]);
      return stored ? next : undefined;
    }
  }

  /** Delete the memory with `id`; false when there was none. */
  async forget(id: string): Promise<boolean> {
    return this.store.delete(checkId(id));
  }
}
