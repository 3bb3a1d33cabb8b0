/** Opening the PostgreSQL memory store: on the instance's pool, its schema checked or migrated. */
import type pg from "pg";
import { migrate, readableVersion } from "./migrations.js";
import type { PostgresTimeouts } from "./pool-timeouts.js";
import { pgStoreError } from "./postgres-errors.js";
import { openPostgresPool } from "./postgres-pool.js";
import { PostgresMemoryStore } from "./postgres-store.js";

/** Options of {@link openPostgresStore}: the instance's pool, or a URL to open one of its own. */
type PostgresStoreOptions = (
  | {
      /** The instance's pool (`openPostgresPool`), shared with its other stores; the caller ends it. */
      pool: pg.Pool;
    }
  | {
      /** postgres://user:password@host:port/database */
      url: string;
      /** A schema to use (created if missing) instead of the user's default; tests isolate by schema. */
      schema?: string | undefined;
      /** Pool size (default `DEFAULT_POOL_SIZE`). */
      maxConnections?: number | undefined;
      /** Connect and statement bounds (default `DEFAULT_POSTGRES_TIMEOUTS`). */
      timeouts?: PostgresTimeouts | undefined;
    }
) & {
  /** Read commands: never create the schema or migrate; refuse one that is missing or outdated. */
  readOnly?: boolean | undefined;
};

/**
 * The memory store on PostgreSQL, its schema migrated (or, read-only,
 * checked). Fails with `OPEN_FAILED` when the server cannot be reached or
 * refuses the login, and `SCHEMA_TOO_NEW` for a database written by a newer
 * atlatl. Given a URL, the store opens its own pool and ends it on close.
 */
export async function openPostgresStore(
  options: PostgresStoreOptions,
): Promise<PostgresMemoryStore> {
  const owned = !("pool" in options);
  const pool =
    "pool" in options
      ? options.pool
      : await openPostgresPool({
          url: options.url,
          schema: options.schema,
          createSchema: !options.readOnly,
          maxConnections: options.maxConnections,
          timeouts: options.timeouts,
        });
  try {
    const client = await pool.connect();
    try {
      if (options.readOnly) await readableVersion(client);
      else await migrate(client);
    } finally {
      client.release();
    }
  } catch (err) {
    if (owned) await pool.end().catch(() => undefined);
    throw pgStoreError(err, "cannot prepare the memory database");
  }
  return new PostgresMemoryStore(pool, { ownsPool: owned });
}
