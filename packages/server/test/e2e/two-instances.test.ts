/**
 * Two `atlatl serve` processes on one PostgreSQL database, driven by the SDK's
 * real Client: concurrent captures and updates through both lose nothing, and a
 * cursor issued by one instance continues on the other. Needs PostgreSQL
 * (`ATLATL_TEST_PG_URL`; required on CI).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS } from "../backends/backends.js";
import { call, jsonOf, type RunningServer, startServer } from "./spawn-server.js";

const postgres = BACKENDS.find((b) => b.name === "postgres");
const MEMORIES = 600;

interface Page {
  records: {
    id: string;
    title: string;
    content?: string;
    provenance?: { confidence: number | null };
  }[];
  next_cursor?: string | null;
}

describe.skipIf(!postgres)("two atlatl serve instances on one PostgreSQL database", () => {
  let a: RunningServer;
  let b: RunningServer;
  const ids: string[] = [];

  beforeAll(async () => {
    if (!postgres) throw new Error("unreachable: postgres backend missing");
    a = await startServer({ backend: postgres, args: ["--no-offload"] });
    b = await startServer({ storeArgs: a.storeArgs, args: ["--no-offload"] });
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("keeps every capture and every concurrent update (2,000 calls through both)", async () => {
    // 600 captures, alternating instances, all in flight at once.
    const captured = await Promise.all(
      Array.from({ length: MEMORIES }, async (_, i) => {
        const result = await call(i % 2 ? b.client : a.client, "capture_memory", {
          content: `Shared ledger entry ${i}.`,
          title: `entry ${i}`,
          tags: ["shared"],
        });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        return jsonOf<{ id: string }>(result).id;
      }),
    );
    ids.push(...captured);
    // 1,400 updates at once: for each memory, A rewrites the title while B
    // rewrites the content (each a read-modify-write of the whole memory); for
    // the first 200, a third call sets the confidence.
    const updates = captured.flatMap((id, i) => {
      const calls = [
        call(a.client, "update_memory", { id, title: `entry ${i} (title by A)` }),
        call(b.client, "update_memory", { id, content: `Shared ledger entry ${i}, content by B.` }),
      ];
      if (i < 200)
        calls.push(call(i % 2 ? a.client : b.client, "update_memory", { id, confidence: 0.9 }));
      return calls;
    });
    expect(updates.length + captured.length).toBe(2000);
    const results = await Promise.all(updates);
    for (const r of results) expect(r.isError, JSON.stringify(r.content)).toBeFalsy();

    for (const [server, name] of [
      [a, "A"],
      [b, "B"],
    ] as const) {
      const seen = new Map<string, Page["records"][number]>();
      let cursor: string | undefined;
      do {
        const page = jsonOf<Page>(
          await call(server.client, "list_memories", {
            limit: 500,
            detail: "full",
            ...(cursor ? { cursor } : {}),
          }),
        );
        for (const r of page.records) {
          expect(seen.has(r.id), `${name}: ${r.id} twice`).toBe(false);
          seen.set(r.id, r);
        }
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(seen.size, name).toBe(MEMORIES);
      captured.forEach((id, i) => {
        const record = seen.get(id);
        expect(record?.title, name).toBe(`entry ${i} (title by A)`);
        expect(record?.content, name).toBe(`Shared ledger entry ${i}, content by B.`);
        if (i < 200) expect(record?.provenance?.confidence, name).toBe(0.9);
      });
    }
  }, 120_000);

  it("continues a list walk started on A with the cursor on B, visiting every memory once", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let turn = 0;
    do {
      const server = turn++ % 2 ? b : a;
      const page = jsonOf<Page>(
        await call(server.client, "list_memories", {
          limit: 64,
          sort: "title",
          order: "asc",
          ...(cursor ? { cursor } : {}),
        }),
      );
      seen.push(...page.records.map((r) => r.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(turn).toBeGreaterThan(2);
    expect(seen).toHaveLength(ids.length);
    expect(new Set(seen)).toEqual(new Set(ids));
  });

  it("continues a recall walk across instances while the other instance writes", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let turn = 0;
    do {
      const server = turn % 2 ? b : a;
      const other = turn % 2 ? a : b;
      turn++;
      const page = jsonOf<Page>(
        await call(server.client, "recall_memories", {
          query: "ledger content",
          limit: 100,
          ...(cursor ? { cursor } : {}),
        }),
      );
      seen.push(...page.records.map((r) => r.id));
      cursor = page.next_cursor ?? undefined;
      // The other instance writes between pages: new hits stay out (horizon), old ones stay put.
      await call(other.client, "capture_memory", { content: "A late ledger content note." });
    } while (cursor);
    expect(seen).toHaveLength(ids.length);
    expect(new Set(seen)).toEqual(new Set(ids));
  });
});
