/**
 * The MemoryStore contract: behaviour every backend must show.
 * `contract.test.ts` calls {@link describeMemoryStoreContract} once per backend
 * of `test/backends/backends.ts` (SQLite `:memory:`; PostgreSQL a fresh schema
 * per test). Differences between backends are capability flags, tested with
 * `it.skipIf` on the flag, never by returning early.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Memory } from "../../src/model/memory.js";
import { isStoreError, type StoreErrorCode } from "../../src/store/errors.js";
import type {
  ListedMemory,
  ListPosition,
  MemoryStore,
  RankedHit,
  RankPosition,
  RankQuery,
  Scoring,
  StoreCapabilities,
  TextHit,
} from "../../src/store/store.js";
import { makeMemory, richMemory } from "./fixtures.js";

/** Resolves to the StoreError code `promise` rejects with. */
async function codeOf(promise: Promise<unknown>): Promise<StoreErrorCode | "resolved" | "other"> {
  try {
    await promise;
    return "resolved";
  } catch (err) {
    return isStoreError(err) ? err.code : "other";
  }
}

const SCORING: Scoring = {
  weights: { relevance: 0.7, confidence: 0.2, recency: 0.1 },
  relevanceHalf: 5,
  defaultConfidence: 0.5,
  halfLifeMs: 30 * 86_400_000,
  asOf: Date.UTC(2025, 6, 1),
};

