/**
 * `npm run bench recall-hybrid`: what hybrid recall adds to a recall's
 * latency over lexical recall, in one run on one store of 5,000 seeded
 * memories (SQLite, and PostgreSQL when a URL is set), through the services
 * the `recall_memories` tool calls (first page of 20). Vectors come from the
 * tests' deterministic embeddings server on 127.0.0.1 (384 dimensions, the
 * size of all-MiniLM), so the added time is atlatl's: the query's embeddings
 * request, the vector scan and the fusion, not a model's inference. PostgreSQL
 * is measured on the engine its server offers (pgvector, else the real[] scan).
 * PostgreSQL comes from `ATLATL_BENCH_PG_URL`, else `ATLATL_TEST_PG_URL`, in a
 * fresh schema dropped afterwards. `recallColumns` is the same setup as ranked
 * ids per query, for a labelled-set bench.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddingsClient } from "../../server/src/embeddings/embeddings-client.js";
import { MemoryEmbeddings } from "../../server/src/embeddings/memory-embeddings.js";
import { seedStore } from "../../server/src/seed/seed-store.js";
import { createServices } from "../../server/src/services/create-services.js";
import { recallIds } from "../../server/src/services/hybrid-recall-service.js";
import type { RecallService } from "../../server/src/services/recall-service.js";
import { openStore } from "../../server/src/store/open-store.js";
import type { MemoryStore } from "../../server/src/store/store.js";
import {
  type EmbeddingsServer,
  startEmbeddingsServer,
} from "../../server/test/embeddings/embeddings-server.js";
import { benchPostgresUrl, POSTGRES_NOT_MEASURED, withBenchSchemas } from "./bench-postgres.js";
import { type Benchmark, type BenchRow, type BenchTable, measure, type Timing } from "./harness.js";

const COUNT = 5000;
/** Vector length (all-MiniLM's), of the server started and the vectors stored. */
export const DIMENSIONS = 384;
const QUERIES = [
  "car upkeep schedule",
  "which note mentions the cache eviction policy?",
  "postgres connection pool timeout",
  "deploy rollback",
  "flaky test in the payment service",
  "who decided on the retry budget",
  "kafka consumer lag",
  "meeting notes about the migration plan",
];

interface Measured {
  engine: string;
  backfillMs: number;
  lexical: Timing;
  hybrid: Timing;
}

/** Recall as ranked ids, best first, lexical or hybrid, over one store. */
interface RecallColumns {
  engine: string;
  /** `atlatl embed`'s time for the store's memories. */
  backfillMs: number;
  lexical: (query: string, limit?: number) => Promise<string[]>;
  hybrid: (query: string, limit?: number) => Promise<string[]>;
  services: { lexical: RecallService; hybrid: RecallService };
}

/**
 * Hybrid recall over a filled `store`, its vectors from the deterministic
 * embeddings server at `url` (backfilled here), beside lexical recall: the
 * columns a labelled-set bench compares (`recall(query) => ranked ids`).
 */
export async function recallColumns(
  store: MemoryStore,
  url: string,
  dimensions = DIMENSIONS,
): Promise<RecallColumns> {
  const vectors = store.vectors?.();
  if (!vectors) throw new Error("the store keeps no vectors");
  const space = { model: "concepts-v1", dimensions };
  await vectors.open(space);
  const embeddings = new MemoryEmbeddings(
    vectors,
    new EmbeddingsClient({
      url,
      ...space,
      apiKey: "",
      timeoutMs: 10_000,
      batchSize: 64,
      minSimilarity: 0.5,
    }),
  );
  const start = performance.now();
  await embeddings.backfill(await store.count({ status: "any" }));
  const backfillMs = performance.now() - start;
  const lexical = createServices(store).recall;
  const hybrid = createServices(store, { embeddings }).recall;
  return {
    engine: vectors.capabilities.engine,
    backfillMs,
    lexical: (query, limit) => recallIds(lexical, query, limit),
    hybrid: (query, limit) => recallIds(hybrid, query, limit),
    services: { lexical, hybrid },
  };
}

async function measureStore(store: MemoryStore, server: EmbeddingsServer): Promise<Measured> {
  await seedStore(store, { count: COUNT, seed: 7 });
  const columns = await recallColumns(store, server.url);
  const { lexical, hybrid } = columns.services;
  let i = 0;
  const next = () => QUERIES[i++ % QUERIES.length] as string;
  const lexicalTiming = await measure(() => lexical.recall({ query: next(), limit: 20 }), {
    runs: 80,
    warmup: 8,
  });
  const hybridTiming = await measure(() => hybrid.recall({ query: next(), limit: 20 }), {
    runs: 80,
    warmup: 8,
  });
  return {
    engine: columns.engine,
    backfillMs: columns.backfillMs,
    lexical: lexicalTiming,
    hybrid: hybridTiming,
  };
}

function rowsOf(store: string, m: Measured): BenchRow[] {
  return [
    {
      name: `${store}: lexical recall p50 / p95`,
      value: m.lexical.p50,
      unit: "ms",
      notes: `p95 ${m.lexical.p95.toFixed(2)} ms`,
    },
    {
      name: `${store}: hybrid recall p50 / p95 (${m.engine})`,
      value: m.hybrid.p50,
      unit: "ms",
      notes: `p95 ${m.hybrid.p95.toFixed(2)} ms`,
    },
    {
      name: `${store}: added by hybrid, p50`,
      value: m.hybrid.p50 - m.lexical.p50,
      unit: "ms",
      notes: `p95 +${(m.hybrid.p95 - m.lexical.p95).toFixed(2)} ms; ${COUNT} memories, ${DIMENSIONS} dimensions`,
    },
    {
      name: `${store}: atlatl embed of ${COUNT} memories`,
      value: m.backfillMs,
      unit: "ms",
      notes: "deterministic server: atlatl's share only",
    },
  ];
}

async function run(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-hybrid-"));
  const server = await startEmbeddingsServer(DIMENSIONS);
  const rows: BenchRow[] = [];
  const details: Record<string, Measured> = {};
  try {
    const sqlite = await openStore({ path: join(dir, "hybrid.db") });
    try {
      details.sqlite = await measureStore(sqlite, server);
      rows.push(...rowsOf("SQLite", details.sqlite));
    } finally {
      await sqlite.close();
    }
    const url = benchPostgresUrl();
    if (!url) {
      rows.push(POSTGRES_NOT_MEASURED);
    } else {
      await withBenchSchemas(url, 1, async ([schemaUrl]) => {
        const postgres = await openStore({ path: "", url: schemaUrl as string });
        try {
          details.postgres = await measureStore(postgres, server);
          rows.push(...rowsOf("PostgreSQL", details.postgres));
        } finally {
          await postgres.close();
        }
      });
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    {
      name: "recall-hybrid",
      title: `Hybrid recall's added latency over lexical, ${COUNT} memories, first page of 20`,
      rows,
      details,
    },
  ];
}

export const recallHybridBenchmark: Benchmark = { name: "recall-hybrid", run };
