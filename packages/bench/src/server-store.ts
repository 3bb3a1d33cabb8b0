/**
 * The memory server's store and services in-process, on 100,000 memories of the
 * synthetic corpus (issue #3, "Performance"):
 * - upsert throughput into a fresh SQLite file (target >= 10,000 memories/s);
 * - recall, two-word query, limit 50: p50 <= 20 ms;
 * - a list page: p50 <= 5 ms.
 * Beside them, rows without targets that show where the time goes: broad
 * queries whose words are both common, later pages, filtered lists, search.
 *
 * Recall queries are two content words from the title of a memory picked at
 * random, the way an agent recalls a topic it has seen before. The corpus is
 * generated from templates, so many title words are very common (one query of
 * this set typically matches 15-45 % of the corpus).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServices, generateCorpus, type Memory } from "atlatl";
import { DEFAULT_IMPORT_BATCH_SIZE } from "../../server/src/mif/import.js";
import { openSqliteStore } from "../../server/src/store/sqlite/open-sqlite.js";
import type { SqliteMemoryStore } from "../../server/src/store/sqlite/sqlite-store.js";
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
/** The import and seed default: what `atlatl import` and `atlatl seed` use. */
const BATCH = DEFAULT_IMPORT_BATCH_SIZE;
/** Two common words each: the slow end of recall (no pruning possible or little). */
const BROAD = [
  "session store",
  "billing service",
  "incident session",
  "postgres migration",
  "redis latency",
];

function timingRow(name: string, t: Timing, limit?: number): BenchRow {
  const notes = `p95 ${t.p95.toFixed(1)} ms, ${t.runs} runs`;
  return limit === undefined
    ? { name, value: t.p50, unit: "ms p50", notes }
    : atMost(name, t.p50, "ms p50", limit, notes);
}

async function upsertAll(
  store: SqliteMemoryStore,
  memories: readonly Memory[],
  batch = BATCH,
): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < memories.length; i += batch) {
    await store.upsertMany(memories.slice(i, i + batch));
  }
  return memories.length / ((performance.now() - start) / 1000);
}

async function run(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-store-"));
  try {
    const memories = [...generateCorpus({ count: COUNT, seed: 4242 })];
    // Larger transactions: fewer FTS5 segment flushes and index pages rewritten per memory.
    const bigStore = await openSqliteStore({ path: join(dir, "big-batches.db") });
    const insertedBig = await upsertAll(bigStore, memories, 5000);
    await bigStore.close();
    const path = join(dir, "memories.db");
    const store = await openSqliteStore({ path });
    const inserted = await upsertAll(store, memories);
    // Re-upserting unchanged memories: every row an update, no re-indexing.
    const updated = await upsertAll(store, memories.slice(0, 20_000));
    const services = createServices(store);

    const queries = titleQueries(memories);
    const recall = await timeEach(queries, (query) => services.recall.recall({ query, limit: 50 }));
    const broad = await timeEach(BROAD, (query) => services.recall.recall({ query, limit: 50 }));
    const cursors = await Promise.all(
      queries.map(async (query) => ({
        query,
        cursor: (await services.recall.recall({ query, limit: 50 })).next_cursor,
      })),
    );
    const secondPage = await timeEach(cursors, ({ query, cursor }) =>
      services.recall.recall({ query, limit: 50, cursor }),
    );
    const filtered = await timeEach(queries, (query) =>
      services.recall.recall({ query, limit: 50, filter: { namespace: "_semantic" } }),
    );
    const search = await timeEach(queries, (query) => services.search.search({ query, limit: 50 }));
    const empty = await timeEach([""], (query) => services.recall.recall({ query, limit: 50 }), 6);

    const listPages = await walkList(services, { limit: 50 }, 60);
    const listTitle = await walkList(services, { limit: 50, sort: "title", order: "asc" }, 30);
    const listNs = await walkList(services, { limit: 50, filter: { namespace: "_semantic" } }, 30);
    const listRare = await walkList(
      services,
      { limit: 50, filter: { namespace: "_procedural/runbooks/atlas", tags: ["security"] } },
      10,
    );
    const hits = (await services.recall.recall({ query: queries[0] ?? "", limit: 100 })).hits;
    const context = await timeEach([hits], async (h) => services.context.format(h, 2000), 20);
    await store.close();
    const size = statSync(path).size / 1024 / 1024;

    return [
      {
        name: "server-store",
        title: `Memory store and services in-process, ${COUNT} memories (SQLite file)`,
        rows: [
          atLeast(
            `upsert, batches of ${BATCH} (import default), fresh file`,
            inserted,
            "memories/s",
            10_000,
            `${COUNT} memories; database ${size.toFixed(0)} MiB`,
          ),
          { name: "upsert, batches of 5000, fresh file", value: insertedBig, unit: "memories/s" },
          { name: "re-upsert unchanged (all updates)", value: updated, unit: "memories/s" },
          timingRow("recall, two-word title query, limit 50", recall, 20),
          timingRow("recall, two common words (slow end), limit 50", broad),
          timingRow("recall, second page by cursor", secondPage),
          timingRow("recall with namespace filter _semantic", filtered),
          timingRow("recall, empty query (confidence and recency)", empty),
          timingRow("search (FTS5, implicit AND), limit 50", search),
          timingRow("list page, created desc, limit 50, by cursor", listPages, 5),
          timingRow("list page, title asc", listTitle),
          timingRow("list page, namespace _semantic", listNs),
          timingRow("list page, rare namespace + tag", listRare),
          timingRow("inject_context format, 100 hits into 2000 tokens", context),
        ],
        details: { queries, broad: BROAD },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npm run bench server-store`. */
export const serverStoreBenchmark: Benchmark = { name: "server-store", run };
