/**
 * SQLite beside PostgreSQL on the same 100,000-memory synthetic corpus, in one
 * run (issue #12, "Performance"):
 * - import (upsertMany in the import default batch size; COPY on PostgreSQL):
 *   PostgreSQL >= 15,000 memories/s;
 * - recall, two-word query, limit 50: PostgreSQL p50 <= 30 ms;
 * - a list page by cursor: PostgreSQL p50 <= 5 ms.
 * Each PostgreSQL row carries SQLite's figure for the same corpus and the ratio.
 * PostgreSQL comes from `ATLATL_BENCH_PG_URL`, else `ATLATL_TEST_PG_URL`
 * (`eval "$(.ci/start-postgres)"` starts one); the run uses a fresh schema and
 * drops it afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServices, generateCorpus, type Memory, type MemoryStore, openStore } from "atlatl";
import { DEFAULT_IMPORT_BATCH_SIZE } from "../../server/src/mif/import.js";
import { benchPostgresUrl, POSTGRES_NOT_MEASURED, withBenchSchemas } from "./bench-postgres.js";
import {
  atLeast,
  atMost,
  type Benchmark,
  type BenchRow,
  type BenchTable,
  type Timing,
} from "./harness.js";
import { timeEach, titleQueries, walkList } from "./store-workload.js";

const COUNT = 100_000;

interface Figures {
  importRate: number;
  recall: Timing;
  search: Timing;
  list: Timing;
}

async function measureStore(store: MemoryStore, memories: readonly Memory[]): Promise<Figures> {
  const start = performance.now();
  for (let i = 0; i < memories.length; i += DEFAULT_IMPORT_BATCH_SIZE) {
    await store.upsertMany(memories.slice(i, i + DEFAULT_IMPORT_BATCH_SIZE));
  }
  // As `atlatl import` ends (importPath): the reads that follow meet settled indexes.
  await store.afterBulkWrite?.();
  const importRate = memories.length / ((performance.now() - start) / 1000);
  const services = createServices(store);
  const queries = titleQueries(memories);
  const recall = await timeEach(queries, (query) => services.recall.recall({ query, limit: 50 }));
  const search = await timeEach(queries, (query) =>
    services.search.search({ query, syntax: "plain", limit: 50 }),
  );
  const list = await walkList(services, { limit: 50 }, 60);
  return { importRate, recall, search, list };
}

const ms = (t: Timing) => `p50 ${t.p50.toFixed(1)} ms, p95 ${t.p95.toFixed(1)} ms`;

async function run(): Promise<BenchTable[]> {
  const url = benchPostgresUrl();
  const memories = [...generateCorpus({ count: COUNT, seed: 4242 })];
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-pg-"));
  let sqlite: Figures;
  try {
    const store = await openStore({ path: join(dir, "memories.db") });
    sqlite = await measureStore(store, memories);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const title = `SQLite and PostgreSQL, ${COUNT} memories, same corpus and queries`;
  if (!url) {
    return [
      {
        name: "server-postgres",
        title,
        rows: [POSTGRES_NOT_MEASURED],
      },
    ];
  }
  const postgres = await withBenchSchemas(url, 1, async ([schemaUrl]) => {
    const store = await openStore({ path: "", url: schemaUrl as string });
    try {
      return await measureStore(store, memories);
    } finally {
      await store.close();
    }
  });
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x SQLite`;
  const rows: BenchRow[] = [
    atLeast(
      `import into PostgreSQL (COPY, batches of ${DEFAULT_IMPORT_BATCH_SIZE})`,
      postgres.importRate,
      "memories/s",
      15_000,
      `SQLite ${sqlite.importRate.toFixed(0)}/s; ${ratio(postgres.importRate, sqlite.importRate)}`,
    ),
    atMost(
      "recall on PostgreSQL, two-word title query, limit 50",
      postgres.recall.p50,
      "ms p50",
      30,
      `${ms(postgres.recall)}; SQLite ${ms(sqlite.recall)}; ${ratio(postgres.recall.p50, sqlite.recall.p50)}`,
    ),
    atMost(
      "list page on PostgreSQL, created desc, limit 50, by cursor",
      postgres.list.p50,
      "ms p50",
      5,
      `${ms(postgres.list)}; SQLite ${ms(sqlite.list)}; ${ratio(postgres.list.p50, sqlite.list.p50)}`,
    ),
    {
      name: "search (plain words) on PostgreSQL, limit 50",
      value: postgres.search.p50,
      unit: "ms p50",
      notes: `${ms(postgres.search)}; SQLite ${ms(sqlite.search)}; ${ratio(postgres.search.p50, sqlite.search.p50)}`,
    },
  ];
  return [
    {
      name: "server-postgres",
      title,
      rows,
      details: { sqlite, postgres },
    },
  ];
}

/** `npm run bench server-postgres`. */
export const serverPostgresBenchmark: Benchmark = { name: "server-postgres", run };
