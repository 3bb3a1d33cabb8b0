/** Opening the PostgreSQL task store: its own small pool and its table. */
import pg from "pg";
import { type PostgresTimeouts, poolTimeouts } from "../../../store/postgres/pool-timeouts.js";
import { PostgresTaskStore, type PostgresTaskStoreOptions } from "./postgres-task-store.js";
import { ensureTaskSchema } from "./task-schema.js";

/** Connections of the task store's pool: polls and progress never wait on memory queries. */
const POOL_SIZE = 2;

/** Options of {@link openPostgresTaskStore}. */
export type OpenPostgresTaskStoreOptions = Omit<PostgresTaskStoreOptions, "ownsPool"> & {
  url: string;
  /** A schema (created if missing) instead of the URL's search_path (tests). */
  schema?: string;
  /** Connect and statement bounds (default `DEFAULT_POSTGRES_TIMEOUTS`). */
  timeouts?: PostgresTimeouts | undefined;
};

/** Open the store and create its table when missing. */
export async function openPostgresTaskStore<R>(
  options: OpenPostgresTaskStoreOptions,
): Promise<PostgresTaskStore<R>> {
  const { url, schema, timeouts, ...rest } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new TypeError(`schema name ${JSON.stringify(schema)} must be a plain identifier`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    ...poolTimeouts(timeouts),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  try {
    const client = await pool.connect();
    try {
      if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await ensureTaskSchema(client);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return new PostgresTaskStore<R>(pool, { ...rest, ownsPool: true });
}
