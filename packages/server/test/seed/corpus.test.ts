import { describe, expect, it } from "vitest";
import { convertJsonValue } from "../../src/mif/convert.js";
import { memoryToMif } from "../../src/mif/to-mif.js";
import { toFullRecord } from "../../src/model/detail.js";
import { MEMORY_TYPES, NAMESPACE_PATTERN } from "../../src/model/memory.js";
import { generateCorpus } from "../../src/seed/generate.js";
import { seedStore } from "../../src/seed/seed-store.js";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";

describe("generateCorpus", () => {
  it("is deterministic per seed, and a shorter corpus is a prefix of a longer one", () => {
    const a = [...generateCorpus({ count: 200, seed: 5 })];
    const b = [...generateCorpus({ count: 200, seed: 5 })];
    const c = [...generateCorpus({ count: 200, seed: 6 })];
    const prefix = [...generateCorpus({ count: 50, seed: 5 })];
    expect(b).toEqual(a);
    expect(c.map((m) => m.id)).not.toEqual(a.map((m) => m.id));
    expect(prefix).toEqual(a.slice(0, 50));
    expect(new Set(a.map((m) => m.id)).size).toBe(200);
  });

  it("covers the three types, the namespace categories, statuses and provenance", () => {
    const corpus = [...generateCorpus({ count: 2000, seed: 1 })];
    expect(new Set(corpus.map((m) => m.memory_type))).toEqual(new Set(MEMORY_TYPES));
    const categories = new Set(corpus.map((m) => m.namespace.split("/").slice(0, 2).join("/")));
    expect(categories).toEqual(
      new Set([
        "_semantic/decisions",
        "_semantic/preferences",
        "_episodic/sessions",
        "_episodic/incidents",
        "_procedural/runbooks",
        "_procedural/patterns",
      ]),
    );
    expect(new Set(corpus.map((m) => m.status))).toEqual(
      new Set(["active", "archived", "superseded"]),
    );
    for (const m of corpus) {
      expect(m.namespace).toMatch(NAMESPACE_PATTERN);
      expect(m.namespace.startsWith(`_${m.memory_type}/`)).toBe(true);
      expect(m.provenance.confidence).toBeGreaterThanOrEqual(0);
      expect(m.provenance.confidence).toBeLessThanOrEqual(1);
      expect(m.provenance.agent).toBeTruthy();
      expect(m.tags.length).toBeGreaterThanOrEqual(2);
      expect(m.content.split(/[.:]\s/).length).toBeGreaterThanOrEqual(2); // more than one sentence
      expect(Date.parse(m.modified)).toBeGreaterThanOrEqual(Date.parse(m.created));
    }
    expect(corpus.some((m) => m.entities.length > 0)).toBe(true);
    expect(corpus.some((m) => m.relationships.length > 0)).toBe(true);
    const created = corpus.map((m) => Date.parse(m.created));
    const spanDays = (Math.max(...created) - Math.min(...created)) / 86_400_000;
    expect(spanDays).toBeGreaterThan(300);
    const tokens = corpus.reduce(
      (sum, m) => sum + Math.ceil(JSON.stringify(toFullRecord(m)).length / 4),
      0,
    );
    const mean = tokens / corpus.length;
    expect(mean).toBeGreaterThan(140);
    expect(mean).toBeLessThan(220);
  });

  it("produces valid MIF: every memory exports and re-imports unchanged", () => {
    for (const memory of generateCorpus({ count: 300, seed: 3 })) {
      const back = convertJsonValue(JSON.parse(JSON.stringify(memoryToMif(memory))));
      expect(back).toEqual({ ok: true, memory });
    }
  });
});

describe("seedStore", () => {
  it("inserts the corpus in batches into SQLite, searchable by its words; re-seeding updates", async () => {
    const store = await openSqliteStore({ path: ":memory:" });
    const progress: number[] = [];
    const count = await seedStore(store, {
      count: 2500,
      seed: 11,
      batchSize: 1000,
      onProgress: (p) => progress.push(p.done),
    });
    expect(count).toBe(2500);
    expect(progress).toEqual([1000, 2000, 2500]);
    expect(await store.count({ status: "any" })).toBe(2500);
    const hits = await store.search({
      text: "PostgreSQL",
      syntax: "plain",
      limit: 1000,
      filter: { status: "any" },
    });
    expect(hits.length).toBeGreaterThan(10);
    expect(hits.every((h) => /postgresql/i.test(`${h.memory.title} ${h.memory.content}`))).toBe(
      true,
    );
    expect(await store.count({ namespace: "_episodic/incidents" })).toBeGreaterThan(0);
    await seedStore(store, { count: 2500, seed: 11 });
    expect(await store.count({ status: "any" })).toBe(2500);
    await store.close();
  });
});
