/**
 * PostgreSQL for the benchmarks: the server at `ATLATL_BENCH_PG_URL`, else
 * `ATLATL_TEST_PG_URL`, each run in fresh schemas dropped afterwards, so a
 * bench never touches what tests or a user keep on that server.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { BenchRow } from "./harness.js";

/** The server the PostgreSQL rows are measured on, if one is set. */
export function benchPostgresUrl(): string | undefined {
  return process.env.ATLATL_BENCH_PG_URL || process.env.ATLATL_TEST_PG_URL || undefined;
}

/** The row a table shows when no server is set: a miss, so it is not read as a pass. */
export const POSTGRES_NOT_MEASURED: BenchRow = {
  name: 'PostgreSQL: not measured (set ATLATL_TEST_PG_URL, e.g. eval "$(.ci/start-postgres)")',
  value: 0,
  unit: "",
  pass: false,
};

/**
 * Run `fn` with `count` URLs of `url`'s server, each with a fresh schema as
 * its `search_path`; the schemas are dropped after, whatever `fn` did.
 */
export async function withBenchSchemas<T>(
  url: string,
  count: number,
  fn: (schemaUrls: string[]) => Promise<T>,
): Promise<T> {
  const schemas = Array.from({ length: count }, () => `bench_${randomBytes(4).toString("hex")}`);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const schema of schemas) await admin.query(`CREATE SCHEMA ${schema}`);
    const urls = schemas.map((schema) => {
      const schemaUrl = new URL(url);
      schemaUrl.searchParams.set("options", `-c search_path=${schema}`);
      return schemaUrl.toString();
    });
    return await fn(urls);
  } finally {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}
