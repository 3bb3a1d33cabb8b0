import type pg from "pg";
import { inTransaction } from "./in-transaction.js";
import { pgStoreError } from "./postgres-errors.js";

/**
 * Create tables that live beside the memories (the offload store's, the task
 * store's) on the instance's pool, when they are missing. `ddl` must be
 * idempotent (`IF NOT EXISTS`); it runs in one transaction under an advisory
 * lock keyed by `name` and the current schema, so instances starting at once
 * create the tables once, and stores in other schemas of the database (tests)
 * do not wait for each other. Fails with a `StoreError` (`pgStoreError`).
 */
export async function ensureTables(pool: pg.Pool, name: string, ddl: string): Promise<void> {
  try {
    await inTransaction(pool, async (client) => {
      await client.query(
        "SELECT pg_advisory_xact_lock(hashtextextended($1 || current_schema(), 0))",
        [`atlatl.tables.${name}.`],
      );
      await client.query(ddl);
    });
  } catch (err) {
    throw pgStoreError(err, `cannot create the ${name} tables`);
  }
}
