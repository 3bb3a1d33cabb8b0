import { describe, expect, it } from "vitest";
import type { ListSort, SortOrder } from "../../src/store/store.js";
import { BACKENDS } from "../backends/backends.js";
import { makeMemory } from "../store/fixtures.js";
import { failure, useServices } from "./helpers.js";

describe.each(BACKENDS)("SearchService ($name)", (backend) => {
  const ctx = useServices(backend);

  const syntax = backend.capabilities.querySyntax;

  it("runs the query language and returns raw relevance, best first", async () => {
    const both = makeMemory({ title: "Redis cache", content: "redis cache eviction" });
    const one = makeMemory({ content: "redis pub sub" });
    await ctx.store.upsertMany([both, one, ...Array.from({ length: 10 }, () => makeMemory())]);
    const and = await ctx.services.search.search({ query: "redis cache" });
    expect(and.hits.map((h) => h.memory.id)).toEqual([both.id]);
    const or = await ctx.services.search.search({ query: "redis cache OR pub" });
    expect(or.hits.map((h) => h.memory.id)).toEqual([both.id, one.id]);
    expect(or.hits[0]?.score).toBeGreaterThan(or.hits[1]?.score ?? Number.POSITIVE_INFINITY);
    expect(or.hits[0]?.score).toBeGreaterThan(0);
    const plain = await ctx.services.search.search({ query: "cache AND", syntax: "plain" });
    expect(plain.hits.map((h) => h.memory.id)).toEqual([both.id]);
    expect(ctx.services.search.syntax).toMatchObject({
      engine: backend.capabilities.fullText,
      name: syntax.name,
    });
  });

  it("answers what other engines call syntax errors, and punctuation alone with no hits", async () => {
    await ctx.store.upsertMany([makeMemory({ content: "still works, gpt-4 said" })]);
    for (const query of ['"open quote', "a AND", "title:", "(works", "NEAR(", "col:", "*", "-"]) {
      expect(Array.isArray((await ctx.services.search.search({ query })).hits), query).toBe(true);
    }
    expect((await ctx.services.search.search({ query: "gpt-4" })).hits).toHaveLength(1);
    expect((await ctx.services.search.search({ query: "*" })).hits).toEqual([]);
  });

  it("refuses a blank query as INVALID_ARGUMENT on query, and keeps serving", async () => {
    await ctx.store.upsertMany([makeMemory({ content: "still works" })]);
    expect(await failure(ctx.services.search.search({ query: "  " }))).toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "query",
    });
    expect((await ctx.services.search.search({ query: "works" })).hits).toHaveLength(1);
  });

  it("pages by cursor and applies filters", async () => {
    await ctx.store.upsertMany(
      Array.from({ length: 11 }, (_, i) =>
        makeMemory({
          content: `comet ${"tail ".repeat(i % 5)}`,
          namespace: i % 2 ? "_semantic/astro" : "_episodic/nights",
          memory_type: i % 2 ? "semantic" : "episodic",
        }),
      ),
    );
    const seen: string[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await ctx.services.search.search({ query: "comet", limit: 4, cursor });
      seen.push(...page.hits.map((h) => h.memory.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(11);
    expect(seen).toHaveLength(11);
    const astro = await ctx.services.search.search({
      query: "comet",
      filter: { namespace: "_semantic" },
    });
    expect(astro.hits).toHaveLength(5);
    expect(astro.hits.every((h) => h.memory.namespace === "_semantic/astro")).toBe(true);
  });
});

describe.each(BACKENDS)("ListService ($name)", (backend) => {
  const ctx = useServices(backend);

  it("walks every memory exactly once while new memories arrive between pages", async () => {
    const originals = Array.from({ length: 47 }, (_, i) =>
      makeMemory({
        title: `Title ${String.fromCharCode(97 + (i % 26))} ${i}`,
        // Many equal timestamps: ties must be broken by id.
        created: new Date(Date.UTC(2025, 0, 1 + (i % 6))).toISOString(),
        modified: new Date(Date.UTC(2025, 2, 1 + (i % 4))).toISOString(),
      }),
    );
    await ctx.store.upsertMany(originals);
    const ids = new Set(originals.map((m) => m.id));
    for (const sort of ["created", "modified", "title"] as ListSort[]) {
      for (const order of ["asc", "desc"] as SortOrder[]) {
        const seen: string[] = [];
        let cursor: string | null | undefined;
        let page = 0;
        do {
          const result = await ctx.services.list.list({ sort, order, limit: 6, cursor });
          seen.push(...result.memories.map((m) => m.id));
          cursor = result.next_cursor;
          // New memories land on both sides of the position reached.
          await ctx.services.memories.capture({
            content: `new ${sort} ${order} ${page++}`,
            title: "M new",
          });
          ctx.clock.advance(1000);
        } while (cursor);
        const old = seen.filter((id) => ids.has(id));
        expect(old, `${sort} ${order}`).toHaveLength(originals.length);
        expect(new Set(old).size, `${sort} ${order}`).toBe(originals.length);
        expect(new Set(seen).size, `${sort} ${order}`).toBe(seen.length);
      }
    }
  });

  it("sorts as asked and filters", async () => {
    const a = makeMemory({ title: "b title", tags: ["x"] });
    const b = makeMemory({
      title: "A title",
      memory_type: "episodic",
      namespace: "_episodic/general",
    });
    await ctx.store.upsertMany([a, b]);
    const titles = (await ctx.services.list.list({ sort: "title", order: "asc" })).memories.map(
      (m) => m.title,
    );
    expect(titles).toEqual(["A title", "b title"]);
    const byTag = await ctx.services.list.list({ filter: { tags: ["x"] } });
    expect(byTag.memories.map((m) => m.id)).toEqual([a.id]);
    expect(byTag.next_cursor).toBeNull();
    const newestFirst = await ctx.services.list.list({});
    expect(newestFirst.memories.map((m) => m.id)).toEqual([b.id, a.id]);
  });

  it("refuses bad arguments and cursors from another sort", async () => {
    await ctx.store.upsertMany(Array.from({ length: 3 }, () => makeMemory()));
    const { next_cursor } = await ctx.services.list.list({ limit: 1 });
    expect(
      await failure(ctx.services.list.list({ limit: 1, sort: "title", cursor: next_cursor })),
    ).toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "cursor",
    });
    expect(
      await failure(ctx.services.list.list({ limit: 1, order: "asc", cursor: next_cursor })),
    ).toMatchObject({
      field: "cursor",
    });
    expect(await failure(ctx.services.list.list({ sort: "size" as ListSort }))).toMatchObject({
      field: "sort",
    });
    expect(await failure(ctx.services.list.list({ limit: 1001 }))).toMatchObject({
      field: "limit",
    });
    expect(await failure(ctx.services.list.list({ filter: { tags: [""] } }))).toMatchObject({
      field: "tags",
    });
  });

  it("pages by offset: each page is that slice of the whole listing, light when asked", async () => {
    await ctx.store.upsertMany(Array.from({ length: 13 }, () => makeMemory()));
    const whole = (await ctx.services.list.list({ limit: 1000 })).memories.map((m) => m.id);
    expect(whole).toHaveLength(13);
    for (const offset of [0, 5, 10, 12, 13]) {
      const { memories, more } = await ctx.services.list.page({ limit: 5, offset }, "light");
      expect(memories.map((m) => m.id)).toEqual(whole.slice(offset, offset + 5));
      expect(more).toBe(offset + 5 < 13);
      for (const m of memories)
        expect(m).toMatchObject({ title: expect.any(String), tags: expect.any(Array) });
    }
    const full = await ctx.services.list.page({ limit: 2, offset: 3 });
    expect(full.memories.map((m) => m.content)).toEqual(
      (await ctx.services.list.list({ limit: 5 })).memories.slice(3).map((m) => m.content),
    );
    expect(await failure(ctx.services.list.page({ offset: -1 }))).toMatchObject({
      field: "offset",
    });
  });
});
