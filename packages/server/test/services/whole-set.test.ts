/**
 * The services' whole-set reads (`read().stream()`, `list.all()`): every match in the paged walk's
 * order, arguments checked before anything is read, and store failures turned
 * into the same `INVALID_ARGUMENT` errors as the paged calls.
 */
import { describe, expect, it } from "vitest";
import { PROGRESS_EVERY, type ReadProgress } from "../../src/services/ranked-read.js";
import { makeMemory } from "../store/fixtures.js";
import { useServices } from "./helpers.js";

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

describe("whole-set reads of the services", () => {
  const ctx = useServices();

  async function seed(n: number) {
    const many = Array.from({ length: n }, (_, i) =>
      makeMemory({
        content: i % 2 === 0 ? `beacon ${"signal ".repeat(i % 4)}` : "quiet",
        confidence: (i % 5) / 5,
        modified: "2025-05-01T00:00:00.000Z",
      }),
    );
    await ctx.store.upsertMany(many);
    return many;
  }

  it("recall and search reads and list.all yield what the paged walks visit, in order", async () => {
    await seed(120);
    const walk = async <H>(
      page: (cursor: string | undefined) => Promise<{ items: H[]; next: string | null }>,
    ) => {
      const out: H[] = [];
      let cursor: string | undefined;
      do {
        const p = await page(cursor);
        out.push(...p.items);
        cursor = p.next ?? undefined;
      } while (cursor);
      return out;
    };
    const recalled = await walk(async (cursor) => {
      const r = await ctx.services.recall.recall({ query: "beacon", limit: 7, cursor });
      return { items: r.hits.map((h) => h.memory.id), next: r.next_cursor };
    });
    const all = await collect(ctx.services.recall.read({ query: "beacon" }).stream());
    expect(recalled).toHaveLength(60);
    expect(all.map((h) => h.memory.id)).toEqual(recalled);
    for (const h of all) expect(h.score).toBeGreaterThanOrEqual(0);

    const searched = await walk(async (cursor) => {
      const r = await ctx.services.search.search({ query: "beacon OR signal", limit: 9, cursor });
      return { items: r.hits.map((h) => h.memory.id), next: r.next_cursor };
    });
    const allSearched = await collect(
      ctx.services.search.read({ query: "beacon OR signal" }).stream(),
    );
    expect(allSearched.map((h) => h.memory.id)).toEqual(searched);

    const listed = await walk(async (cursor) => {
      const r = await ctx.services.list.list({ sort: "title", order: "asc", limit: 11, cursor });
      return { items: r.memories.map((m) => m.id), next: r.next_cursor };
    });
    const allListed = await collect(ctx.services.list.all({ sort: "title", order: "asc" }));
    expect(allListed.map((m) => m.id)).toEqual(listed);
    expect(listed).toHaveLength(120);
  });

  it("a light read yields the same hits and scores, each memory only its light fields", async () => {
    await seed(40);
    const light = [
      "id",
      "title",
      "namespace",
      "memory_type",
      "tags",
      "created",
      "modified",
      "status",
    ];
    const pick = (m: object) => Object.fromEntries(light.map((k) => [k, (m as never)[k]]));
    const recall = ctx.services.recall;
    const full = await collect(recall.read({ query: "beacon" }).stream());
    const lean = await collect(recall.read({ query: "beacon" }, { fields: "light" }).stream());
    expect(lean.map((h) => h.score)).toEqual(full.map((h) => h.score));
    expect(lean.map((h) => Object.keys(h.memory))).toEqual(full.map(() => light));
    expect(lean.map((h) => h.memory)).toEqual(full.map((h) => pick(h.memory)));

    const search = ctx.services.search;
    const searched = await collect(search.read({ query: "signal" }, { fields: "light" }).stream());
    expect(searched.map((h) => h.memory)).toEqual(
      (await collect(search.read({ query: "signal" }).stream())).map((h) => pick(h.memory)),
    );
    const listed = await collect(
      ctx.services.list.all({ sort: "title", order: "asc" }, { fields: "light" }),
    );
    expect(listed).toEqual(
      (await collect(ctx.services.list.all({ sort: "title", order: "asc" }))).map(pick),
    );
    expect(listed).toHaveLength(40);
  });

  it("firstPage(limit) after the stream is its first hits (no second store query); before, a store query; both equal the paged call", async () => {
    await seed(120);
    const events: ReadProgress[] = [];
    const read = ctx.services.recall.read(
      { query: "beacon", limit: 7 },
      { onProgress: (p) => events.push(p) },
    );
    const firstEvents: ReadProgress[][] = [];
    const streamed: { memory: { id: string } }[] = [];
    for await (const h of read.stream()) {
      if (streamed.length === 0) firstEvents.push([...events]);
      streamed.push(h);
    }
    // The store was asked before the first hit, and the end reports what it returned.
    expect(firstEvents[0]).toEqual([{ kind: "query" }]);
    expect(events).toEqual([{ kind: "query" }, { kind: "done", read: 60 }]);
    const page = await read.firstPage(7);
    expect(page.fromStream).toBe(true);
    expect(events).toHaveLength(2); // no second store query
    for (const [i, h] of page.hits.entries()) expect(h.memory).toBe(streamed[i]?.memory);
    const paged = await ctx.services.recall.recall({ query: "beacon", limit: 7 });
    expect(page.hits.map((h) => h.memory.id)).toEqual(paged.hits.map((h) => h.memory.id));
    const next = (c: string | null) =>
      ctx.services.recall.recall({ query: "beacon", limit: 7, cursor: c });
    expect((await next(page.next_cursor)).hits.map((h) => h.memory.id)).toEqual(
      (await next(paged.next_cursor)).hits.map((h) => h.memory.id),
    );
    // More than the stream kept: one store query, same page.
    const wider = await read.firstPage(20);
    expect(wider.fromStream).toBe(false);
    expect(events.at(-1)).toEqual({ kind: "query" });
    expect(wider.hits.map((h) => h.memory.id)).toEqual(
      streamed.slice(0, 20).map((h) => h.memory.id),
    );
    // Never streamed: a store query.
    const search = ctx.services.search.read({ query: "beacon", limit: 5 });
    const searchPage = await search.firstPage(5);
    expect(searchPage.fromStream).toBe(false);
    expect(searchPage.hits.map((h) => h.memory.id)).toEqual(
      (await ctx.services.search.search({ query: "beacon", limit: 5 })).hits.map(
        (h) => h.memory.id,
      ),
    );
  });

  it("reports hits as the store returns them, every PROGRESS_EVERY", async () => {
    await seed(2 * PROGRESS_EVERY + 10);
    const events: ReadProgress[] = [];
    const read = ctx.services.search.read(
      { query: "beacon" },
      { onProgress: (p) => events.push(p) },
    );
    let seen = 0;
    for await (const _ of read.stream()) {
      seen++;
      // Each report counts hits already handed over, never more.
      const last = events.at(-1);
      if (last && "read" in last) expect(last.read).toBeLessThanOrEqual(seen);
    }
    expect(events).toEqual([
      { kind: "query" },
      { kind: "hits", read: PROGRESS_EVERY },
      { kind: "done", read: seen },
    ]);
    expect(seen).toBe(PROGRESS_EVERY + 5);
  });

  it("a recall read without a query recalls every memory", async () => {
    await seed(30);
    expect(await collect(ctx.services.recall.read({}).stream())).toHaveLength(30);
  });

  it("checks arguments before reading, and reads any query text as words", async () => {
    await seed(5);
    // Bad arguments throw at the call, before any read.
    expect(() => ctx.services.recall.read({ query: "x".repeat(5000) })).toThrow(/query/);
    expect(() => ctx.services.search.read({ query: " " }).stream()).toThrow(/query/);
    expect(() =>
      ctx.services.list.all({ sort: "size" as unknown as "title", order: "asc" }),
    ).toThrow(/sort/);
    // No text is malformed: an open quote is read as words, punctuation alone has no hits.
    expect(await collect(ctx.services.search.read({ query: '"open quote' }).stream())).toEqual([]);
    expect(await collect(ctx.services.recall.read({ query: "!!!" }).stream())).toEqual([]);
  });
});
