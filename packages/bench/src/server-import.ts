/**
 * Bulk-load throughput of the memory server into SQLite (issue #3: import or seed
 * >= 10,000 memories/s): `importPath` of a JSONL file of MIF documents, and
 * `seedStore` of the synthetic corpus, each into a fresh database file. Beside them,
 * the import pipeline alone (read, parse, validate, map; a store that discards), the
 * store alone (upserts of ready memories) and a re-import of the same file (every
 * document an update), to show where the time goes.
 */
import { once } from "node:events";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  generateCorpus,
  importPath,
  type MemoryStore,
  seedStore,
  toFullRecord,
  writeMifDocuments,
} from "atlatl";
import { DEFAULT_IMPORT_BATCH_SIZE } from "../../server/src/mif/import.js";
import { DEFAULT_SEED_BATCH_SIZE } from "../../server/src/seed/seed-store.js";
import { openSqliteStore } from "../../server/src/store/sqlite/open-sqlite.js";
import { atLeast, type Benchmark, type BenchTable } from "./harness.js";

const COUNT = 50_000;
const TARGET = 10_000;

async function writeJsonl(file: string): Promise<number> {
  const out = createWriteStream(file);
  let tokens = 0;
  function* measured() {
    for (const memory of generateCorpus({ count: COUNT, seed: 2024 })) {
      tokens += Math.ceil(JSON.stringify(toFullRecord(memory)).length / 4);
      yield memory;
    }
  }
  await writeMifDocuments(measured(), "jsonl", out);
  out.end();
  await once(out, "finish");
  return tokens / COUNT;
}

/** A store that accepts every batch and keeps nothing: the pipeline's own cost. */
function discardingStore(): MemoryStore {
  return {
    upsertMany: async (memories) => ({ inserted: memories.length, updated: 0 }),
  } as Partial<MemoryStore> as MemoryStore;
}

async function rate(fn: () => Promise<number>): Promise<number> {
  const start = performance.now();
  const n = await fn();
  return n / ((performance.now() - start) / 1000);
}

/** Repetitions of each measurement; the median is reported (the host may be shared). */
const REPEATS = 3;

interface Rates {
  pipeline: number;
  imported: number;
  reimported: number;
  seeded: number;
  storeAlone: number;
}

/** One round of every measurement, each into a fresh database under `dir`. */
async function round(dir: string, file: string, k: number): Promise<Rates> {
  const pipeline = await rate(async () => (await importPath(discardingStore(), file)).imported);

  const importDb = await openSqliteStore({ path: join(dir, `import-${k}.db`) });
  const imported = await rate(async () => {
    const r = await importPath(importDb, file);
    if (r.rejectedCount > 0 || r.imported !== COUNT) throw new Error("import lost documents");
    return r.imported;
  });
  const reimported = await rate(async () => (await importPath(importDb, file)).updated);
  await importDb.close();

  const seedDb = await openSqliteStore({ path: join(dir, `seed-${k}.db`) });
  const seeded = await rate(() => seedStore(seedDb, { count: COUNT, seed: 2024 + k }));
  await seedDb.close();

  // The store on its own: memories already generated, upserted in the import batch size.
  const memories = [...generateCorpus({ count: COUNT, seed: 3000 + k })];
  const storeDb = await openSqliteStore({ path: join(dir, `store-${k}.db`) });
  const storeAlone = await rate(async () => {
    for (let i = 0; i < memories.length; i += DEFAULT_IMPORT_BATCH_SIZE) {
      await storeDb.upsertMany(memories.slice(i, i + DEFAULT_IMPORT_BATCH_SIZE));
    }
    return memories.length;
  });
  await storeDb.close();
  return { pipeline, imported, reimported, seeded, storeAlone };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function run(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-import-"));
  try {
    const file = join(dir, "corpus.jsonl");
    const meanTokens = await writeJsonl(file);
    const rounds: Rates[] = [];
    for (let k = 0; k < REPEATS; k++) rounds.push(await round(dir, file, k));
    const stat = (key: keyof Rates) => {
      const values = rounds.map((r) => r[key]);
      return {
        value: median(values),
        notes: `median of ${REPEATS}; min ${Math.round(Math.min(...values))}, max ${Math.round(Math.max(...values))}`,
      };
    };
    const row = (name: string, key: keyof Rates, target?: number) => {
      const { value, notes } = stat(key);
      return target === undefined
        ? { name, value, unit: "memories/s", notes }
        : atLeast(name, value, "memories/s", target, notes);
    };
    return [
      {
        name: "server-import",
        title: `Bulk load of ${COUNT} memories into SQLite (memories per second)`,
        rows: [
          row(
            `import JSONL of MIF documents (default batches of ${DEFAULT_IMPORT_BATCH_SIZE})`,
            "imported",
            TARGET,
          ),
          row(
            `seed synthetic corpus (default batches of ${DEFAULT_SEED_BATCH_SIZE})`,
            "seeded",
            TARGET,
          ),
          row("re-import same file (all updates)", "reimported"),
          row("SQLite store alone (upsertMany of ready memories)", "storeAlone"),
          row("import pipeline alone (read, parse, validate, map)", "pipeline"),
          {
            name: "mean full-record size of the corpus",
            value: meanTokens,
            unit: "tokens",
            notes: "ceil(chars / 4) of a full record line; the paper's mean is ~155",
          },
        ],
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const serverImportBenchmark: Benchmark = { name: "server-import", run };
