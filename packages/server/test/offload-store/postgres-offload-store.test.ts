/**
 * The offload store contract on PostgreSQL (the shared suite of
 * `@atlatl/lro`), each test in a schema of its own, plus what only a database
 * can do: a connection killed mid-publish. Declared when `ATLATL_TEST_PG_URL`
 * is set or CI requires it: on CI without the URL these tests fail.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openOffloadFile } from "@atlatl/lro/node";
import pg from "pg";
import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import { offloadStoreContract } from "../../../lro/test/offload-store/offload-store.contract.js";
import { createOffloadStore } from "../../src/offload-store/create-offload-store.js";
import { dropSchema, freshSchema, instancePool, PG_ENABLED, pgUrl } from "../backends/backends.js";

/** The store on a fresh schema, on a pool of its own (as each instance has). */
async function openOn(schema: string, quotaBytes: number, applicationName?: string) {
  const { pool, closing } = await instancePool(schema, applicationName ? { applicationName } : {});
  return closing(await createOffloadStore({ backend: "postgres", quotaBytes }, { pool }));
}

describe.runIf(PG_ENABLED)("postgres offload store", () => {
  offloadStoreContract({
    name: "postgres",
    shared: true,
    quota: true,
    async open(options) {
      const schema = freshSchema();
      const quota = options.quotaBytes ?? 1 << 30;
      return {
        store: await openOn(schema, quota),
        again: () => openOn(schema, quota),
        cleanup: () => dropSchema(schema),
      };
    },
  });
});

