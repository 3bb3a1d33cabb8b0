/**
 * Batch capture end to end, on both backends: `capture_memories` over the
 * SDK's real Client (stdio) and `POST /v1/memories/batch` over REST store
 * many memories in one call, all or nothing, within `BATCH_LIMITS`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATCH_LIMITS } from "../../src/model/limits.js";
import { BACKENDS, type StoreTarget } from "../backends/backends.js";
import { call, jsonOf, type RunningServer, startServer } from "../e2e/spawn-server.js";
import { raw } from "../http/raw-request.js";
import { type HttpServer, startHttpServer } from "../http/spawn-http.js";

const TOKEN = "batch-token";
const auth = { authorization: `Bearer ${TOKEN}` };

function items(count: number, word: string): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    content: `${word} note ${i}: the heron counted ${i} fish.`,
    namespace: "_episodic/batch",
    tags: ["batch", `n${i % 3}`],
    ...(i % 2 ? { confidence: 0.5, title: `${word} ${i}` } : {}),
  }));
}

type ToolError = { error?: { code?: string; field?: string; message?: string } };

describe.each(BACKENDS)("batch capture ($name)", (backend) => {
  describe("capture_memories over the SDK Client (stdio)", () => {
    let s: RunningServer;
    beforeAll(async () => {
      s = await startServer({ backend });
    }, 60_000);
    afterAll(async () => {
      await s?.close();
    });

    /** Memories matching `query`: the inline count, or the offloaded set's `summary.count`. */
    const count = async (query: string) => {
      const body = jsonOf<{ count?: number; summary?: { count: number } }>(
        await call(s.client, "recall_memories", { query, limit: 1000, detail: "light" }),
      );
      return body.summary?.count ?? body.count;
    };

    it("stores every item in one call, in order, with capture_memory's defaults", async () => {
      const result = await call(s.client, "capture_memories", {
        memories: [...items(250, "egret"), { content: "# Plain heading\nbody" }],
      });
      expect(result.isError).toBeFalsy();
      const body = jsonOf<{ count: number; ids: string[] }>(result);
      expect(body.count).toBe(251);
      expect(new Set(body.ids).size).toBe(251);
      expect(await count("egret")).toBe(250);
      const first = jsonOf<{ title: string; namespace: string; tags: string[] }>(
        await call(s.client, "get_memory", { id: body.ids[0] }),
      );
      expect(first).toMatchObject({ namespace: "_episodic/batch", tags: ["batch", "n0"] });
      expect(first.title).toBe("egret note 0: the heron counted 0 fish.");
      const last = jsonOf<{ title: string; namespace: string; memory_type: string }>(
        await call(s.client, "get_memory", { id: body.ids[250] }),
      );
      expect(last).toMatchObject({
        title: "Plain heading",
        namespace: "_semantic/general",
        memory_type: "semantic",
      });
    });

    it("refuses the whole batch for one invalid item, naming its index, and stores nothing", async () => {
      const batch = items(5, "bittern");
      batch[3] = { content: "   " };
      const result = await call(s.client, "capture_memories", { memories: batch });
      expect(result.isError).toBe(true);
      const { error } = result.structuredContent as ToolError;
      expect(error?.code).toBe("INVALID_ARGUMENT");
      expect(error?.field).toBe("memories[3].content");
      expect(error?.message).toMatch(/memories\[3\]/);
      expect(await count("bittern")).toBe(0);

      for (const bad of [{ title: "no content" }, { content: "bittern", namespace: "../etc" }]) {
        const schema = await call(s.client, "capture_memories", {
          memories: [{ content: "bittern fine" }, bad],
        });
        expect(schema.isError).toBe(true);
        expect((schema.structuredContent as ToolError).error?.message).toMatch(/memories\.1/);
      }
      expect(await count("bittern")).toBe(0);
    });

    it("bounds a batch by count and by bytes", async () => {
      const tooMany = await call(s.client, "capture_memories", {
        memories: items(BATCH_LIMITS.memories + 1, "plover"),
      });
      expect((tooMany.structuredContent as ToolError).error?.code).toBe("INVALID_ARGUMENT");
      const big = "x".repeat(150_000);
      const overLimit = Math.ceil(BATCH_LIMITS.totalBytes / big.length) + 1;
      const tooBig = await call(s.client, "capture_memories", {
        memories: Array.from({ length: overLimit }, () => ({ content: `plover ${big}` })),
      });
      const { error } = tooBig.structuredContent as ToolError;
      expect(error).toMatchObject({ code: "INVALID_ARGUMENT", field: "memories" });
      expect(error?.message).toMatch(/bytes/);
      expect(await count("plover")).toBe(0);
    });
  });

  describe("POST /v1/memories/batch", () => {
    let s: HttpServer;
    let dir: string;
    let store: StoreTarget;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "atlatl-batch-"));
      store = await backend.serverConfig(dir);
      s = await startHttpServer({ tokens: TOKEN, store });
    }, 60_000);
    afterAll(async () => {
      await s?.stop();
      await store?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });
    const post = (body: unknown) =>
      raw(s.url, "/v1/memories/batch", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body,
      });
    const total = async (word: string) =>
      (
        await raw(s.url, `/v1/search?q=${word}&limit=1000`, { headers: auth }).then((r) =>
          r.json<{ hits: unknown[] }>(),
        )
      ).hits.length;

    it("stores a batch (201, ids in order) or, for one bad item, nothing (422 naming it)", async () => {
      const ok = await post({ memories: items(120, "avocet") });
      expect(ok.status).toBe(201);
      const { count, ids } = ok.json<{ count: number; ids: string[] }>();
      expect(count).toBe(120);
      expect(ids).toHaveLength(120);
      const first = await raw(s.url, `/v1/memories/${ids[0]}`, { headers: auth });
      expect(first.json<{ content: string }>().content).toBe(
        "avocet note 0: the heron counted 0 fish.",
      );
      expect(await total("avocet")).toBe(120);

      const batch = items(4, "stilt");
      batch[2] = { content: "x", confidence: 2 };
      const bad = await post({ memories: batch });
      expect(bad.status).toBe(422);
      expect(bad.headers["content-type"]).toBe("application/problem+json");
      expect(bad.json<{ field: string }>().field).toMatch(/memories.*2/);
      const blank = await post({ memories: [{ content: "stilt y" }, { content: "  " }] });
      expect(blank.status).toBe(422);
      expect(blank.json<{ field: string }>().field).toBe("memories[1].content");
      expect(await total("stilt")).toBe(0);
      expect((await post({ memories: [] })).status).toBe(422);
    });
  });
});
