/**
 * PostgreSQL specifics beyond the contract: migrations under concurrent
 * starts, refusing a newer schema, connection failures, and instances sharing
 * one database. Needs `ATLATL_TEST_PG_URL` (required on CI).
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { isStoreError } from "../../src/store/errors.js";
import { LATEST_VERSION, MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { openPostgresStore } from "../../src/store/postgres/open-postgres.js";
import { WRITE_COLUMNS, writeValues } from "../../src/store/postgres/rows.js";
import type { ListPosition } from "../../src/store/store.js";
import { BACKENDS, dropSchema, freshSchema, pgUrl } from "../backends/backends.js";
import { makeMemory } from "./fixtures.js";

const enabled = BACKENDS.some((b) => b.name === "postgres");

async function sql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!enabled)("PostgreSQL store", () => {
  const schemas: string[] = [];
  const schema = () => {
    const s = freshSchema();
    schemas.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of schemas.splice(0)) await dropSchema(s);
  });

  it("migrates once when several instances start at the same time", async () => {
    const s = schema();
    const stores = await Promise.all(
      Array.from({ length: 6 }, () =>
        openPostgresStore({ url: pgUrl(), schema: s, maxConnections: 2 }),
      ),
    );
    try {
      const rows = await sql<{ version: number }>(
        `SELECT version FROM ${s}.schema_migrations ORDER BY version`,
      );
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      await stores[0]?.insert(makeMemory({ content: "visible everywhere" }));
      for (const store of stores) expect(await store.count()).toBe(1);
    } finally {
      for (const store of stores) await store.close();
    }
  });

  it("refuses a database whose schema is newer than the code", async () => {
    const s = schema();
    await (await openPostgresStore({ url: pgUrl(), schema: s })).close();
    await sql(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, 'future')`, [
      LATEST_VERSION + 1,
    ]);
    const err = await openPostgresStore({ url: pgUrl(), schema: s }).catch((e: unknown) => e);
    expect(isStoreError(err, "SCHEMA_TOO_NEW")).toBe(true);
    expect((err as Error).message).toMatch(/upgrade atlatl/);
  });

  it("afterBulkWrite merges the GIN pending lists text queries would scan, keeping every hit", async () => {
    const s = schema();
    const store = await openPostgresStore({ url: pgUrl(), schema: s });
    try {
      const memories = Array.from({ length: 300 }, (_, i) =>
        makeMemory({ title: `pending ${i}`, content: `kafka lag ${i}`, tags: [`t${i % 7}`] }),
      );
      await store.upsertMany(memories);
      const pending = () =>
        sql<{ fts: number; tags: number }>(
          `SELECT gin_clean_pending_list('${s}.memories_fts'::regclass)::int AS fts, gin_clean_pending_list('${s}.memories_tags'::regclass)::int AS tags`,
        );
      // Writes leave pending entries (this call merges them); write again for afterBulkWrite.
      expect((await pending())[0]?.fts).toBeGreaterThan(0);
      await store.upsertMany(memories.map((m) => ({ ...m, content: `${m.content} again` })));
      await store.afterBulkWrite();
      expect(await pending()).toEqual([{ fts: 0, tags: 0 }]);
      const hits = await store.search({ text: "again", syntax: "plain", limit: 1000 });
      expect(hits).toHaveLength(300);
    } finally {
      await store.close();
    }
  });

  it("migrates a version 1 database with memories to the latest schema, keeping them and their order", async () => {
    const s = schema();
    const v1 = MIGRATIONS[0] as (typeof MIGRATIONS)[number];
    await sql(`CREATE SCHEMA ${s}`);
    await sql(
      `SET search_path = ${s}; ${v1.sql}; CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now()); INSERT INTO schema_migrations (version, name) VALUES (1, 'initial schema')`,
    );
    const old = [
      makeMemory({ title: "Kafka consumer lag", content: "first" }),
      makeMemory({ title: "Redis eviction", content: "second", confidence: 0.9 }),
      makeMemory({ title: "Deleted before the upgrade", content: "third" }),
    ];
    for (const m of old) {
      const values = writeValues(m);
      await sql(
        `INSERT INTO ${s}.memories (${WRITE_COLUMNS.join(", ")}) VALUES (${values.map((_, i) => `$${i + 1}`).join(", ")})`,
        values,
      );
    }
    await sql(`DELETE FROM ${s}.memories WHERE id = $1`, [old[2]?.id]);
    const store = await openPostgresStore({ url: pgUrl(), schema: s });
    try {
      const versions = await sql<{ version: number }>(
        `SELECT version FROM ${s}.schema_migrations ORDER BY version`,
      );
      expect(versions.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await store.getMany([old[0]?.id ?? "", old[1]?.id ?? ""])).toEqual(old.slice(0, 2));
      const hits = await store.search({ text: "kafka", syntax: "plain", limit: 10 });
      expect(hits.map((h) => h.memory.id)).toEqual([old[0]?.id]);
      // The identity continues after V1's: the deleted memory's number is not handed out again.
      const before = await store.horizon();
      expect(before).toBe(2);
      const fresh = makeMemory({ title: "After the upgrade" });
      await store.insert(fresh);
      expect(await store.horizon()).toBe(4);
      const dup = await store.insert(fresh).catch((e: unknown) => e);
      expect(isStoreError(dup, "DUPLICATE_ID")).toBe(true);
      const listed = await store.list({ sort: "created", order: "asc", limit: 10 });
      expect(listed.map((l) => l.memory.id)).toEqual([old[0]?.id, old[1]?.id, fresh.id]);
    } finally {
      await store.close();
    }
  });

  it("reports an unreachable server as OPEN_FAILED without the password", async () => {
    const err = await openPostgresStore({
      url: "postgres://atlatl:hunter2@127.0.0.1:1/nowhere",
    }).catch((e: unknown) => e);
    expect(isStoreError(err, "OPEN_FAILED")).toBe(true);
    expect((err as Error).message).not.toContain("hunter2");
  });

  it("fails with CLOSED after close", async () => {
    const store = await openPostgresStore({ url: pgUrl(), schema: schema() });
    await store.close();
    const err = await store.count().catch((e: unknown) => e);
    expect(isStoreError(err, "CLOSED")).toBe(true);
  });

  it("continues a list cursor of one instance on another while both write", async () => {
    const s = schema();
    const [a, b] = await Promise.all([
      openPostgresStore({ url: pgUrl(), schema: s }),
      openPostgresStore({ url: pgUrl(), schema: s }),
    ]);
    if (!a || !b) throw new Error("setup");
    try {
      const originals = Array.from({ length: 95 }, (_, i) =>
        makeMemory({ title: `Walk ${String(i % 30).padStart(2, "0")}` }),
      );
      await a.upsertMany(originals);
      const seen: string[] = [];
      let after: ListPosition | undefined;
      for (let turn = 0; ; turn++) {
        const store = turn % 2 ? b : a;
        const page = await store.list({ sort: "title", order: "asc", limit: 10, after });
        seen.push(...page.map((r) => r.memory.id));
        // The other instance inserts memories sorting before the walk's position.
        await (turn % 2 ? a : b).insert(makeMemory({ title: "Aardvark early" }));
        const last = page[page.length - 1];
        if (!last || page.length < 10) break;
        after = last.position;
      }
      expect(seen).toHaveLength(originals.length);
      expect(new Set(seen)).toEqual(new Set(originals.map((m) => m.id)));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
