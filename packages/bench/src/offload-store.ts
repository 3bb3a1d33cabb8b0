/**
 * `offload-store` (issue 22): the shared PostgreSQL offload store beside the
 * local file system, in one run, on the same records.
 * - offload write: `Offloader.offloadRecords` of N full memory records (the
 *   descriptor returned only once the file is durable in the store);
 * - extraction on an instance that has not read the file yet: `lro_extract`'s
 *   engine (`LroExtractor`, recipe-like `.id` query, first call: read + parse;
 *   on PostgreSQL: fetch from the store and write the local copy first);
 * - the PostgreSQL write again with the chunks stored compressed (the column's
 *   default `EXTENDED` storage) against the `EXTERNAL` storage the store uses.
 * Each PostgreSQL row quotes the local figure and the ratio. PostgreSQL comes
 * from `ATLATL_BENCH_PG_URL`, else `ATLATL_TEST_PG_URL`; a fresh schema,
 * dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import {
  JqEngine,
  LroExtractor,
  localOffloadStore,
  Offloader,
  type OffloadStore,
} from "@atlatl/lro/node";
import { generateCorpus, type Memory } from "atlatl";
import pg from "pg";
import { createOffloadStore } from "../../server/src/offload-store/create-offload-store.js";
import { openPostgresPool } from "../../server/src/store/postgres/postgres-pool.js";
import type { Benchmark, BenchRow, BenchTable, Timing } from "./harness.js";
import { measure } from "./harness.js";

const SIZES = [500, 5000] as const;
const RUNS = 20;

interface Figures {
  write: Timing;
  extract: Timing;
  bytes: number;
}

/** Write and cold-extract `records` through `store`, each extraction on a fresh "instance". */
async function measureStore(
  store: OffloadStore,
  records: readonly Memory[],
  engine: JqEngine,
): Promise<Figures> {
  const root = mkdtempSync(join(tmpdir(), "atlatl-bench-offload-store-"));
  try {
    const config = { enabled: true, thresholdTokens: 100, ttlSeconds: 3600 };
    const offloader = new Offloader({
      config: { ...config, outputDir: join(root, "a") },
      events: new LroEvents({ sink: null }),
      store: { store, principal: "bench" },
    });
    const names: string[] = [];
    let bytes = 0;
    const write = await measure(
      async () => {
        const r = await offloader.offloadRecords({
          operation: "recall",
          query: null,
          detail: "full",
          records,
        });
        if (r.kind !== "offloaded") throw new Error(`expected an offload, got ${r.kind}`);
        names.push(basename(r.file.path));
        bytes = r.file.bytes;
      },
      { runs: RUNS, warmup: 2 },
    );
    let i = 0;
    const extract = await measure(
      async () => {
        // Another instance (a shared store) or this one (local), its cache cold.
        const dir = store.shared ? join(root, `b${i}`) : join(root, "a");
        const extractor = new LroExtractor({
          config: { ...config, thresholdTokens: 1e9, outputDir: dir },
          engine,
          store: { store, principal: "bench" },
        });
        const name = names[i++ % names.length] as string;
        const r = await extractor.extract({ file_path: name, query: ".id", limit: 10 });
        if (!r.ok) throw r.error;
      },
      { runs: RUNS, warmup: 2 },
    );
    return { write, extract, bytes };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const ms = (t: Timing) => `p50 ${t.p50.toFixed(2)} ms, p95 ${t.p95.toFixed(2)} ms`;
const ratio = (a: Timing, b: Timing) => `${(a.p50 / b.p50).toFixed(2)}x local`;

async function run(): Promise<BenchTable[]> {
  const url = process.env.ATLATL_BENCH_PG_URL || process.env.ATLATL_TEST_PG_URL;
  const title = "Offload store: PostgreSQL (shared) beside the local file system, same records";
  if (!url) {
    return [
      {
        name: "offload-store",
        title,
        rows: [
          {
            name: "PostgreSQL: not measured (set ATLATL_BENCH_PG_URL or ATLATL_TEST_PG_URL)",
            value: 0,
            unit: "",
          },
        ],
      },
    ];
  }
  const corpus = [...generateCorpus({ count: Math.max(...SIZES), seed: 2222 })];
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  const engine = new JqEngine();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const rows: BenchRow[] = [];
  const details: Record<string, unknown> = {};
  let postgres: OffloadStore | undefined;
  let pool: pg.Pool | undefined;
  try {
    pool = await openPostgresPool({ url, schema, createSchema: true });
    postgres = await createOffloadStore(
      { backend: "postgres", quotaBytes: Number.MAX_SAFE_INTEGER },
      { pool },
    );
    for (const n of SIZES) {
      const records = corpus.slice(0, n);
      const local = await measureStore(localOffloadStore, records, engine);
      const shared = await measureStore(postgres, records, engine);
      const size = `${n} records, ${(shared.bytes / 1024).toFixed(0)} KiB`;
      rows.push(
        {
          name: `offload write, ${size}: PostgreSQL p50`,
          value: shared.write.p50,
          unit: "ms",
          notes: `${ms(shared.write)}; local ${ms(local.write)}; ${ratio(shared.write, local.write)}`,
        },
        {
          name: `extraction on an instance without the file, ${size}: PostgreSQL p50`,
          value: shared.extract.p50,
          unit: "ms",
          notes: `${ms(shared.extract)}; local (cold cache) ${ms(local.extract)}; ${ratio(shared.extract, local.extract)}`,
        },
      );
      details[String(n)] = { local, postgres: shared };
    }
    // The storage choice: chunks compressed by pglz (the default) against stored as they are.
    await admin.query(
      `ALTER TABLE ${schema}.offload_chunks ALTER COLUMN data SET STORAGE EXTENDED`,
    );
    const n = Math.max(...SIZES);
    const compressed = await measureStore(postgres, corpus.slice(0, n), engine);
    const external = details[String(n)] as { postgres: Figures };
    rows.push({
      name: `offload write, ${n} records, chunks compressed (EXTENDED): p50`,
      value: compressed.write.p50,
      unit: "ms",
      notes: `${ms(compressed.write)}; EXTERNAL (used) ${ms(external.postgres.write)}; ${(compressed.write.p50 / external.postgres.write.p50).toFixed(2)}x`,
    });
  } finally {
    await postgres?.close();
    await pool?.end();
    await engine.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
  return [{ name: "offload-store", title, rows, details }];
}

export const offloadStoreBenchmark: Benchmark = { name: "offload-store", run };
