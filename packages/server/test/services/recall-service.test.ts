import { describe, expect, it } from "vitest";
import type { Memory } from "../../src/model/memory.js";
import { createServices } from "../../src/services/create-services.js";
import { BACKENDS } from "../backends/backends.js";
import { makeMemory } from "../store/fixtures.js";
import { failure, useServices } from "./helpers.js";

const DAY = 86_400_000;

describe.each(BACKENDS)("RecallService ($name)", (backend) => {
  const ctx = useServices(backend);

  /** A small corpus: matching memories among unrelated ones. */
  async function seed(extra: Memory[] = []) {
    const now = ctx.clock.now().getTime();
    const iso = (ms: number) => new Date(ms).toISOString();
    const unrelated = Array.from({ length: 30 }, (_, i) =>
      makeMemory({ title: `Standup ${i}`, content: `Discussed hiring plan and budget item ${i}.` }),
    );
    const titled = makeMemory({
      title: "Postgres migration runbook",
      content: "Steps for the postgres schema migration: back up, migrate, verify.",
      namespace: "_procedural/runbooks",
      memory_type: "procedural",
      tags: ["db", "runbook"],
      confidence: 0.9,
      modified: iso(now - DAY),
    });
    const mention = makeMemory({
      title: "Weekly sync",
      content:
        "Long meeting. Someone mentioned postgres briefly among many other topics of the week.",
      namespace: "_episodic/meetings",
      memory_type: "episodic",
      tags: ["meeting"],
      confidence: 0.6,
      modified: iso(now - 10 * DAY),
    });
    const decision = makeMemory({
      title: "Choose postgres over mysql",
      content: "Decision: postgres. Migration later.",
      namespace: "_semantic/decisions",
      tags: ["db", "decision"],
      confidence: 0.8,
      modified: iso(now - 2 * DAY),
    });
    await ctx.store.upsertMany([...unrelated, titled, mention, decision, ...extra]);
    return { titled, mention, decision };
  }

  it("ranks the memory about the query first and leaves out unrelated ones", async () => {
    const { titled, mention, decision } = await seed();
    // Without a relevance floor every memory sharing a word matches, best first.
    const unfloored = createServices(ctx.store, { now: ctx.clock.now, relevanceFloorPercent: 0 });
    const all = await unfloored.recall.recall({ query: "postgres migration" });
    expect(all.hits.map((h) => h.memory.id)).toEqual([titled.id, decision.id, mention.id]);
    // The floor leaves out the mention: it carries "postgres" alone, half of the query.
    const { hits, next_cursor } = await ctx.services.recall.recall({ query: "postgres migration" });
    expect(hits.map((h) => h.memory.id)).toEqual([titled.id, decision.id]);
    expect(next_cursor).toBeNull();
    for (const [i, h] of hits.entries()) {
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBeLessThanOrEqual(1);
      if (i > 0) expect(h.score).toBeLessThanOrEqual(hits[i - 1]?.score ?? 1);
    }
  });

  it("applies namespace prefix, type and tag filters", async () => {
    const { titled, decision, mention } = await seed();
    const ids = async (filter: object) =>
      (await ctx.services.recall.recall({ query: "postgres", filter })).hits.map(
        (h) => h.memory.id,
      );
    expect(await ids({ namespace: "_semantic" })).toEqual([decision.id]);
    expect(await ids({ namespace: "_episodic/meetings" })).toEqual([mention.id]);
    expect(await ids({ memory_type: "procedural" })).toEqual([titled.id]);
    expect((await ids({ tags: ["db"] })).sort()).toEqual([titled.id, decision.id].sort());
    expect(await ids({ tags: ["db", "decision"] })).toEqual([decision.id]);
  });

  it("prefers confident, recent memories among equal text matches", async () => {
    const now = ctx.clock.now().getTime();
    const content = "Notes on the espresso machine descaling.";
    const fresh = makeMemory({ content, confidence: 0.9, modified: new Date(now).toISOString() });
    const stale = makeMemory({
      content,
      confidence: 0.9,
      modified: new Date(now - 300 * DAY).toISOString(),
    });
    const doubtful = makeMemory({
      content,
      confidence: 0.1,
      modified: new Date(now).toISOString(),
    });
    await seed([doubtful, stale, fresh]);
    const { hits } = await ctx.services.recall.recall({ query: "espresso" });
    expect(hits.map((h) => h.memory.id)).toEqual([fresh.id, stale.id, doubtful.id]);
  });

  it("recalls everything by confidence and recency for an empty query, scores still in [0, 1]", async () => {
    await seed();
    const { hits } = await ctx.services.recall.recall({ query: "  ", limit: 1000 });
    expect(hits).toHaveLength(33);
    expect(hits[0]?.memory.title).toBe("Postgres migration runbook");
    expect(hits.every((h) => h.score >= 0 && h.score <= 1)).toBe(true);
  });

  it("limits to 20 by default and accepts 1 to 1000 only", async () => {
    await ctx.store.upsertMany(
      Array.from({ length: 25 }, () => makeMemory({ content: "kite surfing" })),
    );
    expect((await ctx.services.recall.recall({ query: "kite" })).hits).toHaveLength(20);
    expect((await ctx.services.recall.recall({ query: "kite", limit: 1000 })).hits).toHaveLength(
      25,
    );
    for (const limit of [0, 1001, 2.5, -1]) {
      expect(await failure(ctx.services.recall.recall({ query: "kite", limit }))).toMatchObject({
        code: "INVALID_ARGUMENT",
        field: "limit",
      });
    }
  });

  it("pages by cursor through every hit exactly once, in one ranking", async () => {
    await ctx.store.upsertMany(
      Array.from({ length: 23 }, (_, i) =>
        makeMemory({ content: `harbour ${"crane ".repeat(i % 4)}`, confidence: (i % 7) / 7 }),
      ),
    );
    const whole = (
      await ctx.services.recall.recall({ query: "harbour crane", limit: 100 })
    ).hits.map((h) => h.memory.id);
    const paged: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const page = await ctx.services.recall.recall({ query: "harbour crane", limit: 5, cursor });
      paged.push(...page.hits.map((h) => h.memory.id));
      cursor = page.next_cursor;
      pages++;
      ctx.clock.advance(3_600_000); // later pages must not see a different recency
    } while (cursor);
    // 17 memories carry both words; the relevance floor, pinned by the cursor,
    // leaves out the 6 with "harbour" alone on every page.
    expect(whole).toHaveLength(17);
    expect(pages).toBe(4);
    expect(paged).toEqual(whole);
  });

  it("keeps a walk to the memories that existed at its first page", async () => {
    await ctx.store.upsertMany(Array.from({ length: 8 }, () => makeMemory({ content: "lantern" })));
    const first = await ctx.services.recall.recall({ query: "lantern", limit: 4 });
    await ctx.services.memories.capture({ content: "lantern lantern brand new", confidence: 1 });
    const second = await ctx.services.recall.recall({
      query: "lantern",
      limit: 10,
      cursor: first.next_cursor,
    });
    const ids = [...first.hits, ...second.hits].map((h) => h.memory.id);
    expect(ids).toHaveLength(8);
    expect(new Set(ids).size).toBe(8);
  });

  it("refuses a cursor used with other arguments, and garbage cursors", async () => {
    await ctx.store.upsertMany(Array.from({ length: 5 }, () => makeMemory({ content: "meteor" })));
    const { next_cursor } = await ctx.services.recall.recall({ query: "meteor", limit: 2 });
    expect(next_cursor).toEqual(expect.any(String));
    const other = await failure(
      ctx.services.recall.recall({ query: "meteor shower", limit: 2, cursor: next_cursor }),
    );
    expect(other).toMatchObject({ code: "INVALID_ARGUMENT", field: "cursor" });
    expect(other.message).toMatch(/without a cursor/);
    const filtered = await failure(
      ctx.services.recall.recall({ query: "meteor", filter: { tags: ["x"] }, cursor: next_cursor }),
    );
    expect(filtered).toMatchObject({ field: "cursor" });
    expect(
      await failure(ctx.services.recall.recall({ query: "meteor", cursor: "garbage!" })),
    ).toMatchObject({
      field: "cursor",
    });
    // Same query and filter, different limit: fine.
    const next = await ctx.services.recall.recall({
      query: "meteor",
      limit: 10,
      cursor: next_cursor,
    });
    expect(next.hits).toHaveLength(3);
  });

  it("answers queries without words with no hits, and explains bad filters", async () => {
    await ctx.store.upsertMany([makeMemory({ content: "still here" })]);
    expect((await ctx.services.recall.recall({ query: "?!" })).hits).toEqual([]);
    expect(
      await failure(ctx.services.recall.recall({ query: "x", filter: { namespace: "/bad" } })),
    ).toMatchObject({ field: "namespace" });
    expect(
      await failure(
        ctx.services.recall.recall({ query: "x", filter: { status: "gone" as "active" } }),
      ),
    ).toMatchObject({ field: "status" });
  });
});
