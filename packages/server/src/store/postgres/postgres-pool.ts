/**
 * The one PostgreSQL pool of an instance. The memory store, the shared offload
 * store and the task store all query through it, so an instance holds at most
 * `[store] pool_size` connections, each with the same bounds, `search_path`,
 * type parsing and error listener. Opening it is the one place a connection
 * failure becomes `OPEN_FAILED`, with the URL's passwords masked.
 */

import { redactUrl } from "@atlatl/lro/node";
import pg from "pg";
import { StoreError } from "../errors.js";
import { DEFAULT_POOL_SIZE, type PostgresTimeouts, poolTimeouts } from "./pool-timeouts.js";
import { pgStoreError } from "./postgres-errors.js";

/**
 * The `application_name` of every connection (`pg_stat_activity` shows whose
 * it is); an `application_name` in the URL wins.
 */
const APPLICATION_NAME = "atlatl";

/** Options of {@link openPostgresPool}. */
interface PostgresPoolOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Most connections (default {@link DEFAULT_POOL_SIZE}). */
  maxConnections?: number | undefined;
  /** Connect and statement bounds (default `DEFAULT_POSTGRES_TIMEOUTS`). */
  timeouts?: PostgresTimeouts | undefined;
  /** A schema to use instead of the user's default; tests isolate by schema. */
  schema?: string | undefined;
  /** Create `schema` when missing (never for a read command). */
  createSchema?: boolean | undefined;
}

/** bigint (int8) as a JS number: sequence numbers, sizes and epoch milliseconds fit in 2^53. */
function typeParser(oid: number, format?: "text" | "binary") {
  if (oid === 20) return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format);
}

/**
 * Open the pool and one connection to prove the database answers (and create
 * the schema asked for). Fails with `OPEN_FAILED` when the server cannot be
 * reached or refuses the login.
 */
export async function openPostgresPool(options: PostgresPoolOptions): Promise<pg.Pool> {
  const { schema } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new StoreError(
      "OPEN_FAILED",
      `schema name ${JSON.stringify(schema)} must be a plain lower-case identifier`,
    );
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? DEFAULT_POOL_SIZE,
    application_name: APPLICATION_NAME,
    ...poolTimeouts(options.timeouts),
    types: { getTypeParser: typeParser } as pg.CustomTypesConfig,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    throw new StoreError(
      "OPEN_FAILED",
      `cannot connect to the memory database ${redactUrl(options.url)}: ${message}`,
      { cause: err },
    );
  }
  try {
    if (schema && options.createSchema) await createSchema(client, schema);
  } catch (err) {
    client.release();
    await pool.end().catch(() => undefined);
    throw pgStoreError(err, `cannot create the schema ${schema}`);
  }
  client.release();
  return pool;
}

/** CREATE SCHEMA IF NOT EXISTS, tolerating a concurrent start creating it first. */
async function createSchema(client: pg.PoolClient, schema: string): Promise<void> {
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== "23505" && code !== "42P06") throw err;
  }
}
