/**
 * Recall quality on the labelled set (issue 32 item 2): precision, recall@10,
 * MRR and how many memories a query matches, for each recall arm on SQLite
 * and, when a URL is set, PostgreSQL. The set is the frozen fixture
 * `packages/server/test/fixtures/recall-quality.json` (4,985 memories, 46
 * queries); an arm is any function from a query to ranked ids, so another
 * recall (hybrid) is one more entry in `ARMS`. PostgreSQL comes from
 * `ATLATL_BENCH_PG_URL`, else `ATLATL_TEST_PG_URL`; the run uses a fresh
 * schema and drops it afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServices, type MemoryStore, openStore } from "atlatl";
import pg from "pg";
import {
  type LabelledSet,
  labelledCorpus,
  type RankedRecall,
  type SetScore,
  scoreSet,
} from "../../server/src/seed/labelled-set.js";
import { atLeast, atMost, type Benchmark, type BenchRow, type BenchTable } from "./harness.js";

const FIXTURE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../server/test/fixtures/recall-quality.json",
);

/** A way to recall: given a loaded store, a ranked recall to score. */
interface RecallArm {
  name: string;
  open(store: MemoryStore): RankedRecall;
}

/** Every id of a ranked read's whole stream (what a client's whole set holds). */
async function ids(hits: AsyncIterable<{ memory: { id: string } }>): Promise<string[]> {
  const out: string[] = [];
  for await (const h of hits) out.push(h.memory.id);
  return out;
}

/** The arms measured, each a column; the lexical ones use the server's configured defaults. */
const ARMS: RecallArm[] = [
  {
    name: "lexical recall",
    open: (store) => {
      const { recall } = createServices(store);
      return (query) => ids(recall.read({ query }, { fields: "light" }).stream());
    },
  },
  {
    name: "lexical search",
    open: (store) => {
      const { search } = createServices(store);
      return (query) => ids(search.read({ query }, { fields: "light" }).stream());
    },
  },
];

/** The question of the issue: it must return the relevant few, the three right notes first. */
const QUESTION = "zephyrine-question";

/** Floors (percent of the best match) the sweep scores lexical recall at; 0 is no floor. */
const SWEEP = [0, 10, 20, 30, 40, 50, 60, 70];

/** Lexical recall's set scores at each floor of {@link SWEEP}. */
async function sweep(store: MemoryStore, set: LabelledSet): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const percent of SWEEP) {
    const { recall } = createServices(store, { relevanceFloorPercent: percent });
    const s = await scoreSet(set, (query) =>
      ids(recall.read({ query }, { fields: "light" }).stream()),
    );
    const q = s.perQuery.find((p) => p.id === QUESTION);
    out[`${percent}%`] = {
      mrr: s.mrr,
      recallAt10: s.recallAt10,
      recall: s.recall,
      precision: s.precision,
      medianMatches: s.medianMatches,
      maxMatches: s.maxMatches,
      question: q?.matches,
    };
  }
  return out;
}

async function scoreStore(
  store: MemoryStore,
  set: LabelledSet,
): Promise<{ scores: Map<string, SetScore>; sweep: Record<string, unknown> }> {
  await store.upsertMany(labelledCorpus(set));
  await store.afterBulkWrite?.();
  const scores = new Map<string, SetScore>();
  for (const arm of ARMS) scores.set(arm.name, await scoreSet(set, arm.open(store)));
  return { scores, sweep: await sweep(store, set) };
}

function rows(store: string, scores: Map<string, SetScore>): BenchRow[] {
  const out: BenchRow[] = [];
  for (const [arm, s] of scores) {
    const q = s.perQuery.find((p) => p.id === QUESTION);
    const label = `${store}, ${arm}`;
    out.push(
      atLeast(`${label}: MRR`, s.mrr, "", 0.8, `questions ${s.questions.mrr.toFixed(2)}`),
      atLeast(
        `${label}: recall@10`,
        s.recallAt10,
        "",
        0.8,
        `questions ${s.questions.recallAt10.toFixed(2)}; any rank ${s.recall.toFixed(2)}`,
      ),
      atLeast(
        `${label}: precision of the whole set`,
        s.precision,
        "",
        0.3,
        `questions ${s.questions.precision.toFixed(2)}`,
      ),
      atMost(
        `${label}: matches per query (median)`,
        s.medianMatches,
        "memories",
        20,
        `questions ${s.questions.medianMatches}; largest ${s.maxMatches}`,
      ),
      atMost(
        `${label}: "which note mentions the zephyrine valve?" matches`,
        q?.matches ?? Number.NaN,
        "memories",
        10,
        `first relevant at rank ${q && q.reciprocalRank > 0 ? 1 / q.reciprocalRank : "none"}`,
      ),
    );
  }
  return out;
}

async function run(): Promise<BenchTable[]> {
  const set = JSON.parse(readFileSync(FIXTURE, "utf8")) as LabelledSet;
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-recall-"));
  const details: Record<string, unknown> = {};
  let out: BenchRow[];
  try {
    const store = await openStore({ path: join(dir, "memories.db") });
    try {
      const sqlite = await scoreStore(store, set);
      details.sqlite = { arms: Object.fromEntries(sqlite.scores), sweep: sqlite.sweep };
      out = rows("SQLite", sqlite.scores);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const url = process.env.ATLATL_BENCH_PG_URL || process.env.ATLATL_TEST_PG_URL;
  if (!url) {
    out.push({
      name: 'PostgreSQL: not measured (set ATLATL_TEST_PG_URL, e.g. eval "$(.ci/start-postgres)")',
      value: 0,
      unit: "",
      pass: false,
    });
  } else {
    const schema = `bench_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      const schemaUrl = new URL(url);
      schemaUrl.searchParams.set("options", `-c search_path=${schema}`);
      const store = await openStore({ path: "", url: schemaUrl.toString() });
      try {
        const postgres = await scoreStore(store, set);
        details.postgres = { arms: Object.fromEntries(postgres.scores), sweep: postgres.sweep };
        out.push(...rows("PostgreSQL", postgres.scores));
      } finally {
        await store.close();
      }
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  }
  return [
    {
      name: "recall-quality",
      title: `Recall quality on the labelled set (${set.corpus.count + set.planted.length} memories, ${set.queries.length} queries), per store and arm`,
      rows: out,
      details,
    },
  ];
}

export const recallQualityBenchmark: Benchmark = { name: "recall-quality", run };
