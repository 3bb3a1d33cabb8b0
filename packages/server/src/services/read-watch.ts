/**
 * What a whole-set read (ranked or listed) reports and obeys, hit by hit: one
 * rule for every read, so recall, search and list cannot drift apart. The
 * read reports `query` when it asks the store, `hits` every
 * {@link PROGRESS_EVERY} hits it got and `done` at the end; it stops (throws
 * the signal's reason) before the store is asked, at each hit the store hands
 * over, and before it declares itself complete, so a cancelled call reads no
 * further and its caller writes nothing.
 */
import type { ReadFields } from "../store/store.js";

/** What a read has done with the store so far. */
export type ReadProgress =
  /** The store is being asked (the first hit was requested). */
  | { kind: "query" }
  /** `read` hits have come back from the store so far (every {@link PROGRESS_EVERY}). */
  | { kind: "hits"; read: number }
  /** The store has no more hits: `read` in all. */
  | { kind: "done"; read: number };

/** Options of a whole-set read (`RecallService.read`, `SearchService.read`, `ListService.all`). */
export interface ReadOptions<F extends ReadFields> {
  /** The fields each memory is read with (default the whole memory). */
  fields?: F | undefined;
  /** Told what the read has asked of the store and got, as it happens. */
  onProgress?: ((progress: ReadProgress) => void) | undefined;
  /** Stops the read (see the module comment). */
  signal?: AbortSignal | undefined;
}

/** Hits between two `hits` progress reports. */
export const PROGRESS_EVERY = 1000;

/** One whole-set read's progress and cancellation (see the module comment). */
export class ReadWatch {
  private read = 0;

  constructor(private readonly options: Omit<ReadOptions<ReadFields>, "fields">) {}

  /** Hits the store has handed over so far. */
  get count(): number {
    return this.read;
  }

  /** Before the store is asked. */
  start(): void {
    this.options.signal?.throwIfAborted();
    this.options.onProgress?.({ kind: "query" });
  }

  /** The store handed over one more hit. */
  hit(): void {
    this.options.signal?.throwIfAborted();
    this.read++;
    if (this.read % PROGRESS_EVERY === 0)
      this.options.onProgress?.({ kind: "hits", read: this.read });
  }

  /** The store has no more: a read cancelled by now is not complete. */
  end(): void {
    this.options.signal?.throwIfAborted();
    this.options.onProgress?.({ kind: "done", read: this.read });
  }
}
