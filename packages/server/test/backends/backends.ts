/**
 * The store backends tests run against, in one list: SQLite always, PostgreSQL
 * when `ATLATL_TEST_PG_URL` is set. On CI (`CI` set) PostgreSQL is required:
 * without the URL its tests are still declared and fail, never skip.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { OpenStoreConfig } from "../../src/store/open-store.js";
import { openPostgresStore } from "../../src/store/postgres/open-postgres.js";
import { openPostgresPool } from "../../src/store/postgres/postgres-pool.js";
import { PostgresMemoryStore } from "../../src/store/postgres/postgres-store.js";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { SqliteMemoryStore } from "../../src/store/sqlite/sqlite-store.js";
import type { MemoryStore, StoreCapabilities } from "../../src/store/store.js";

/** Environment variable with the URL of a PostgreSQL database tests may write to. */
export const PG_URL_ENV = "ATLATL_TEST_PG_URL";

export interface StoreTarget {
  config: OpenStoreConfig;
  args: string[];
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export interface TestBackend {
  name: "sqlite" | "postgres";
  capabilities: StoreCapabilities;
  /** A fresh, empty store; closing it also removes what it created. */
  open(): Promise<MemoryStore>;
  /**
   * A fresh, empty database for `atlatl` processes (in `dir` for SQLite): its
   * store configuration, the same as CLI arguments, and a cleanup to call once
   * every process using it has exited.
   */
  serverConfig(dir: string): Promise<StoreTarget>;
}

/** The PostgreSQL URL, or an error naming the variable (CI must provide it). */
export function pgUrl(): string {
  const url = process.env[PG_URL_ENV];
  if (!url) {
    throw new Error(
      `${PG_URL_ENV} is not set: CI must provide a PostgreSQL database (see README, "PostgreSQL")`,
    );
  }
  return url;
}

/** A fresh schema name; each PostgreSQL test store lives in its own schema. */
export function freshSchema(): string {
  return `t_${randomBytes(6).toString("hex")}`;
}

/**
 * An instance's pool on `schema` (created if missing), as `openApp` opens it,
 * and `close` to end it after the stores on it: `store.close` then ends the
 * pool too, as closing an app does.
 */
export async function instancePool(
  schema: string,
  options: { applicationName?: string; maxConnections?: number } = {},
) {
  const url = new URL(pgUrl());
  if (options.applicationName) url.searchParams.set("application_name", options.applicationName);
  const pool = await openPostgresPool({
    url: url.toString(),
    schema,
    createSchema: true,
    maxConnections: options.maxConnections,
  });
  return {
    pool,
    /** `store` whose `close` also ends the pool. */
    closing<S extends { close(): Promise<void> }>(store: S): S {
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        await pool.end();
      };
      return store;
    },
  };
}

/** Drop `schema` and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** A URL selecting `schema` (libpq `options`), for child processes configured by URL alone. */
export function schemaUrl(schema: string): string {
  const url = new URL(pgUrl());
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

const sqlite: TestBackend = {
  name: "sqlite",
  capabilities: SqliteMemoryStore.capabilities,
  open: () => openSqliteStore({ path: ":memory:" }),
  async serverConfig(dir) {
    const path = `${dir}/db/atlatl.db`;
    return { config: { path }, args: ["--db", path], env: {}, async cleanup() {} };
  },
};

const postgres: TestBackend = {
  name: "postgres",
  capabilities: PostgresMemoryStore.capabilities,
  async open() {
    const schema = freshSchema();
    const store = await openPostgresStore({ url: pgUrl(), schema, maxConnections: 4 });
    const close = store.close.bind(store);
    store.close = async () => {
      await close();
      await dropSchema(schema);
    };
    return store;
  },
  async serverConfig() {
    const schema = freshSchema();
    const client = new pg.Client({ connectionString: pgUrl() });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
    const url = schemaUrl(schema);
    return {
      config: { path: "", url },
      args: ["--database", url],
      env: {},
      cleanup: () => dropSchema(schema),
    };
  },
};

/** Whether PostgreSQL tests are declared: the URL is set, or CI requires them. */
export const PG_ENABLED = Boolean(process.env[PG_URL_ENV]) || Boolean(process.env.CI);

/** Every backend under test. */
export const BACKENDS: readonly TestBackend[] = PG_ENABLED ? [sqlite, postgres] : [sqlite];
