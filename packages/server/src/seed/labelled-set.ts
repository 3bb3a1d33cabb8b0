/**
 * A labelled set for measuring recall quality: a frozen corpus (the seed
 * generator's memories plus planted ones) and queries with the ids of the
 * memories that answer them. The set itself is a JSON fixture
 * (`packages/server/test/fixtures/recall-quality.json`, built by
 * `build-recall-quality.ts` beside it); this module turns it into memories and
 * scores any ranked recall against it, so a lexical and a hybrid recall are
 * scored alike: a recall is a function from a query to ranked ids.
 */
import { createHash } from "node:crypto";
import type { Memory, MemoryType } from "../model/memory.js";
import { generateCorpus } from "./generate.js";

/** A memory planted in the corpus for the queries to find (or to be a near miss). */
export interface PlantedMemory {
  id: string;
  title: string;
  content: string;
  namespace: string;
  memory_type: MemoryType;
  tags: string[];
  created: string;
  confidence: number;
}

/** How a query is phrased: as a person asks, as keywords, or with punctuation in it. */
export type QueryKind = "question" | "keywords" | "punctuation";

export interface LabelledQuery {
  id: string;
  kind: QueryKind;
  text: string;
  /** The memories that answer the query (order does not matter). */
  relevant: string[];
}

export interface LabelledSet {
  name: string;
  /** How the set was built and how to rebuild it. */
  built: string;
  corpus: {
    seed: number;
    count: number;
    /** sha256 of the generated memories as JSON lines: a changed generator is detected, not silently scored. */
    sha256: string;
  };
  planted: PlantedMemory[];
  queries: LabelledQuery[];
}

/** The generated part of the corpus and its digest (see `LabelledSet.corpus.sha256`). */
export function generatedPart(seed: number, count: number): { memories: Memory[]; sha256: string } {
  const memories = [...generateCorpus({ count, seed })];
  const hash = createHash("sha256");
  for (const m of memories) hash.update(`${JSON.stringify(m)}\n`);
  return { memories, sha256: hash.digest("hex") };
}

/** A planted memory as a full memory. */
function plantedMemory(p: PlantedMemory): Memory {
  return {
    id: p.id,
    memory_type: p.memory_type,
    title: p.title,
    content: p.content,
    namespace: p.namespace,
    tags: p.tags,
    status: "active",
    created: p.created,
    modified: p.created,
    aliases: [],
    entities: [],
    relationships: [],
    provenance: {
      confidence: p.confidence,
      trust_level: "moderate_confidence",
      source_type: "user_explicit",
      agent: "atlatl-cli",
    },
    temporal: null,
    embedding: null,
    summary: null,
    blocks: null,
    citations: [],
    extensions: {},
  };
}

/**
 * Every memory of the set: the generated ones, then the planted ones. Throws
 * when the generator no longer yields the frozen corpus (the labels would lie).
 */
export function labelledCorpus(set: LabelledSet): Memory[] {
  const { memories, sha256 } = generatedPart(set.corpus.seed, set.corpus.count);
  if (sha256 !== set.corpus.sha256) {
    throw new Error(
      `the seed generator no longer yields the corpus of ${set.name} (sha256 ${sha256}, frozen ${set.corpus.sha256}): rebuild the fixture and review its labels`,
    );
  }
  return [...memories, ...set.planted.map(plantedMemory)];
}

/** A recall under test: the query's matches, best first (every match, not a page). */
export type RankedRecall = (query: string) => Promise<string[]>;

/** One query's scores. */
interface QueryScore {
  id: string;
  kind: QueryKind;
  text: string;
  /** How many memories the query matched (the whole set a client would get). */
  matches: number;
  /** Relevant memories among the matches, over the matches (1 when nothing matched and nothing is relevant). */
  precision: number;
  /** Relevant memories in the first 10, over min(10, relevant). */
  recallAt10: number;
  /** 1 / rank of the first relevant memory, 0 when none is matched. */
  reciprocalRank: number;
  /** Relevant memories matched at all, over relevant. */
  recall: number;
}

/** The set's scores: means over the queries, and each query's. */
export interface SetScore {
  queries: number;
  precision: number;
  recallAt10: number;
  mrr: number;
  recall: number;
  /** Median and largest number of matches of a query. */
  medianMatches: number;
  maxMatches: number;
  /** The same means over the `question` queries alone. */
  questions: { precision: number; recallAt10: number; mrr: number; medianMatches: number };
  perQuery: QueryScore[];
}

/** The scores of one query's ranked ids against its labels. */
function scoreQuery(q: LabelledQuery, ranked: readonly string[]): QueryScore {
  const relevant = new Set(q.relevant);
  let found = 0;
  let first = 0;
  let top = 0;
  ranked.forEach((id, i) => {
    if (!relevant.has(id)) return;
    found++;
    if (first === 0) first = i + 1;
    if (i < 10) top++;
  });
  return {
    id: q.id,
    kind: q.kind,
    text: q.text,
    matches: ranked.length,
    precision: ranked.length === 0 ? (relevant.size === 0 ? 1 : 0) : found / ranked.length,
    recallAt10: relevant.size === 0 ? 1 : top / Math.min(10, relevant.size),
    reciprocalRank: first === 0 ? 0 : 1 / first,
    recall: relevant.size === 0 ? 1 : found / relevant.size,
  };
}

/** Score `recall` on every query of `set`, one query at a time. */
export async function scoreSet(set: LabelledSet, recall: RankedRecall): Promise<SetScore> {
  const perQuery: QueryScore[] = [];
  for (const q of set.queries) perQuery.push(scoreQuery(q, await recall(q.text)));
  const questions = perQuery.filter((s) => s.kind === "question");
  return {
    queries: perQuery.length,
    precision: mean(perQuery.map((s) => s.precision)),
    recallAt10: mean(perQuery.map((s) => s.recallAt10)),
    mrr: mean(perQuery.map((s) => s.reciprocalRank)),
    recall: mean(perQuery.map((s) => s.recall)),
    medianMatches: median(perQuery.map((s) => s.matches)),
    maxMatches: Math.max(0, ...perQuery.map((s) => s.matches)),
    questions: {
      precision: mean(questions.map((s) => s.precision)),
      recallAt10: mean(questions.map((s) => s.recallAt10)),
      mrr: mean(questions.map((s) => s.reciprocalRank)),
      medianMatches: median(questions.map((s) => s.matches)),
    },
    perQuery,
  };
}

function mean(xs: number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
