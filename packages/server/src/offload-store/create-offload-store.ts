/**
 * The offload store factory: `offload_store.backend` picks the local file
 * system (the default: one instance, nothing shared) or PostgreSQL (the
 * memory database: every instance of a scaled-out server reads every
 * instance's offload files). The PostgreSQL driver is imported only when chosen.
 */
import { localOffloadStore, type OffloadStore, redactUrl } from "@atlatl/lro/node";
import type pg from "pg";
import type { OffloadStoreConfig } from "../config/offload-store-config.js";
import type { PostgresTimeouts } from "../store/postgres/pool-timeouts.js";

/** Options of {@link createOffloadStore}. */
export interface CreateOffloadStoreOptions {
  /** The memory store's PostgreSQL URL (the shared store's database). */
  url?: string | null | undefined;
  /** The connect and statement bounds of the pool opened from `url` (`[store]`). */
  timeouts?: PostgresTimeouts | undefined;
  /** A pool to use instead of opening one from `url` (the caller ends it). */
  pool?: pg.Pool | undefined;
  /** A schema to create the tables in (tests isolate by schema; default the URL's search_path). */
  schema?: string | undefined;
  /** Clock, epoch ms. */
  now?: () => number;
}

/** Connections of the store's own pool: offload transfers never starve memory queries. */
const POOL_SIZE = 4;

/**
 * The configured offload store, its tables created when missing. Throws
 * `LroError` `OFFLOAD_STORE_FAILED` when PostgreSQL cannot be reached.
 */
export async function createOffloadStore(
  config: OffloadStoreConfig,
  options: CreateOffloadStoreOptions = {},
): Promise<OffloadStore> {
  if (config.backend === "local") return localOffloadStore;
  const { openPostgresOffloadStore } = await import("./postgres/open-postgres-offload-store.js");
  const url = options.url ?? "";
  return openPostgresOffloadStore({
    ...(options.pool
      ? { pool: options.pool }
      : { url, maxConnections: POOL_SIZE, timeouts: options.timeouts }),
    quotaBytes: config.quotaBytes,
    describe: redactUrl(url),
    ...(options.schema ? { schema: options.schema } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}