/** Filler memories so corpus statistics (bm25 IDF) behave as in a real store. */
function filler(count: number): Memory[] {
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
  return Array.from({ length: count }, (_, i) =>
    makeMemory({
      title: `Note ${words[i % words.length]} ${i}`,
      content: `Routine note about ${words[(i * 3) % words.length]} and ${words[(i * 5 + 1) % words.length]}.`,
    }),
  );
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/**
 * Texts that look like syntax of some engine (FTS5, tsquery): the query
 * language reads each as words, never as an error.
 */
const HOSTILE = [
  '"unterminated',
  "foo AND",
  "(a OR",
  "nosuchcolumn: x",
  "c-d",
  '"',
  "valve)) ((",
  "*",
  "NEAR(",
  "NEAR(a b, 10)",
  "col:",
  "title:valve",
  "^valve",
  "-",
  "OR",
  "a OR OR -",
  '""',
  "'; DROP TABLE memories; --",
  "\\ \\'",
  "!(&|<->:*)",
];

export function describeMemoryStoreContract(backend: {
  name: string;
  capabilities: StoreCapabilities;
  open: () => Promise<MemoryStore>;
}): void {
  const factory = backend.open;
  describe(`MemoryStore contract: ${backend.name}`, () => {
    let store: MemoryStore;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await store.close();
    });

    describe("CRUD", () => {
      it("round-trips a memory with every structure, unknown leftovers included", async () => {
        const memory = richMemory();
        await store.insert(memory);
        expect(await store.get(memory.id)).toEqual(memory);
      });

      it("round-trips awkward text through single and bulk writes", async () => {
        const awkward =
          'tab\there\nnew line\r\nCRLF \\ backslash \\N "quoted" {braces} ,comma \u00e9\u4e2d\ud83d\ude80';
        const one = makeMemory({
          title: `T ${awkward}`,
          content: awkward,
          tags: [awkward, '"', "\\", "a,b", "{x}", "NULL"],
        });
        const bulk = makeMemory({ title: awkward, content: `${awkward}\n`, tags: ["\t", "NULL"] });
        await store.insert(one);
        await store.upsertMany([bulk]);
        expect(await store.get(one.id)).toEqual(one);
        expect(await store.get(bulk.id)).toEqual(bulk);
        const changed = { ...bulk, content: `changed ${awkward}` };
        await store.upsertMany([changed, makeMemory({ content: awkward })]);
        expect(await store.get(bulk.id)).toEqual(changed);
        const ids = async (tags: string[]) =>
          (await store.list({ filter: { tags }, sort: "created", order: "asc", limit: 10 })).map(
            (r) => r.memory.id,
          );
        expect(await ids([awkward])).toEqual([one.id]);
        expect(await ids(["NULL"])).toEqual([one.id, bulk.id]);
      });

      it("returns undefined for an unknown id", async () => {
        expect(await store.get("no-such-id")).toBeUndefined();
      });

      it("refuses a second insert of the same id with DUPLICATE_ID", async () => {
        const memory = makeMemory();
        await store.insert(memory);
        expect(await codeOf(store.insert({ ...memory, title: "other" }))).toBe("DUPLICATE_ID");
        expect((await store.get(memory.id))?.title).toBe(memory.title);
      });

      it("inserts a batch in one transaction: all stored in order, or none", async () => {
        const batch = Array.from({ length: 300 }, (_, i) =>
          makeMemory({ content: `batch tern ${i}`, tags: i % 2 ? ["odd"] : [] }),
        );
        await store.insertMany(batch);
        expect(await store.getMany(batch.map((m) => m.id))).toEqual(batch);
        const listed = await store.list({ sort: "created", order: "asc", limit: 1000 });
        expect(listed.map((r) => r.memory.id)).toEqual(batch.map((m) => m.id));
        expect(await store.search({ text: "tern", syntax: "plain", limit: 5 })).toHaveLength(5);

        const fresh = makeMemory({ content: "never stored" });
        const again = batch[7] as Memory;
        expect(await codeOf(store.insertMany([fresh, { ...again, title: "other" }]))).toBe(
          "DUPLICATE_ID",
        );
        const twice = makeMemory();
        expect(await codeOf(store.insertMany([fresh, twice, twice]))).toBe("DUPLICATE_ID");
        expect(await store.get(fresh.id)).toBeUndefined();
        expect(await store.get(twice.id)).toBeUndefined();
        expect((await store.get(again.id))?.title).toBe(again.title);
        await store.insertMany([]);
      });

      it("updates a stored memory and reports unknown ids", async () => {
        const memory = makeMemory({ title: "Before" });
        await store.insert(memory);
        expect(await store.update({ ...memory, title: "After", tags: ["x"] })).toBe(true);
        const got = await store.get(memory.id);
        expect(got?.title).toBe("After");
        expect(got?.tags).toEqual(["x"]);
        expect(await store.update(makeMemory())).toBe(false);
      });

      it("deletes, and a deleted memory is gone from get, list, count and search", async () => {
        const memory = makeMemory({ content: "zanzibar harbour" });
        await store.insert(memory);
        expect(await store.delete(memory.id)).toBe(true);
        expect(await store.delete(memory.id)).toBe(false);
        expect(await store.get(memory.id)).toBeUndefined();
        expect(await store.count()).toBe(0);
        expect(await store.list({ sort: "created", order: "asc", limit: 10 })).toEqual([]);
        expect(await store.search({ text: "zanzibar", syntax: "plain", limit: 10 })).toEqual([]);
      });

      it("deleting or updating one memory leaves the others searchable", async () => {
        const all = Array.from({ length: 5 }, (_, i) =>
          makeMemory({ content: `narwhal tusk ${i}` }),
        );
        await store.upsertMany(all);
        const [first, second] = all;
        if (!first || !second) throw new Error("setup");
        await store.delete(first.id);
        await store.update({ ...second, content: "narwhal pod" });
        const hits = await store.search({ text: "narwhal", syntax: "plain", limit: 10 });
        expect(hits.map((h) => h.memory.id).sort()).toEqual(
          all
            .slice(1)
            .map((m) => m.id)
            .sort(),
        );
        expect(await store.search({ text: "pod", syntax: "plain", limit: 10 })).toHaveLength(1);
        expect(await store.search({ text: "tusk", syntax: "plain", limit: 10 })).toHaveLength(3);
      });

      it("updates conditionally: CONFLICT when the memory changed since it was read", async () => {
        const memory = makeMemory({ title: "Read" });
        await store.insert(memory);
        const other = { ...memory, title: "Written by another process" };
        expect(await store.update(other, { expected: memory })).toBe(true);
        const mine = { ...memory, content: "my change" };
        expect(await codeOf(store.update(mine, { expected: memory }))).toBe("CONFLICT");
        expect(await store.get(memory.id)).toEqual(other);
        expect(await store.update({ ...other, content: "retried" }, { expected: other })).toBe(
          true,
        );
        expect((await store.get(memory.id))?.content).toBe("retried");
        const unknown = makeMemory();
        expect(await store.update(unknown, { expected: unknown })).toBe(false);
      });

      it("getMany keeps the requested order and skips unknown ids", async () => {
        const [a, b, c] = [makeMemory(), makeMemory(), makeMemory()];
        await store.upsertMany([a, b, c]);
        const got = await store.getMany([c.id, "missing", a.id]);
        expect(got.map((m) => m.id)).toEqual([c.id, a.id]);
      });
    });

    describe("upsertMany", () => {
      it("inserts new ids and updates known ones, idempotently", async () => {
        const batch = [makeMemory(), makeMemory(), makeMemory()];
        expect(await store.upsertMany(batch)).toEqual({ inserted: 3, updated: 0 });
        expect(await store.upsertMany(batch)).toEqual({ inserted: 0, updated: 3 });
        expect(await store.count()).toBe(3);
        const changed = { ...batch[1], title: "Changed title" } as Memory;
        expect(await store.upsertMany([changed, makeMemory()])).toEqual({
          inserted: 1,
          updated: 1,
        });
        expect((await store.get(changed.id))?.title).toBe("Changed title");
        expect(await store.count()).toBe(4);
      });

      it("stores a batch whose known id comes after new ones whole, each memory once", async () => {
        const known = makeMemory();
        await store.upsertMany([known]);
        const fresh = Array.from({ length: 50 }, () => makeMemory());
        const batch = [...fresh, { ...known, title: "Known, updated" }];
        expect(await store.upsertMany(batch)).toEqual({ inserted: 50, updated: 1 });
        expect(await store.count()).toBe(51);
        expect((await store.get(known.id))?.title).toBe("Known, updated");
        expect((await store.getMany(fresh.map((m) => m.id))).map((m) => m.id)).toEqual(
          fresh.map((m) => m.id),
        );
      });

      it("stores nothing when one row is bad (one transaction)", async () => {
        const existing = makeMemory({ title: "Existing" });
        await store.insert(existing);
        const good = makeMemory();
        const bad = makeMemory({ created: "not a date" });
        const err = await store
          .upsertMany([good, { ...existing, title: "Overwritten" }, bad])
          .catch((e: unknown) => e);
        expect(isStoreError(err, "INVALID_MEMORY")).toBe(true);
        expect((err as Error).message).toMatch(/created/);
        expect(await store.get(good.id)).toBeUndefined();
        expect((await store.get(existing.id))?.title).toBe("Existing");
        expect(await store.count()).toBe(1);
      });

      it("rejects a memory type the model does not know, storing nothing", async () => {
        const bad = { ...makeMemory(), memory_type: "dream" } as unknown as Memory;
        expect(await codeOf(store.upsertMany([makeMemory(), bad]))).toBe("INVALID_MEMORY");
        expect(await store.count()).toBe(0);
      });

      it("keeps the full-text index in sync with updates", async () => {
        const memory = makeMemory({ content: "the quokka sleeps", tags: ["marsupial"] });
        await store.upsertMany([memory, ...filler(5)]);
        await store.upsertMany([{ ...memory, content: "the wombat digs", tags: ["burrow"] }]);
        const find = async (text: string) =>
          (await store.search({ text, syntax: "plain", limit: 5 })).map((h) => h.memory.id);
        expect(await find("quokka")).toEqual([]);
        expect(await find("marsupial")).toEqual([]);
        expect(await find("wombat")).toEqual([memory.id]);
        expect(await find("burrow")).toEqual([memory.id]);
      });
    });

    describe("filters", () => {
      it("matches namespace prefixes on whole segments only", async () => {
        const ns = [
          "_semantic",
          "_semantic/decisions",
          "_semantic/decisions/db",
          "_semanticx/other",
          "_semantic-extra",
          "_episodic/sessions",
        ];
        const byNs = new Map(ns.map((n) => [n, makeMemory({ namespace: n })]));
        await store.upsertMany([...byNs.values()]);
        const listNs = async (namespace: string) =>
          (await store.list({ filter: { namespace }, sort: "created", order: "asc", limit: 50 }))
            .map((r) => r.memory.namespace)
            .sort();
        expect(await listNs("_semantic")).toEqual([
          "_semantic",
          "_semantic/decisions",
          "_semantic/decisions/db",
        ]);
        expect(await listNs("_semantic/decisions")).toEqual([
          "_semantic/decisions",
          "_semantic/decisions/db",
        ]);
        expect(await listNs("_semantic/dec")).toEqual([]);
        expect(await store.count({ namespace: "_episodic" })).toBe(1);
      });

      it("requires every listed tag", async () => {
        const a = makeMemory({ tags: ["db", "decision"] });
        const b = makeMemory({ tags: ["db"] });
        const c = makeMemory({ tags: ["decision", "ui"] });
        await store.upsertMany([a, b, c]);
        const ids = async (tags: string[]) =>
          (await store.list({ filter: { tags }, sort: "created", order: "asc", limit: 10 })).map(
            (r) => r.memory.id,
          );
        expect(await ids(["db"])).toEqual([a.id, b.id]);
        expect(await ids(["db", "decision"])).toEqual([a.id]);
        expect(await ids(["decision", "missing"])).toEqual([]);
        expect(await ids(["DB"])).toEqual([]);
      });

      it("filters by type and by status, active by default", async () => {
        const sem = makeMemory();
        const epi = makeMemory({ memory_type: "episodic", namespace: "_episodic/general" });
        const old = makeMemory({ status: "archived" });
        await store.upsertMany([sem, epi, old]);
        expect(await store.count()).toBe(2);
        expect(await store.count({ status: "any" })).toBe(3);
        expect(await store.count({ status: "archived" })).toBe(1);
        expect(await store.count({ memory_type: "episodic" })).toBe(1);
        const hits = await store.search({
          text: "content",
          syntax: "plain",
          filter: { memory_type: "semantic", status: "any" },
          limit: 10,
        });
        expect(hits.map((h) => h.memory.id).sort()).toEqual([sem.id, old.id].sort());
      });
    });

    describe("list and iterate", () => {
      it("orders by each sort key both ways and continues strictly after a position", async () => {
        const memories = ["delta", "Alpha", "charlie", "bravo"].map((t, i) =>
          makeMemory({
            title: t,
            created: new Date(Date.UTC(2025, 1, 1 + i)).toISOString(),
            modified: new Date(Date.UTC(2025, 5, 10 - i)).toISOString(),
          }),
        );
        await store.upsertMany(memories);
        const titles = async (sort: "created" | "modified" | "title", order: "asc" | "desc") =>
          (await store.list({ sort, order, limit: 10 })).map((r) => r.memory.title);
        expect(await titles("created", "asc")).toEqual(["delta", "Alpha", "charlie", "bravo"]);
        expect(await titles("created", "desc")).toEqual(["bravo", "charlie", "Alpha", "delta"]);
        expect(await titles("modified", "asc")).toEqual(["bravo", "charlie", "Alpha", "delta"]);
        expect(await titles("title", "asc")).toEqual(["Alpha", "bravo", "charlie", "delta"]);
        expect(await titles("title", "desc")).toEqual(["delta", "charlie", "bravo", "Alpha"]);
        const firstTwo = await store.list({ sort: "title", order: "asc", limit: 2 });
        expect(firstTwo.map((r) => r.memory.title)).toEqual(["Alpha", "bravo"]);
        const after = await store.list({
          sort: "title",
          order: "asc",
          limit: 10,
          after: firstTwo[1]?.position,
        });
        expect(after.map((r) => r.memory.title)).toEqual(["charlie", "delta"]);
      });

      it("breaks ties on the sort key by insertion order, so keyset pages never skip or repeat", async () => {
        const created = "2025-03-01T00:00:00.000Z";
        const same = Array.from({ length: 7 }, () => makeMemory({ created, modified: created }));
        const inserted = [...same].reverse();
        await store.upsertMany(inserted);
        for (const order of ["asc", "desc"] as const) {
          const seen: string[] = [];
          let after: ListPosition | undefined;
          for (;;) {
            const page = await store.list({ sort: "created", order, limit: 3, after });
            seen.push(...page.map((r) => r.memory.id));
            const last = page[page.length - 1];
            if (!last || page.length < 3) break;
            after = last.position;
          }
          const expected = inserted.map((m) => m.id);
          expect(seen).toEqual(order === "asc" ? expected : expected.reverse());
        }
      });

      it("iterates every matching memory in (created, insertion) order across pages", async () => {
        const many = Array.from({ length: 1203 }, (_, i) =>
          makeMemory({
            created: new Date(Date.UTC(2025, 0, 1) + (i % 400) * 1000).toISOString(),
            status: i % 10 === 0 ? "archived" : "active",
          }),
        );
        const inserted = [...many].reverse();
        await store.upsertMany(inserted);
        const all = await collect(store.iterate({ status: "any" }));
        // A stable sort of the insertion order by created.
        const expected = [...inserted]
          .sort((a, b) => Date.parse(a.created) - Date.parse(b.created))
          .map((m) => m.id);
        expect(all.map((m) => m.id)).toEqual(expected);
        const active = await collect(store.iterate());
        expect(active).toHaveLength(many.filter((m) => m.status === "active").length);
      });
    });

    describe("full-text search", () => {
      it("ranks a title match above a single mention in the content", async () => {
        const titled = makeMemory({
          title: "Kubernetes rollout plan",
          content: "Roll out kubernetes in three waves.",
        });
        const mention = makeMemory({
          title: "Weekly notes",
          content: "Many topics this week; kubernetes came up once among budget and hiring.",
        });
        await store.upsertMany([mention, titled, ...filler(30)]);
        const hits = await store.search({ text: "kubernetes", syntax: "plain", limit: 10 });
        expect(hits.map((h) => h.memory.id)).toEqual([titled.id, mention.id]);
        expect(hits[0]?.relevance).toBeGreaterThan(hits[1]?.relevance ?? Number.POSITIVE_INFINITY);
        expect(hits.every((h) => h.relevance >= 0)).toBe(true);
      });

      it("treats plain text as words: operators and punctuation are just words", async () => {
        const m = makeMemory({ content: "Use NOT null columns: gpt-4 said so (really)." });
        await store.upsertMany([m, ...filler(10)]);
        for (const text of ['NOT null "columns', "gpt-4 (really", "said AND so", "columns:"]) {
          const hits = await store.search({ text, syntax: "plain", limit: 5 });
          expect(hits.map((h) => h.memory.id)).toContain(m.id);
        }
      });

      it("matches the last plain word as a prefix and stems words", async () => {
        const m = makeMemory({ content: "The database migrations finished overnight." });
        await store.upsertMany([m, ...filler(10)]);
        const ids = async (text: string) =>
          (await store.search({ text, syntax: "plain", limit: 5 })).map((h) => h.memory.id);
        expect(await ids("migra")).toEqual([m.id]);
        expect(await ids("migration")).toEqual([m.id]);
        expect(await ids("overnight databases")).toEqual([m.id]);
      });

      it("answers plain text without words with no hits", async () => {
        await store.upsertMany(filler(5));
        expect(await store.search({ text: " ?! ", syntax: "plain", limit: 5 })).toEqual([]);
        expect(await store.rank({ text: "...", scoring: SCORING, limit: 5 })).toEqual([]);
      });

      it("reads the query language: all words, phrase, OR, exclusion, prefix", async () => {
        const both = makeMemory({ content: "redis cache eviction" });
        const one = makeMemory({ content: "redis pub sub" });
        const other = makeMemory({ content: "memcached cache migrations" });
        await store.upsertMany([both, one, other, ...filler(10)]);
        const ids = async (text: string) =>
          (await store.search({ text, syntax: "native", limit: 5 })).map((h) => h.memory.id).sort();
        expect(await ids("redis cache")).toEqual([both.id]);
        expect(await ids("redis AND cache")).toEqual([both.id]);
        expect(await ids('"redis pub"')).toEqual([one.id]);
        expect(await ids('"pub redis"')).toEqual([]);
        expect(await ids("redis -cache")).toEqual([one.id]);
        expect(await ids("redis NOT cache")).toEqual([one.id]);
        expect(await ids('cache -"redis cache"')).toEqual([other.id]);
        expect(await ids("pub OR memcached")).toEqual([one.id, other.id].sort());
        expect(await ids("cache redis OR memcached")).toEqual([both.id, other.id].sort());
        expect(await ids("migra*")).toEqual([other.id]);
        expect(await ids("migra")).toEqual([]);
        expect(await ids("-redis")).toEqual([]);
        // Lower-case "or" is a word, and a stopword: left out.
        expect(await ids("redis or cache")).toEqual([both.id]);
      });

      it("matches words joined by punctuation as the adjacent words they are indexed as", async () => {
        const valve = makeMemory({
          title: "Note 137: the zephyrine-valve",
          content: "Pressure readings of the valve (zephyrine) after gpt-4 review of v1.2.",
        });
        const apart = makeMemory({ content: "A zephyrine crystal sat next to a valve." });
        await store.upsertMany([valve, apart, ...filler(10)]);
        const ids = async (text: string) =>
          (await store.search({ text, syntax: "native", limit: 5 })).map((h) => h.memory.id).sort();
        expect(await ids("zephyrine-valve")).toEqual([valve.id]);
        expect(await ids("Note 137:")).toEqual([valve.id]);
        expect(await ids("valve (zephyrine)")).toEqual([valve.id, apart.id].sort());
        expect(await ids("gpt-4")).toEqual([valve.id]);
        expect(await ids("v1.2")).toEqual([valve.id]);
        expect(await ids("zephyrine-valv*")).toEqual([valve.id]);
        expect(await ids("-zephyrine-valve zephyrine")).toEqual([apart.id]);
      });

      it("matches a question on its significant words, not its stopwords", async () => {
        const right = [
          makeMemory({ title: "Valve log", content: "The zephyrine valve sticks in the cold." }),
          makeMemory({ content: "Replaced the zephyrine valve seal." }),
        ];
        const chatter = Array.from({ length: 8 }, (_, i) =>
          makeMemory({ content: `What is the plan ${i}? It is the one with the budget.` }),
        );
        await store.upsertMany([...chatter, ...right, ...filler(5)]);
        const question = "What is the zephyrine valve?";
        const rightIds = right.map((m) => m.id).sort();
        const searched = await store.search({ text: question, syntax: "native", limit: 50 });
        expect(searched.map((h) => h.memory.id).sort()).toEqual(rightIds);
        const plain = await store.search({ text: question, syntax: "plain", limit: 50 });
        expect(plain.map((h) => h.memory.id).sort()).toEqual(rightIds);
        const recalled = await store.rank({ text: question, scoring: SCORING, limit: 50 });
        expect(recalled.map((h) => h.memory.id).sort()).toEqual(rightIds);
        // Quoted, a stopword is matched as written; a query of stopwords only keeps them.
        const phrase = await store.search({ text: '"the zephyrine"', syntax: "native", limit: 50 });
        expect(phrase.map((h) => h.memory.id).sort()).toEqual(rightIds);
        const onlyStop = await store.rank({ text: "what is", scoring: SCORING, limit: 50 });
        expect(onlyStop.map((h) => h.memory.id).sort()).toEqual(chatter.map((m) => m.id).sort());
      });

      it("answers any text, however hostile, with hits or none, and keeps working", async () => {
        const m = makeMemory({ content: "foo bar unterminated nosuchcolumn valve near col title" });
        await store.upsertMany([m, ...filler(10)]);
        for (const text of HOSTILE) {
          const hits = await store.search({ text, syntax: "native", limit: 5 });
          expect(Array.isArray(hits), text).toBe(true);
          const all = await collect(store.searchAll({ text, syntax: "native" }));
          expect(
            all.map((h) => h.memory.id),
            text,
          ).toEqual(hits.map((h) => h.memory.id));
          const ranked = await store.rank({ text, scoring: SCORING, limit: 5 });
          expect(Array.isArray(ranked), text).toBe(true);
        }
        const found = async (text: string) =>
          (await store.search({ text, syntax: "native", limit: 5 })).map((h) => h.memory.id);
        expect(await found('"unterminated')).toEqual([m.id]);
        expect(await found("NEAR(")).toEqual([m.id]);
        expect(await found("col:")).toEqual([m.id]);
        for (const text of ["*", "-", '""', "OR", "!(&|<->:*)"])
          expect(await found(text)).toEqual([]);
        expect(await found("still")).toEqual([]);
      });

      it("pages by (relevance, id) and honours the horizon", async () => {
        const matches = Array.from({ length: 9 }, (_, i) =>
          makeMemory({ content: `penguin ${"colony ".repeat(i % 3)}` }),
        );
        await store.upsertMany([...matches, ...filler(10)]);
        const horizon = await store.horizon();
        const all = await store.search({ text: "penguin", syntax: "plain", limit: 100 });
        expect(all).toHaveLength(9);
        await store.upsertMany([makeMemory({ content: "penguin newcomer" })]);
        const paged: string[] = [];
        let after: RankPosition | undefined;
        for (;;) {
          const page = await store.search({
            text: "penguin",
            syntax: "plain",
            limit: 4,
            after,
            horizon,
          });
          paged.push(...page.map((h) => h.memory.id));
          const last = page[page.length - 1];
          if (!last || page.length < 4) break;
          expect(last.position.value).toBe(last.relevance);
          after = last.position;
        }
        expect(new Set(paged).size).toBe(9);
        expect(paged.sort()).toEqual(all.map((h) => h.memory.id).sort());
      });
    });

    describe("ranked walks while memories are added", () => {
      it("visit every original hit exactly once although bm25 statistics shift", async () => {
        // Distinct term frequencies give distinct scores, so no two hits can swap.
        const originals = Array.from({ length: 24 }, (_, i) =>
          makeMemory({
            content: `${"glacier ".repeat(1 + (i % 12))} survey ${i}`,
            confidence: (i % 5) / 5,
          }),
        );
        await store.upsertMany([...originals, ...filler(40)]);
        const horizon = await store.horizon();
        const walk = async (kind: "search" | "rank") => {
          const seen: string[] = [];
          let after: RankPosition | undefined;
          for (let page = 0; page < 20; page++) {
            const hits =
              kind === "search"
                ? (
                    await store.search({
                      text: "glacier",
                      syntax: "plain",
                      limit: 5,
                      after,
                      horizon,
                    })
                  ).map((h) => ({ id: h.memory.id, position: h.position }))
                : (
                    await store.rank({
                      text: "glacier",
                      scoring: SCORING,
                      limit: 5,
                      after,
                      horizon,
                    })
                  ).map((h) => ({ id: h.memory.id, position: h.position }));
            seen.push(...hits.map((h) => h.id));
            // Many new memories with the query word: document frequency and N change.
            await store.upsertMany(
              Array.from({ length: 15 }, () => makeMemory({ content: "glacier glacier newcomer" })),
            );
            const last = hits[hits.length - 1];
            if (!last || hits.length < 5) break;
            after = last.position;
          }
          return seen;
        };
        for (const kind of ["search", "rank"] as const) {
          const seen = await walk(kind);
          expect(seen.length, kind).toBe(originals.length);
          expect(new Set(seen).size, kind).toBe(originals.length);
        }
      });

      it("re-anchor on an earlier hit of the page when the last one is deleted", async () => {
        const hits = Array.from({ length: 6 }, (_, i) =>
          makeMemory({ content: `${"fjord ".repeat(i + 1)}`, confidence: 0.5 }),
        );
        await store.upsertMany([...hits, ...filler(10)]);
        const all = (await store.search({ text: "fjord", syntax: "plain", limit: 10 })).map(
          (h) => h.memory.id,
        );
        const first = await store.search({ text: "fjord", syntax: "plain", limit: 3 });
        const [a, b, anchor] = first;
        if (!a || !b || !anchor) throw new Error("short page");
        // Deleting a matching memory raises every other relevance (IDF grows).
        await store.delete(anchor.memory.id);
        const rest = await store.search({
          text: "fjord",
          syntax: "plain",
          limit: 10,
          after: { ...anchor.position, previous: [b.position.seq, a.position.seq] },
        });
        expect(rest.map((h) => h.memory.id)).toEqual(all.slice(3));
      });
    });

    describe("rank", () => {
      const rank = (q: Partial<RankQuery>) =>
        store.rank({ text: "", scoring: SCORING, limit: 50, ...q });

      it("scores in [0, 1], best first, and relevance decides among equals", async () => {
        const modified = new Date(SCORING.asOf).toISOString();
        const strong = makeMemory({ title: "Tide tables", content: "tide tide tide", modified });
        const weak = makeMemory({ content: "a long note that mentions the tide once", modified });
        await store.upsertMany([weak, strong, ...filler(20)]);
        const hits = await rank({ text: "tide" });
        expect(hits.map((h) => h.memory.id)).toEqual([strong.id, weak.id]);
        for (const h of hits) {
          expect(h.score).toBeGreaterThanOrEqual(0);
          expect(h.score).toBeLessThanOrEqual(1);
        }
      });

      it("uses confidence and recency: equal text, higher confidence and fresher first", async () => {
        const asOf = new Date(SCORING.asOf);
        const old = new Date(SCORING.asOf - 365 * 86_400_000).toISOString();
        const content = "orbital mechanics note";
        const sure = makeMemory({ content, confidence: 0.95, modified: asOf.toISOString() });
        const unsure = makeMemory({ content, confidence: 0.1, modified: asOf.toISOString() });
        const stale = makeMemory({ content, confidence: 0.95, modified: old });
        await store.upsertMany([unsure, stale, sure, ...filler(20)]);
        const hits = await rank({ text: "orbital" });
        expect(hits.map((h) => h.memory.id)).toEqual([sure.id, stale.id, unsure.id]);
        // The documented formula, recomputed from the returned relevance.
        const first = hits[0];
        if (!first) throw new Error("no hit");
        const r = first.relevance / (first.relevance + SCORING.relevanceHalf);
        expect(first.score).toBeCloseTo(0.7 * r + 0.2 * 0.95 + 0.1, 10);
      });

      it("ranks every filtered memory by confidence and recency when the text is empty", async () => {
        const a = makeMemory({ confidence: 0.2 });
        const b = makeMemory({ confidence: 0.9 });
        const c = makeMemory({
          confidence: null,
          namespace: "_episodic/x",
          memory_type: "episodic",
        });
        await store.upsertMany([a, b, c]);
        const hits = await rank({
          scoring: { ...SCORING, weights: { relevance: 0, confidence: 1, recency: 0 } },
        });
        expect(hits.map((h) => h.memory.id)).toEqual([b.id, c.id, a.id]);
        expect(hits.map((h) => h.score)).toEqual([0.9, 0.5, 0.2]);
        const filtered = await rank({ filter: { memory_type: "episodic" } });
        expect(filtered.map((h) => h.memory.id)).toEqual([c.id]);
      });

      it("continues strictly after a (score, seq) position, ties in insertion order", async () => {
        const many = Array.from({ length: 12 }, (_, i) =>
          makeMemory({
            content: "lighthouse keeper log",
            confidence: (i % 4) / 4,
            modified: "2025-06-01T00:00:00Z",
          }),
        );
        await store.upsertMany(many);
        const all = await rank({ text: "lighthouse" });
        const firstPage = await rank({ text: "lighthouse", limit: 5 });
        const last = firstPage[4];
        if (!last) throw new Error("short page");
        const rest = await rank({ text: "lighthouse", after: last.position });
        expect([...firstPage, ...rest].map((h) => h.memory.id)).toEqual(
          all.map((h) => h.memory.id),
        );
        // Equal confidence means equal score: insertion order decides.
        const ties = all.filter((h) => h.score === all[0]?.score).map((h) => h.memory.id);
        expect(ties).toEqual(many.filter((m) => m.provenance.confidence === 0.75).map((m) => m.id));
      });
    });

    describe("whole-set reads (rankAll, searchAll, listAll)", () => {
      /** The paged walk of `page` (limit 97), continuing after each page's last position. */
      async function walk<T extends { position: unknown }>(
        page: (after: T["position"] | undefined) => Promise<T[]>,
      ): Promise<T[]> {
        const out: T[] = [];
        let after: T["position"] | undefined;
        for (;;) {
          const hits = await page(after);
          out.push(...hits);
          const last = hits[hits.length - 1];
          if (!last || hits.length < 97) return out;
          after = last.position;
        }
      }

      /** 2,345 memories (more than any batch size), tied scores included, some filtered out. */
      async function corpus(): Promise<Memory[]> {
        const many = Array.from({ length: 2345 }, (_, i) =>
          makeMemory({
            title: i % 3 === 0 ? `Harbor pilot ${i}` : `Inland note ${i}`,
            content: i % 5 === 0 ? "harbor harbor pilot boats" : `routine entry ${i % 17}`,
            confidence: (i % 4) / 4,
            modified: new Date(Date.UTC(2025, 5, 1) - (i % 9) * 86_400_000).toISOString(),
            created: new Date(Date.UTC(2025, 0, 1) + (i % 50) * 60_000).toISOString(),
            namespace: i % 7 === 0 ? "_episodic/log" : "_semantic/general",
            memory_type: i % 7 === 0 ? "episodic" : "semantic",
            status: i % 11 === 0 ? "archived" : "active",
          }),
        );
        await store.upsertMany(many);
        return many;
      }

      it("rankAll yields every hit of rank, in rank's order, with its scores", async () => {
        await corpus();
        for (const q of [
          { text: "harbor pilot" },
          { text: "", filter: { namespace: "_semantic" } },
        ]) {
          const paged = await walk<RankedHit>((after) =>
            store.rank({ ...q, scoring: SCORING, limit: 97, after }),
          );
          const all = await collect(store.rankAll({ ...q, scoring: SCORING }));
          expect(all.length).toBeGreaterThan(300);
          expect(all.map((h) => h.memory.id)).toEqual(paged.map((h) => h.memory.id));
          expect(all.map((h) => h.score)).toEqual(paged.map((h) => h.score));
          expect(all[0]?.memory).toEqual(paged[0]?.memory);
        }
      });

      it("searchAll yields every hit of search, in search's order", async () => {
        await corpus();
        const q = { text: "harbor", syntax: "plain" as const, filter: { status: "any" as const } };
        const paged = await walk<TextHit>((after) => store.search({ ...q, limit: 97, after }));
        const all = await collect(store.searchAll(q));
        expect(all.length).toBe(paged.length);
        expect(all.map((h) => h.memory.id)).toEqual(paged.map((h) => h.memory.id));
        expect(all.map((h) => h.relevance)).toEqual(paged.map((h) => h.relevance));
      });

      it("listAll yields every memory of list, in each sort order, ties by insertion", async () => {
        const many = await corpus();
        for (const [sort, order] of [
          ["created", "desc"],
          ["title", "asc"],
          ["modified", "asc"],
        ] as const) {
          const filter = { memory_type: "semantic" as const };
          const paged = await walk<ListedMemory>((after) =>
            store.list({ filter, sort, order, limit: 97, after }),
          );
          const all = await collect(store.listAll({ filter, sort, order }));
          expect(all.map((r) => r.memory.id)).toEqual(paged.map((r) => r.memory.id));
        }
        const everything = await collect(
          store.listAll({ filter: { status: "any" }, sort: "created", order: "asc" }),
        );
        expect(everything).toHaveLength(many.length);
      });

      /** What a light read must hold for `memory`: exactly the light fields, in light-record order. */
      function lightOf(memory: Memory): Record<string, unknown> {
        const { id, title, namespace, memory_type, tags, created, modified, status } = memory;
        return { id, title, namespace, memory_type, tags, created, modified, status };
      }

      function expectLight(got: readonly object[], want: readonly Memory[]): void {
        expect(got.map((m) => Object.keys(m))).toEqual(want.map((m) => Object.keys(lightOf(m))));
        expect(got).toEqual(want.map(lightOf));
      }

      it('fields "light" yields the same hits, order and scores, each memory only its light fields', async () => {
        await corpus();
        const rich = richMemory();
        await store.insert(rich);
        const q = { text: "harbor pilot", scoring: SCORING, filter: { status: "any" as const } };
        const full = await collect(store.rankAll(q));
        const light = await collect(store.rankAll({ ...q, fields: "light" }));
        expect(light.map((h) => [h.score, h.relevance, h.position])).toEqual(
          full.map((h) => [h.score, h.relevance, h.position]),
        );
        expectLight(
          light.map((h) => h.memory),
          full.map((h) => h.memory),
        );

        const s = { text: "harbor", syntax: "plain" as const };
        const fullHits = await collect(store.searchAll(s));
        const lightHits = await collect(store.searchAll({ ...s, fields: "light" }));
        expect(lightHits.map((h) => [h.relevance, h.position])).toEqual(
          fullHits.map((h) => [h.relevance, h.position]),
        );
        expectLight(
          lightHits.map((h) => h.memory),
          fullHits.map((h) => h.memory),
        );

        for (const sort of ["created", "title"] as const) {
          const l = { filter: { status: "any" as const }, sort, order: "desc" as const };
          const fullRows = await collect(store.listAll({ ...l, fields: "full" }));
          const lightRows = await collect(store.listAll({ ...l, fields: "light" }));
          expect(lightRows.map((r) => r.position)).toEqual(fullRows.map((r) => r.position));
          expectLight(
            lightRows.map((r) => r.memory),
            fullRows.map((r) => r.memory),
          );
        }
        // The rich memory's tags and identity survive a light read; nothing else is read.
        const [hit] = await collect(
          store.listAll({
            filter: { tags: rich.tags },
            sort: "created",
            order: "asc",
            fields: "light",
          }),
        );
        expect(hit?.memory).toEqual(lightOf(rich));
        expect(hit?.memory).not.toHaveProperty("content");
      });

      it('fields "light" answers a query without words like a full read: no hits', async () => {
        await store.upsertMany(filler(10));
        const light = { fields: "light" as const };
        expect(await collect(store.searchAll({ text: "!!!", syntax: "plain", ...light }))).toEqual(
          [],
        );
        expect(await collect(store.rankAll({ text: "...", scoring: SCORING, ...light }))).toEqual(
          [],
        );
      });

      it("an empty match is an empty stream, and so is a query without words", async () => {
        await store.upsertMany(filler(10));
        expect(await collect(store.rankAll({ text: "zzyzx", scoring: SCORING }))).toEqual([]);
        expect(
          await collect(
            store.listAll({ filter: { tags: ["none"] }, sort: "created", order: "desc" }),
          ),
        ).toEqual([]);
        expect(await collect(store.searchAll({ text: "!!!", syntax: "plain" }))).toEqual([]);
        expect(await collect(store.rankAll({ text: "...", scoring: SCORING }))).toEqual([]);
      });
    });

    describe("horizon", () => {
      it("grows with inserts but not with updates", async () => {
        const start = await store.horizon();
        const m = makeMemory();
        await store.insert(m);
        const afterInsert = await store.horizon();
        expect(afterInsert).toBeGreaterThan(start);
        await store.update({ ...m, title: "changed" });
        expect(await store.horizon()).toBe(afterInsert);
        const fresh = makeMemory();
        await store.insert(fresh);
        const hits = await store.rank({
          text: "",
          scoring: SCORING,
          limit: 10,
          horizon: afterInsert,
        });
        expect(hits.map((h) => h.memory.id)).toEqual([m.id]);
      });
    });
  });
}
