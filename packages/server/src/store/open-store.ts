/**
 * The store factory: configuration picks the backend. A `postgres://` URL opens
 * PostgreSQL, otherwise the SQLite file at `path`. Each backend is imported
 * only when chosen, so a SQLite user never loads the PostgreSQL driver.
 */
import type { MemoryStore } from "./store.js";

export interface OpenStoreConfig {
  /** SQLite database file (or `:memory:`), used when `url` is empty. */
  path: string;
  /** PostgreSQL connection URL; null or empty keeps SQLite. */
  url?: string | null | undefined;
}

export interface OpenStoreOptions {
  /**
   * Create the SQLite database when it does not exist (default true). Read-only
   * commands pass false: a mistyped path must fail with `OPEN_FAILED`, not
   * leave an empty database behind. (A PostgreSQL database is created by its
   * administrator; the schema is migrated in either case.)
   */
  create?: boolean | undefined;
}

/** Open the configured store, migrating its schema. Fails with a `StoreError`. */
export async function openStore(
  config: OpenStoreConfig,
  options: OpenStoreOptions = {},
): Promise<MemoryStore> {
  if (config.url) {
    const { openPostgresStore } = await import("./postgres/open-postgres.js");
    return openPostgresStore({ url: config.url });
  }
  const { openSqliteStore } = await import("./sqlite/sqlite-store.js");
  return openSqliteStore({ path: config.path, mustExist: options.create === false });
}
