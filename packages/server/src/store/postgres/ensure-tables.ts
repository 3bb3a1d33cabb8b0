import type { PoolClient } from "pg";

/**
 * Create tables that live beside the memories (the offload store's, the task
 * store's) when they are missing. `ddl` must be idempotent (`IF NOT EXISTS`);
 * it runs in one transaction under an advisory lock keyed by `name` and the
 * current schema, so instances starting at once create the tables once, and
 * stores in other schemas of the database (tests) do not wait for each other.
 */
export async function ensureTables(client: PoolClient, name: string, ddl: string): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query(
      "SELECT pg_advisory_xact_lock(hashtextextended($1 || current_schema(), 0))",
      [`atlatl.tables.${name}.`],
    );
    await client.query(ddl);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
