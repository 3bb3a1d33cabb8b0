import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isStoreError } from "../../src/store/errors.js";
import { plainTokens } from "../../src/store/plain-words.js";
import { NARROW_FILTER_ROWS } from "../../src/store/sqlite/list-plan.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { plainToFts } from "../../src/store/sqlite/text-query.js";
import type { ListPosition, ListSort } from "../../src/store/store.js";
import { makeMemory } from "./fixtures.js";

describe("SQLite store on disk", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "atlatl-store-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates private directories and a private file, in WAL mode with migrations recorded", async () => {
    const path = join(dir, "nested", "deeper", "memories.db");
    const store = await openSqliteStore({ path });
    await store.insert(makeMemory());
    expect(statSync(join(dir, "nested")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "nested", "deeper")).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    await store.close();

    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all();
    expect(versions).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
    db.close();
  });

  it("keeps committed memories across reopen and does not re-run migrations", async () => {
    const path = join(dir, "memories.db");
    const first = await openSqliteStore({ path });
    const memories = [makeMemory({ content: "persisted walrus" }), makeMemory()];
    await first.upsertMany(memories);
    await first.close();
    const second = await openSqliteStore({ path });
    expect(await second.count()).toBe(2);
    expect(await second.get(memories[0]?.id ?? "")).toEqual(memories[0]);
    const hits = await second.search({ text: "walrus", syntax: "plain", limit: 5 });
    expect(hits).toHaveLength(1);
    await second.close();
  });

  it("refuses a database from a newer schema", async () => {
    const path = join(dir, "memories.db");
    await (await openSqliteStore({ path })).close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
      999,
      "future",
      new Date().toISOString(),
    );
    db.close();
    const err = await openSqliteStore({ path }).catch((e: unknown) => e);
    expect(isStoreError(err, "SCHEMA_TOO_NEW")).toBe(true);
  });

  it("reports an unusable path as OPEN_FAILED", async () => {
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "not a directory");
    const err = await openSqliteStore({ path: join(blocker, "memories.db") }).catch(
      (e: unknown) => e,
    );
    expect(isStoreError(err, "OPEN_FAILED")).toBe(true);
    expect((err as Error).message).toContain(blocker);
  });

  it("moves its write epoch on every commit from any connection, and only then", async () => {
    const path = join(dir, "epoch.db");
    const a = await openSqliteStore({ path });
    const b = await openSqliteStore({ path });
    const start = a.writeEpoch();
    await a.list({ sort: "created", order: "desc", limit: 5 });
    expect(a.writeEpoch()).toBe(start);
    await b.insert(makeMemory());
    const afterOther = a.writeEpoch();
    expect(afterOther).not.toBe(start);
    expect(a.writeEpoch()).toBe(afterOther);
    await a.insert(makeMemory());
    const afterOwn = a.writeEpoch();
    expect(afterOwn).not.toBe(afterOther);
    // Any SQLite writer, not only an atlatl store.
    const plain = new Database(path);
    plain.prepare("UPDATE memories SET title = 'changed' WHERE seq = 1").run();
    plain.close();
    expect(a.writeEpoch()).not.toBe(afterOwn);
    await b.close();
    await a.close();

    const memory = await openSqliteStore({ path: ":memory:" });
    const before = memory.writeEpoch();
    await memory.insert(makeMemory());
    expect(memory.writeEpoch()).not.toBe(before);
    await memory.close();
  });

  it("fails with CLOSED after close", async () => {
    const store = await openSqliteStore({ path: ":memory:" });
    await store.close();
    const err = await store.count().catch((e: unknown) => e);
    expect(isStoreError(err, "CLOSED")).toBe(true);
  });
});

