/**
 * The offload store factory: `offload_store.backend` picks the local file
 * system (the default: nothing shared) or PostgreSQL (the memory database, on
 * the instance's one pool: every instance of a scaled-out server reads every
 * instance's offload files). The PostgreSQL implementation is imported only
 * when chosen.
 */
import { LroError } from "@atlatl/lro";
import type pg from "pg";
import type { OffloadStoreConfig } from "../config/offload-store-config.js";
import { localServedStore, type ServedOffloadStore } from "./served-offload-store.js";

/** Options of {@link createOffloadStore}. */
export interface CreateOffloadStoreOptions {
  /** The instance's PostgreSQL pool (`openStorePool`): required by `backend = "postgres"`. */
  pool?: pg.Pool | undefined;
  /** Clock, epoch ms. */
  now?: () => number;
}

/**
 * The configured offload store, its tables created when missing. Fails with
 * a `StoreError` when they cannot be, and `OFFLOAD_STORE_FAILED` when
 * PostgreSQL is asked for without a pool (a SQLite store).
 */
export async function createOffloadStore(
  config: OffloadStoreConfig,
  options: CreateOffloadStoreOptions = {},
): Promise<ServedOffloadStore> {
  if (config.backend === "local") return localServedStore;
  if (!options.pool) {
    throw new LroError(
      "OFFLOAD_STORE_FAILED",
      'offload_store.backend = "postgres" keeps the files in the memory database: set store.url to a postgres:// URL',
    );
  }
  const { openPostgresOffloadStore } = await import("./postgres/open-postgres-offload-store.js");
  return openPostgresOffloadStore({
    pool: options.pool,
    quotaBytes: config.quotaBytes,
    ...(options.now ? { now: options.now } : {}),
  });
}
