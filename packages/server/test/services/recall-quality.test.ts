/**
 * Quality floors of lexical recall on the frozen labelled set
 * (`test/fixtures/recall-quality.json`, see `src/seed/labelled-set.ts`), on
 * both backends, at the server's default relevance floor: what
 * `npm run bench recall-quality` measures, held as deterministic bounds.
 * Without the floor the question matches 276 memories and the median query
 * over 200 (precision 0.23); see docs/recall-quality.md.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type LabelledSet,
  labelledCorpus,
  type SetScore,
  scoreSet,
} from "../../src/seed/labelled-set.js";
import { createServices } from "../../src/services/create-services.js";
import type { MemoryStore } from "../../src/store/store.js";
import { BACKENDS } from "../backends/backends.js";

const set = JSON.parse(
  readFileSync(new URL("../fixtures/recall-quality.json", import.meta.url), "utf8"),
) as LabelledSet;

async function ids(hits: AsyncIterable<{ memory: { id: string } }>): Promise<string[]> {
  const out: string[] = [];
  for await (const h of hits) out.push(h.memory.id);
  return out;
}

describe.each(BACKENDS)("recall quality on the labelled set ($name)", (backend) => {
  let store: MemoryStore;
  let score: SetScore;
  beforeAll(async () => {
    store = await backend.open();
    await store.upsertMany(labelledCorpus(set));
    await store.afterBulkWrite?.();
    const { recall } = createServices(store);
    score = await scoreSet(set, (query) =>
      ids(recall.read({ query }, { fields: "light" }).stream()),
    );
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it("ranks an answer first and finds the answers in the first ten", () => {
    expect(score.queries).toBe(set.queries.length);
    expect(score.mrr).toBeGreaterThanOrEqual(0.8);
    expect(score.recallAt10).toBeGreaterThanOrEqual(0.9);
    // The floor loses no answer the words find (1.00 on SQLite, 0.96 on PostgreSQL without it).
    expect(score.recall).toBeGreaterThanOrEqual(0.95);
  });

  it("matches the relevant few, not every memory sharing a word", () => {
    expect(score.precision).toBeGreaterThanOrEqual(0.55);
    expect(score.medianMatches).toBeLessThanOrEqual(2);
    expect(score.questions.medianMatches).toBeLessThanOrEqual(3);
  });

  it("which note mentions the zephyrine valve? -> at most six, the three right notes first", () => {
    const q = score.perQuery.find((p) => p.id === "zephyrine-question");
    expect(q?.matches).toBeLessThanOrEqual(6);
    expect(q?.precision).toBeGreaterThanOrEqual(0.5);
    expect(q?.recall).toBe(1);
    expect(q?.recallAt10).toBe(1);
    expect(q?.reciprocalRank).toBe(1);
  });
});