describe.runIf(PG_ENABLED)("postgres offload store, what only a database can show", () => {
  it("postgres: a connection killed mid-publish keeps nothing, and the store keeps serving", async () => {
    const schema = freshSchema();
    const app = `atlatl-test-${schema}`;
    const store = await openOn(schema, 1 << 30, app);
    const other = await openOn(schema, 1 << 30);
    const admin = new pg.Client({ connectionString: pgUrl() });
    await admin.connect();
    try {
      const name = "atlatl-recall-01KB0000000000000000000000.jsonl";
      let killed!: () => void;
      const afterKill = new Promise<void>((r) => {
        killed = r;
      });
      async function* chunks() {
        yield Buffer.alloc(2 << 20, 0x62);
        // The first chunk rows are written inside the open transaction: kill its backend now.
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
          [app],
        );
        killed();
        yield Buffer.alloc(2 << 20, 0x63);
      }
      await expect(
        store.publish({
          principal: "alice",
          name,
          size: 4 << 20,
          createdAt: Date.now(),
          expiresAt: Date.now() + 60_000,
          chunks: chunks(),
        }),
      ).rejects.toMatchObject({ code: "OFFLOAD_STORE_FAILED" });
      await afterKill;
      expect(await other.fetch({ principal: "alice", name })).toBeUndefined();
      const rows = await other.sweep(Date.now() + 3_600_000);
      expect(rows).toEqual([]);
      // The killed instance's pool reconnects: its next publish commits.
      await store.publish({
        principal: "alice",
        name,
        size: 3,
        createdAt: Date.now(),
        expiresAt: Date.now() + 60_000,
        chunks: [Buffer.from("ok\n")],
      });
      const found = await other.fetch({ principal: "alice", name });
      const parts: Uint8Array[] = [];
      for await (const chunk of found?.chunks ?? []) parts.push(chunk);
      expect(Buffer.concat(parts).toString()).toBe("ok\n");
    } finally {
      await admin.end();
      await store.close();
      await other.close();
      await dropSchema(schema);
    }
  });

  it("postgres: publishes of one principal racing on two instances cannot both slip under the quota", async () => {
    const schema = freshSchema();
    const quota = 3 << 20;
    const stores = [await openOn(schema, quota), await openOn(schema, quota)];
    try {
      const publish = (i: number) =>
        (stores[i % 2] as (typeof stores)[number]).publish({
          principal: "alice",
          name: `atlatl-recall-01KB00000000000000000000${String(i).padStart(2, "0")}.jsonl`,
          size: 2 << 20,
          createdAt: Date.now(),
          expiresAt: Date.now() + 60_000,
          chunks: [Buffer.alloc(2 << 20, 0x61 + i)],
        });
      const outcomes = await Promise.allSettled([0, 1, 2, 3].map(publish));
      const kept = outcomes.filter((o) => o.status === "fulfilled");
      const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason] : []));
      expect(kept).toHaveLength(1);
      expect(refused).toHaveLength(3);
      for (const err of refused) expect(err).toMatchObject({ code: "OFFLOAD_QUOTA_EXCEEDED" });
    } finally {
      for (const s of stores) await s.close();
      await dropSchema(schema);
    }
  });

  it("postgres: a file exactly filling the principal's quota is kept; one byte more is refused", async () => {
    const schema = freshSchema();
    const quota = 1000;
    const store = await openOn(schema, quota);
    try {
      const publish = (name: string, size: number) =>
        store.publish({
          principal: "alice",
          name,
          size,
          createdAt: Date.now(),
          expiresAt: Date.now() + 60_000,
          chunks: [Buffer.alloc(size, 0x61)],
        });
      const first = "atlatl-recall-01KB0000000000000000000081.jsonl";
      await publish(first, 600);
      // 600 + 400 = the quota exactly: accepted.
      await publish("atlatl-recall-01KB0000000000000000000082.jsonl", 400);
      await expect(
        publish("atlatl-recall-01KB0000000000000000000083.jsonl", 1),
      ).rejects.toMatchObject({ code: "OFFLOAD_QUOTA_EXCEEDED" });
      // Alone, a file of exactly the quota is accepted too.
      await store.remove({ principal: "alice", name: first });
      await store.remove({
        principal: "alice",
        name: "atlatl-recall-01KB0000000000000000000082.jsonl",
      });
      await publish("atlatl-recall-01KB0000000000000000000084.jsonl", quota);
      expect((await store.list("alice", Date.now())).map((f) => f.size)).toEqual([quota]);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });

  it("postgres: a chunk whose bytes changed in the table (same size) fails its checksum; the reader keeps no copy", async () => {
    const schema = freshSchema();
    const writer = await openOn(schema, 1 << 30);
    const reader = await openOn(schema, 1 << 30);
    const admin = new pg.Client({ connectionString: pgUrl() });
    await admin.connect();
    const dir = mkdtempSync(join(tmpdir(), "atlatl-pg-sha-"));
    try {
      // A live name: the reader refuses an expired one before fetching.
      const name = `atlatl-recall-${ulid()}.jsonl`;
      const bytes = Buffer.from(`${'{"type":"lro_header"}'}\n${'{"id":"a"}'}\n`);
      await writer.publish({
        principal: "alice",
        name,
        size: bytes.length,
        createdAt: Date.now(),
        expiresAt: Date.now() + 60_000,
        chunks: [bytes],
      });
      // One byte flipped, the length kept: only the SHA-256 can tell.
      await admin.query(
        `UPDATE ${schema}.offload_chunks SET data = overlay(data placing '\\x7a'::bytea from 3 for 1) WHERE name = $1`,
        [name],
      );
      const found = await reader.fetch({ principal: "alice", name });
      expect(found?.size).toBe(bytes.length);
      const read = async () => {
        for await (const _ of found?.chunks ?? []);
      };
      await expect(read()).rejects.toMatchObject({ code: "OFFLOAD_STORE_FAILED" });
      // Through the engine's fetch: an error, and nothing of the file in the reader's directory.
      await expect(
        openOffloadFile(name, {
          outputDir: dir,
          ttlSeconds: 60,
          store: { store: reader, principal: "alice" },
        }),
      ).rejects.toMatchObject({ code: "OFFLOAD_STORE_FAILED" });
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await admin.end();
      await writer.close();
      await reader.close();
      rmSync(dir, { recursive: true, force: true });
      await dropSchema(schema);
    }
  });

  it("postgres: a file swept while being read chunk by chunk is an error, never a short file", async () => {
    const schema = freshSchema();
    const store = await openOn(schema, 1 << 30);
    try {
      const name = "atlatl-recall-01KB0000000000000000000077.jsonl";
      const size = (3 << 20) + 5;
      await store.publish({
        principal: "alice",
        name,
        size,
        createdAt: Date.now(),
        expiresAt: Date.now() + 60_000,
        chunks: [Buffer.alloc(size, 0x7a)],
      });
      const found = await store.fetch({ principal: "alice", name });
      expect(found?.size).toBe(size);
      const read = async () => {
        let first = true;
        for await (const _ of found?.chunks ?? []) {
          if (first) await store.remove({ principal: "alice", name });
          first = false;
        }
      };
      await expect(read()).rejects.toMatchObject({ code: "OFFLOAD_STORE_FAILED" });
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });
});
