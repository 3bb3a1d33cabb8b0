/**
 * The store factory: configuration picks the backend. A `postgres://` URL opens
 * PostgreSQL, otherwise the SQLite file at `path`. Each backend is imported
 * only when chosen, so a SQLite user never loads the PostgreSQL driver.
 */
import type pg from "pg";
import type { PostgresTimeouts } from "./postgres/pool-timeouts.js";
import type { MemoryStore } from "./store.js";

export interface OpenStoreConfig {
  /** SQLite database file (or `:memory:`), used when `url` is empty. */
  path: string;
  /** PostgreSQL connection URL; null or empty keeps SQLite. */
  url?: string | null | undefined;
  /** PostgreSQL's connect and statement bounds (default `DEFAULT_POSTGRES_TIMEOUTS`). */
  timeouts?: PostgresTimeouts | undefined;
  /** PostgreSQL: connections of the instance's one pool (default `DEFAULT_POOL_SIZE`). */
  poolSize?: number | undefined;
}

export interface OpenStoreOptions {
  /**
   * A read command (default false): the store is opened read-only and never
   * created or migrated, so a mistyped path fails with `OPEN_FAILED` instead of
   * leaving an empty database behind, and a read works where nothing can be
   * written. Commands that write create and migrate.
   */
  readOnly?: boolean | undefined;
  /**
   * PostgreSQL: the instance's pool ({@link openStorePool}), shared with its
   * offload and task stores; the caller ends it. Default: a pool of the
   * store's own, ended when it closes.
   */
  pool?: pg.Pool | undefined;
}

/**
 * The one PostgreSQL pool of an instance (its memory, offload and task stores
 * share it), or undefined for SQLite. Fails with `OPEN_FAILED` (the URL's
 * passwords masked) when the database cannot be reached.
 */
export async function openStorePool(config: OpenStoreConfig): Promise<pg.Pool | undefined> {
  if (!config.url) return undefined;
  const { openPostgresPool } = await import("./postgres/postgres-pool.js");
  return openPostgresPool({
    url: config.url,
    maxConnections: config.poolSize,
    timeouts: config.timeouts,
  });
}

/** Open the configured store (migrating its schema unless read-only). Fails with a `StoreError`. */
export async function openStore(
  config: OpenStoreConfig,
  options: OpenStoreOptions = {},
): Promise<MemoryStore> {
  if (config.url) {
    const { openPostgresStore } = await import("./postgres/open-postgres.js");
    return openPostgresStore({
      ...(options.pool
        ? { pool: options.pool }
        : { url: config.url, timeouts: config.timeouts, maxConnections: config.poolSize }),
      readOnly: options.readOnly,
    });
  }
  const { openSqliteStore } = await import("./sqlite/open-sqlite.js");
  return openSqliteStore({ path: config.path, readOnly: options.readOnly });
}