describe("SQLite list access paths", () => {
  it("lists broad and narrow namespace and tag filters in order, whichever index it walks", async () => {
    const store = await openSqliteStore({ path: ":memory:" });
    const broad = Array.from({ length: NARROW_FILTER_ROWS + 300 }, (_, i) =>
      makeMemory({
        namespace: i % 2 ? "_semantic/a" : "_semantic/b",
        tags: i % 3 ? ["common"] : ["common", "third"],
        created: new Date(Date.UTC(2025, 0, 1) + ((i * 7919) % 5000) * 1000).toISOString(),
      }),
    );
    const narrow = Array.from({ length: 25 }, (_, i) =>
      makeMemory({
        namespace: "_episodic/rare",
        tags: ["rare"],
        created: new Date(Date.UTC(2025, 0, 1) + ((i * 104729) % 5000) * 1000).toISOString(),
      }),
    );
    await store.upsertMany([...broad, ...narrow]);
    const walk = async (filter: object, sort: ListSort, order: "asc" | "desc") => {
      const ids: string[] = [];
      let after: ListPosition | undefined;
      for (;;) {
        const page = await store.list({ filter, sort, order, limit: 400, after });
        ids.push(...page.map((r) => r.memory.id));
        const last = page[page.length - 1];
        if (!last || page.length < 400) return ids;
        after = last.position;
      }
    };
    const expected = (ms: typeof broad, order: "asc" | "desc") => {
      const sorted = [...ms].sort((a, b) => Date.parse(a.created) - Date.parse(b.created) || 0);
      // Ties keep insertion order (a stable sort of the inserted array).
      const ids = sorted.map((m) => m.id);
      return order === "asc" ? ids : reverseTies(sorted).map((m) => m.id);
    };
    for (const order of ["asc", "desc"] as const) {
      expect(await walk({ namespace: "_semantic" }, "created", order)).toEqual(
        expected(broad, order),
      );
      expect(await walk({ tags: ["common"] }, "created", order)).toEqual(expected(broad, order));
      expect(await walk({ namespace: "_episodic" }, "created", order)).toEqual(
        expected(narrow, order),
      );
      expect(await walk({ tags: ["rare"] }, "created", order)).toEqual(expected(narrow, order));
    }
    const third = await walk({ namespace: "_semantic/a", tags: ["third"] }, "title", "asc");
    expect(third.sort()).toEqual(
      broad
        .filter((m) => m.namespace === "_semantic/a" && m.tags.includes("third"))
        .map((m) => m.id)
        .sort(),
    );
    await store.close();
  });
});

/** Descending by created with ties in reverse insertion order: `sorted` reversed. */
function reverseTies<T>(sorted: T[]): T[] {
  return [...sorted].reverse();
}

describe("plain query building", () => {
  it("quotes every word, ORs them and makes the last a prefix", () => {
    expect(plainToFts("Database migra")).toBe('"database" OR "migra"*');
    expect(plainToFts("NOT this: that")).toBe('"not" OR "this" OR "that"*');
  });

  it("uses no prefix after a trailing separator or for very short words", () => {
    expect(plainToFts("cache ")).toBe('"cache"');
    expect(plainToFts("go ox")).toBe('"go" OR "ox"');
  });

  it("leaves stopwords out unless the text has nothing else", () => {
    expect(plainToFts("which note mentions the zephyrine valve?")).toBe(
      '"note" OR "mentions" OR "zephyrine" OR "valve"',
    );
    expect(plainToFts("to be or not to be")).toBe('"to" OR "be" OR "or" OR "not"');
  });

  it("de-duplicates, keeps Unicode words and yields nothing for punctuation", () => {
    expect(plainTokens("Café café CAFÉ naïve 東京")).toEqual(["café", "naïve", "東京"]);
    expect(plainToFts('"()*:-')).toBeUndefined();
  });
});

describe("SQLite schema checks", () => {
  it("refuses a database whose tables do not match its recorded version", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atlatl-shape-"));
    try {
      const path = join(dir, "m.db");
      await (await openSqliteStore({ path })).close();
      const db = new Database(path);
      db.exec("DROP TABLE store_meta");
      db.close();
      const err = await openSqliteStore({ path }).catch((e: unknown) => e);
      expect(isStoreError(err, "SCHEMA_INCOMPATIBLE")).toBe(true);
      expect((err as Error).message).toMatch(/store_meta/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
