/** Opening the PostgreSQL offload store: its pool (or the caller's) and its tables. */
import { LroError } from "@atlatl/lro";
import pg from "pg";
import { type PostgresTimeouts, poolTimeouts } from "../../store/postgres/pool-timeouts.js";
import { ensureOffloadSchema } from "./offload-schema.js";
import { PostgresOffloadStore } from "./postgres-offload-store.js";

/** Options of {@link openPostgresOffloadStore}: a pool, or a URL to open one from. */
export type OpenPostgresOffloadStoreOptions = (
  | { pool: pg.Pool }
  | { url: string; maxConnections: number; timeouts?: PostgresTimeouts | undefined }
) & {
  quotaBytes: number;
  /** The database as it may be printed (no password). */
  describe?: string;
  /** A schema (created if missing) instead of the URL's search_path. */
  schema?: string;
  now?: () => number;
};

/** Open the store and create its tables when missing; `OFFLOAD_STORE_FAILED` when that fails. */
export async function openPostgresOffloadStore(
  options: OpenPostgresOffloadStoreOptions,
): Promise<PostgresOffloadStore> {
  const { schema } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new TypeError(`schema name ${JSON.stringify(schema)} must be a plain identifier`);
  }
  const owns = !("pool" in options);
  const pool =
    "pool" in options
      ? options.pool
      : new pg.Pool({
          connectionString: options.url,
          max: options.maxConnections,
          ...poolTimeouts(options.timeouts),
          ...(schema ? { options: `-c search_path=${schema}` } : {}),
        });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  if (owns) pool.on("error", () => undefined);
  try {
    const client = await pool.connect();
    try {
      if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await ensureOffloadSchema(client);
    } finally {
      client.release();
    }
  } catch (err) {
    if (owns) await pool.end().catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    throw new LroError(
      "OFFLOAD_STORE_FAILED",
      `cannot open the offload store in ${options.describe ?? "PostgreSQL"}: ${message}`,
      { cause: err },
    );
  }
  return new PostgresOffloadStore(pool, {
    quotaBytes: options.quotaBytes,
    ownsPool: owns,
    ...(options.now ? { now: options.now } : {}),
  });
}
