/**
 * The services' whole-set reads (`all()`): every match in the paged walk's
 * order, arguments checked before anything is read, and store failures turned
 * into the same `INVALID_ARGUMENT` errors as the paged calls.
 */
import { describe, expect, it } from "vitest";
import { isServiceError } from "../../src/services/errors.js";
import { makeMemory } from "../store/fixtures.js";
import { useServices } from "./helpers.js";

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

/** The ServiceError of a synchronous call or of draining what it returned. */
async function failureOf(run: () => AsyncIterable<unknown>) {
  try {
    await collect(run());
  } catch (err) {
    if (isServiceError(err)) return { code: err.code, field: err.field };
    return { code: `not a ServiceError: ${String(err)}` };
  }
  return { code: "resolved" };
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

  it("recall.all, search.all and list.all yield what the paged walks visit, in order", async () => {
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
    const all = await collect(ctx.services.recall.all({ query: "beacon" }));
    expect(recalled).toHaveLength(60);
    expect(all.map((h) => h.memory.id)).toEqual(recalled);
    for (const h of all) expect(h.score).toBeGreaterThanOrEqual(0);

    const searched = await walk(async (cursor) => {
      const r = await ctx.services.search.search({ query: "beacon OR signal", limit: 9, cursor });
      return { items: r.hits.map((h) => h.memory.id), next: r.next_cursor };
    });
    const allSearched = await collect(ctx.services.search.all({ query: "beacon OR signal" }));
    expect(allSearched.map((h) => h.memory.id)).toEqual(searched);

    const listed = await walk(async (cursor) => {
      const r = await ctx.services.list.list({ sort: "title", order: "asc", limit: 11, cursor });
      return { items: r.memories.map((m) => m.id), next: r.next_cursor };
    });
    const allListed = await collect(ctx.services.list.all({ sort: "title", order: "asc" }));
    expect(allListed.map((m) => m.id)).toEqual(listed);
    expect(listed).toHaveLength(120);
  });

  it('all(input, "light") yields the same hits and scores, each memory only its light fields', async () => {
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
    const full = await collect(recall.all({ query: "beacon" }));
    const lean = await collect(recall.all({ query: "beacon" }, "light"));
    expect(lean.map((h) => h.score)).toEqual(full.map((h) => h.score));
    expect(lean.map((h) => Object.keys(h.memory))).toEqual(full.map(() => light));
    expect(lean.map((h) => h.memory)).toEqual(full.map((h) => pick(h.memory)));

    const search = ctx.services.search;
    const searched = await collect(search.all({ query: "signal" }, "light"));
    expect(searched.map((h) => h.memory)).toEqual(
      (await collect(search.all({ query: "signal" }))).map((h) => pick(h.memory)),
    );
    const listed = await collect(ctx.services.list.all({ sort: "title", order: "asc" }, "light"));
    expect(listed).toEqual(
      (await collect(ctx.services.list.all({ sort: "title", order: "asc" }))).map(pick),
    );
    expect(listed).toHaveLength(40);
  });

  it("recall.all without a query recalls every memory", async () => {
    await seed(30);
    expect(await collect(ctx.services.recall.all({}))).toHaveLength(30);
  });

  it("checks arguments before reading, and maps query errors to INVALID_ARGUMENT", async () => {
    await seed(5);
    // Bad arguments throw at the call, before any read.
    expect(() => ctx.services.recall.all({ query: "x".repeat(5000) })).toThrow(/query/);
    expect(() => ctx.services.search.all({ query: " " })).toThrow(/query/);
    expect(() =>
      ctx.services.list.all({ sort: "size" as unknown as "title", order: "asc" }),
    ).toThrow(/sort/);
    // A query the store cannot parse fails as the paged call does.
    expect(await failureOf(() => ctx.services.search.all({ query: '"open quote' }))).toEqual({
      code: "INVALID_ARGUMENT",
      field: "query",
    });
    expect(await failureOf(() => ctx.services.recall.all({ query: "!!!" }))).toEqual({
      code: "INVALID_ARGUMENT",
      field: "query",
    });
  });
});
