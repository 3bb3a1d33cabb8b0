/**
 * Candidate pruning must not change a single hit: pages ranked with the pruned
 * plan equal pages ranked over every match.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateCorpus } from "../../src/seed/generate.js";
import { RECALL_SCORING } from "../../src/services/recall-service.js";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { planPrune } from "../../src/store/sqlite/rank-prune.js";
import { bestCoverageSelect, rankedSelect } from "../../src/store/sqlite/ranked-sql.js";
import type { SqliteMemoryStore } from "../../src/store/sqlite/sqlite-store.js";
import { plainPhrases } from "../../src/store/sqlite/text-query.js";
import type { RankPosition, Scoring } from "../../src/store/store.js";
import { minCoverage, termWeights } from "../../src/store/term-coverage.js";

const QUERIES = [
  "incident auth",
  "pattern outbox",
  "session store",
  "prefers squash",
  "incident session",
  "billing service",
  "flaky tests",
  "kafka consumer",
  "incident billing",
];

describe("rank with candidate pruning", () => {
  let dir: string;
  let store: SqliteMemoryStore;
  let db: Database.Database;
  const scoring: Scoring = { ...RECALL_SCORING, asOf: Date.UTC(2025, 11, 31) };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "atlatl-prune-"));
    const path = join(dir, "m.db");
    store = await openSqliteStore({ path });
    await store.upsertMany([...generateCorpus({ count: 16_000, seed: 11 })]);
    db = new Database(path, { readonly: true });
  });
  afterAll(async () => {
    db.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The weights of the query's words, as the store computes them (see `term-coverage.ts`). */
  function coverage(text: string) {
    const phrases = plainPhrases(text);
    const count = db
      .prepare("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?")
      .pluck();
    const rows = db.prepare("SELECT coalesce(max(seq), 0) FROM memories").pluck().get() as number;
    return termWeights(
      phrases,
      phrases.map((p) => count.get(p) as number),
      rows,
    );
  }

  /** Every match scored, no pruning: the reference ranking (seq order). */
  function reference(text: string, limit: number): number[] {
    const select = rankedSelect({
      match: plainPhrases(text).join(" OR "),
      filter: { status: "active" },
      horizon: undefined,
      scoring,
      coverage: coverage(text),
    });
    return db
      .prepare(`SELECT seq FROM (${select.sql}) ORDER BY score DESC, seq ASC LIMIT ?`)
      .pluck()
      .all(...select.params, limit) as number[];
  }

  /** Whether the pruned plan alone answers the first page of `text` (the test is not vacuous). */
  function prunes(text: string, limit: number): boolean {
    const phrases = plainPhrases(text);
    const count = db
      .prepare("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?")
      .pluck();
    const plan = planPrune({
      phrases,
      hits: phrases.map((p) => count.get(p) as number),
      rowsUpperBound: db.prepare("SELECT max(seq) FROM memories").pluck().get() as number,
      latestModified: db.prepare("SELECT max(modified_ms) FROM memories").pluck().get() as number,
      scoring,
    });
    if (!plan) return false;
    const select = rankedSelect({
      match: phrases.join(" OR "),
      filter: { status: "active" },
      horizon: undefined,
      scoring,
      within: plan.within,
      coverage: coverage(text),
    });
    const scores = db
      .prepare(`SELECT score FROM (${select.sql}) ORDER BY score DESC, seq ASC LIMIT ?`)
      .pluck()
      .all(...select.params, limit) as number[];
    return scores.length === limit && (scores[limit - 1] ?? 0) > plan.restBound;
  }

  it("returns exactly the pages of the full ranking, for queries it prunes and for the others", async () => {
    let pruned = 0;
    for (const text of QUERIES) {
      if (prunes(text, 21)) pruned++;
      const expected = reference(text, 60);
      const got: number[] = [];
      let after: RankPosition | undefined;
      for (let page = 0; page < 3; page++) {
        const hits = await store.rank({
          text,
          filter: { status: "active" },
          scoring,
          limit: 20,
          after,
        });
        got.push(...hits.map((h) => h.position.seq));
        after = hits[hits.length - 1]?.position;
        if (!after) break;
      }
      expect(got, text).toEqual(expected);
    }
    expect(pruned).toBeGreaterThanOrEqual(3);
  });

  it("returns exactly the pages of the full ranking under a filter and the relevance floor", async () => {
    const filter = { status: "active" as const, namespace: "_semantic" };
    let excluded = 0;
    for (const text of QUERIES) {
      const phrases = plainPhrases(text);
      const weights = coverage(text);
      const best = bestCoverageSelect(weights ?? [], filter, undefined);
      const least = weights
        ? minCoverage(
            0.6,
            db
              .prepare(best.sql)
              .pluck()
              .get(...best.params) as number,
          )
        : undefined;
      const count = db
        .prepare("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?")
        .pluck();
      const plan = planPrune({
        phrases,
        hits: phrases.map((p) => count.get(p) as number),
        rowsUpperBound: db.prepare("SELECT max(seq) FROM memories").pluck().get() as number,
        latestModified: db.prepare("SELECT max(modified_ms) FROM memories").pluck().get() as number,
        scoring,
        weights: phrases.map((p) => weights?.find((w) => w.term === p)?.weight),
        minCoverage: least,
      });
      if (plan?.restExcluded) excluded++;
      const select = rankedSelect({
        match: phrases.join(" OR "),
        filter,
        horizon: undefined,
        scoring,
        coverage: weights,
        minCoverage: least,
      });
      const expected = db
        .prepare(`SELECT seq FROM (${select.sql}) ORDER BY score DESC, seq ASC LIMIT 60`)
        .pluck()
        .all(...select.params) as number[];
      const got: number[] = [];
      let after: RankPosition | undefined;
      for (let page = 0; page < 3; page++) {
        const hits = await store.rank({ text, filter, scoring, limit: 20, after, floor: 0.6 });
        got.push(...hits.map((h) => h.position.seq));
        after = hits[hits.length - 1]?.position;
        if (!after) break;
      }
      expect(got, text).toEqual(expected);
    }
    expect(excluded).toBeGreaterThanOrEqual(3);
  });

  it("bounds the memories outside the candidates by their coverage, and leaves them out below the floor", () => {
    const base = { rowsUpperBound: 100_000, latestModified: undefined, scoring };
    const common = { ...base, phrases: ['"a"', '"b"'], hits: [20_000, 30_000] };
    const idf = (n: number) => Math.log((100_000 - n + 0.5) / (n + 0.5));
    // Outside P a memory carries one of the two words: coverage at most 0.55.
    const plan = planPrune({ ...common, weights: [0.45, 0.55], minCoverage: 0.6 });
    expect(plan?.restExcluded).toBe(true);
    const x = 2.2 * idf(20_000) * 0.55 ** 2;
    expect(plan?.restBound).toBeCloseTo(0.7 * (x / (x + 5)) + 0.2, 8);
    expect(planPrune({ ...common, weights: [0.45, 0.55], minCoverage: 0.5 })?.restExcluded).toBe(
      false,
    );
    expect(planPrune({ ...common, minCoverage: 0.6 })?.restExcluded).toBe(false);
  });

  it("does not plan for queries whose words are all rare or whose matches are few", () => {
    const base = { rowsUpperBound: 100_000, latestModified: undefined, scoring };
    expect(planPrune({ ...base, phrases: ['"a"', '"b"'], hits: [900, 800] })).toBeUndefined();
    expect(planPrune({ ...base, phrases: ['"a"'], hits: [30_000] })).toBeUndefined();
    expect(planPrune({ ...base, phrases: ['"a"', '"b"'], hits: [100, 3000] })).toBeUndefined();
    const plan = planPrune({
      ...base,
      phrases: ['"a"', '"b"', '"c"'],
      hits: [500, 20_000, 30_000],
    });
    expect(plan?.within).toBe('"a" OR ("b" AND "c")');
    // Bound: w_r r(x) + w_c, x = the larger of the two common bounds (the smaller is subtracted).
    const idf = (n: number) => Math.log((100_000 - n + 0.5) / (n + 0.5));
    const x = 2.2 * idf(20_000);
    expect(plan?.restBound).toBeCloseTo(0.7 * (x / (x + 5)) + 0.2, 12);
  });
});
