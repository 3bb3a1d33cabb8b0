/**
 * Sweeping a shared offload store: expired files are deleted from the store
 * by whichever instance gets them first (the store returns each to exactly
 * one), and that instance alone reports `OffloadFileExpired`. Local copies of
 * shared files are a cache: the directory sweeper drops them without events.
 */
import { join } from "node:path";
import type { LroEvents } from "../events/events.js";
import { offloadFileNaming } from "../materialize/file-name.js";
import type { OffloadStore, SweptOffload } from "./offload-store.js";

/** Options of {@link sweepOffloadStore}. */
export interface SweepOffloadStoreOptions {
  store: OffloadStore;
  /** Clock, epoch ms (default `Date.now`). */
  now?: () => number;
  /** The principal's offload directory on this instance (the path events name). */
  dirOf(principal: string): string;
  /** Where the principal's events go (its own hub when this instance knows it). */
  eventsOf(principal: string): LroEvents | undefined;
  filePrefix?: string | undefined;
}

/** Delete the store's expired files, reporting each this instance deleted; the deleted files. */
export async function sweepOffloadStore(
  options: SweepOffloadStoreOptions,
): Promise<SweptOffload[]> {
  const now = (options.now ?? Date.now)();
  const swept = await options.store.sweep(now);
  const naming = offloadFileNaming(options.filePrefix);
  for (const file of swept) {
    options.eventsOf(file.principal)?.emit({
      type: "OffloadFileExpired",
      time: new Date(now).toISOString(),
      path: join(options.dirOf(file.principal), file.name),
      operation: naming.parse(file.name)?.operation ?? null,
      created_at: new Date(file.createdAt).toISOString(),
      expired_at: new Date(file.expiresAt).toISOString(),
      reason: "expired",
      bytes: file.size,
    });
  }
  return swept;
}
