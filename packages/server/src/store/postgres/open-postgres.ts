/** Opening the PostgreSQL store: the pool, the schema and its migrations. */
import { redactUrl } from "@atlatl/lro/node";
import pg from "pg";
import { StoreError } from "../errors.js";
import { migrate, readableVersion } from "./migrations.js";
import { type PostgresTimeouts, poolTimeouts } from "./pool-timeouts.js";
import { pgStoreError } from "./postgres-errors.js";
import { PostgresMemoryStore } from "./postgres-store.js";

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** A schema to use (created if missing) instead of the user's default; tests isolate by schema. */
  schema?: string | undefined;
  /** Pool size (default 10). */
  maxConnections?: number | undefined;
  /** Read commands: never create the schema or migrate; refuse one that is missing or outdated. */
  readOnly?: boolean | undefined;
  /** Connect and statement bounds (default `DEFAULT_POSTGRES_TIMEOUTS`). */
  timeouts?: PostgresTimeouts | undefined;
}

/** bigint (int8) as a JS number: sequence numbers and epoch milliseconds fit in 2^53. */
function typeParser(oid: number, format?: "text" | "binary") {
  if (oid === 20) return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format);
}

/**
 * Connect to PostgreSQL at `options.url` and migrate its schema. Fails with
 * `OPEN_FAILED` when the server cannot be reached or refuses the login, and
 * `SCHEMA_TOO_NEW` for a database written by a newer atlatl.
 */
export async function openPostgresStore(
  options: PostgresStoreOptions,
): Promise<PostgresMemoryStore> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new StoreError(
      "OPEN_FAILED",
      `schema name ${JSON.stringify(schema)} must be a plain lower-case identifier`,
    );
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
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
    if (options.readOnly) await readableVersion(client);
    else {
      if (schema) await createSchema(client, schema);
      await migrate(client);
    }
  } catch (err) {
    client.release();
    await pool.end().catch(() => undefined);
    throw pgStoreError(err, "cannot prepare the memory database");
  }
  client.release();
  return new PostgresMemoryStore(pool);
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
