/**
 * Recall quality on the labelled set (issue 32 item 2): precision, recall@10,
 * MRR and how many memories a query matches, for each recall arm on SQLite
 * and, when a URL is set, PostgreSQL. The set is the frozen fixture
 * `packages/server/test/fixtures/recall-quality.json` (4,985 memories, 46
 * queries); an arm is any function from a query to ranked ids, one entry in
 * `ARMS`. The hybrid arm's vectors come from the tests' deterministic
 * embeddings server (a word→concept table, started here as `recall-hybrid`
 * starts it; the set's memories are embedded first), so its column measures
 * the fusion (does it keep lexical quality, does it add matches), not a
 * model's semantics. PostgreSQL comes from `ATLATL_BENCH_PG_URL`, else
 * `ATLATL_TEST_PG_URL`; the run uses a fresh schema and drops it afterwards.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServices, type MemoryStore, openStore } from "atlatl";
import {
  type LabelledSet,
  labelledCorpus,
  type RankedRecall,
  type SetScore,
  scoreSet,
} from "../../server/src/seed/labelled-set.js";
import type { RecallService } from "../../server/src/services/recall-service.js";
import {
  type EmbeddingsServer,
  startEmbeddingsServer,
} from "../../server/test/embeddings/embeddings-server.js";
import { benchPostgresUrl, POSTGRES_NOT_MEASURED, withBenchSchemas } from "./bench-postgres.js";
import { atLeast, atMost, type Benchmark, type BenchRow, type BenchTable } from "./harness.js";
import { DIMENSIONS as EMBEDDING_DIMENSIONS, recallColumns } from "./recall-hybrid.js";

const FIXTURE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../server/test/fixtures/recall-quality.json",
);

/** What an arm recalls from: the loaded store, and hybrid recall over its embedded memories. */
export interface ArmContext {
  store: MemoryStore;
  hybrid: RecallService;
}

/** A way to recall: given a loaded store, a ranked recall to score. */
interface RecallArm {
  name: string;
  open(context: ArmContext): RankedRecall;
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
    open: ({ store }) => {
      const { recall } = createServices(store);
      return (query) => ids(recall.read({ query }, { fields: "light" }).stream());
    },
  },
  {
    name: "lexical search",
    open: ({ store }) => {
      const { search } = createServices(store);
      return (query) => ids(search.read({ query }, { fields: "light" }).stream());
    },
  },
  {
    name: "hybrid recall",
    open:
      ({ hybrid }) =>
      (query) =>
        ids(hybrid.read({ query }, { fields: "light" }).stream()),
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
  embeddings: EmbeddingsServer,
): Promise<{ scores: Map<string, SetScore>; sweep: Record<string, unknown>; engine: string }> {
  await store.upsertMany(labelledCorpus(set));
  await store.afterBulkWrite?.();
  const columns = await recallColumns(store, embeddings.url);
  const context = { store, hybrid: columns.services.hybrid };
  const scores = new Map<string, SetScore>();
  for (const arm of ARMS) scores.set(arm.name, await scoreSet(set, arm.open(context)));
  return { scores, sweep: await sweep(store, set), engine: columns.engine };
}

/** One measure's row for one arm's scores. */
type Measure = (label: string, s: SetScore) => BenchRow;

const MEASURES: Measure[] = [
  (label, s) => atLeast(`${label}: MRR`, s.mrr, "", 0.8, `questions ${s.questions.mrr.toFixed(2)}`),
  (label, s) =>
    atLeast(
      `${label}: recall@10`,
      s.recallAt10,
      "",
      0.8,
      `questions ${s.questions.recallAt10.toFixed(2)}; any rank ${s.recall.toFixed(2)}`,
    ),
  (label, s) =>
    atLeast(
      `${label}: precision of the whole set`,
      s.precision,
      "",
      0.3,
      `questions ${s.questions.precision.toFixed(2)}`,
    ),
  (label, s) =>
    atMost(
      `${label}: matches per query (median)`,
      s.medianMatches,
      "memories",
      20,
      `questions ${s.questions.medianMatches}; largest ${s.maxMatches}`,
    ),
  (label, s) => {
    const q = s.perQuery.find((p) => p.id === QUESTION);
    return atMost(
      `${label}: "which note mentions the zephyrine valve?" matches`,
      q?.matches ?? Number.NaN,
      "memories",
      10,
      `first relevant at rank ${q && q.reciprocalRank > 0 ? 1 / q.reciprocalRank : "none"}`,
    );
  },
];

/** Each measure's rows, the arms side by side (in `ARMS` order). */
function rows(store: string, scores: Map<string, SetScore>): BenchRow[] {
  return MEASURES.flatMap((measure) =>
    [...scores].map(([arm, s]) => measure(`${store}, ${arm}`, s)),
  );
}

/** Lexical and hybrid recall's scores side by side, for the JSON details. */
function lexicalVsHybrid(scores: Map<string, SetScore>): Record<string, unknown> {
  const pick = (s: SetScore | undefined) =>
    s && {
      mrr: s.mrr,
      recallAt10: s.recallAt10,
      recall: s.recall,
      precision: s.precision,
      medianMatches: s.medianMatches,
      maxMatches: s.maxMatches,
      question: s.perQuery.find((p) => p.id === QUESTION)?.matches,
    };
  return { lexical: pick(scores.get("lexical recall")), hybrid: pick(scores.get("hybrid recall")) };
}

async function run(): Promise<BenchTable[]> {
  const set = JSON.parse(readFileSync(FIXTURE, "utf8")) as LabelledSet;
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-recall-"));
  const embeddings = await startEmbeddingsServer(EMBEDDING_DIMENSIONS);
  try {
    return await runStores(set, dir, embeddings);
  } finally {
    await embeddings.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The stores' details: each arm's scores, lexical vs hybrid, the floor sweep, the vector engine. */
function detailsOf(r: Awaited<ReturnType<typeof scoreStore>>): Record<string, unknown> {
  return {
    lexicalVsHybrid: lexicalVsHybrid(r.scores),
    vectorEngine: r.engine,
    arms: Object.fromEntries(r.scores),
    sweep: r.sweep,
  };
}

async function runStores(
  set: LabelledSet,
  dir: string,
  embeddings: EmbeddingsServer,
): Promise<BenchTable[]> {
  const details: Record<string, unknown> = {};
  let out: BenchRow[];
  const store = await openStore({ path: join(dir, "memories.db") });
  try {
    const sqlite = await scoreStore(store, set, embeddings);
    details.sqlite = detailsOf(sqlite);
    out = rows("SQLite", sqlite.scores);
  } finally {
    await store.close();
  }
  const url = benchPostgresUrl();
  if (!url) {
    out.push(POSTGRES_NOT_MEASURED);
  } else {
    await withBenchSchemas(url, 1, async ([schemaUrl]) => {
      const store = await openStore({ path: "", url: schemaUrl as string });
      try {
        const postgres = await scoreStore(store, set, embeddings);
        details.postgres = detailsOf(postgres);
        out.push(...rows("PostgreSQL", postgres.scores));
      } finally {
        await store.close();
      }
    });
  }
  return [
    {
      name: "recall-quality",
      title: `Recall quality on the labelled set (${set.corpus.count + set.planted.length} memories, ${set.queries.length} queries), per store and arm; hybrid's vectors from a toy word→concept table`,
      rows: out,
      details,
    },
  ];
}

export const recallQualityBenchmark: Benchmark = { name: "recall-quality", run };
