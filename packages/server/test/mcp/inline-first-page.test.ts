/**
 * A narrow recall (its whole result set stays inline) reads the store once:
 * the first inline page is built from the whole-set read's head, with the
 * same records, total and a cursor that continues the walk exactly like the
 * paged service's. Calls with a cursor still read their page.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AtlatlServer, createAtlatlServer } from "../../src/mcp/create-server.js";
import { toRecord } from "../../src/model/detail.js";
import { createServices, type Services } from "../../src/services/create-services.js";
import type { MemoryStore } from "../../src/store/store.js";
import { BACKENDS } from "../backends/backends.js";
import { testClock } from "../services/helpers.js";
import { makeMemory } from "../store/fixtures.js";

/** The store, counting the calls of each method made through it. */
function counting(store: MemoryStore): { store: MemoryStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const wrapped = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.set(String(key), (calls.get(String(key)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { store: wrapped, calls };
}

interface Page {
  count: number;
  total: number;
  records: Record<string, unknown>[];
  next_cursor?: string | null;
}

for (const backend of BACKENDS) {
  describe(`inline first page from the whole-set read (${backend.name})`, () => {
    let raw: MemoryStore;
    let calls: Map<string, number>;
    let services: Services;
    let atlatl: AtlatlServer;
    let client: Client;
    let dir: string;

    beforeEach(async () => {
      raw = await backend.open();
      const wrapped = counting(raw);
      calls = wrapped.calls;
      services = createServices(wrapped.store, { now: testClock().now });
      dir = mkdtempSync(join(tmpdir(), "atlatl-first-page-"));
      const offloader = new Offloader({
        config: { enabled: true, thresholdTokens: 1_000_000, ttlSeconds: 3600, outputDir: dir },
        events: new LroEvents({ sink: null }),
      });
      atlatl = createAtlatlServer({ services, offloader });
      const [a, b] = InMemoryTransport.createLinkedPair();
      client = new Client({ name: "first-page-test", version: "1.0.0" });
      await Promise.all([atlatl.server.connect(a), client.connect(b)]);
      await raw.upsertMany(
        Array.from({ length: 40 }, (_, i) =>
          makeMemory({
            content: i % 2 === 0 ? `beacon ${"signal ".repeat(i % 5)}` : "quiet",
            confidence: (i % 7) / 7,
          }),
        ),
      );
      calls.clear();
    });

    afterEach(async () => {
      await client.close();
      await atlatl.close();
      await raw.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function recallTool(args: Record<string, unknown>): Promise<Page> {
      const out = await client.callTool({ name: "recall_memories", arguments: args });
      expect(out.isError).toBeFalsy();
      const content = out.content as { type: string; text: string }[];
      return JSON.parse(content[0]?.text ?? "") as Page;
    }

    it.each(["light", "full"] as const)(
      "reads the store once for the first page at %s detail, and its cursor walks like the paged service",
      async (detail) => {
        const first = await recallTool({ query: "beacon", limit: 6, detail });
        expect(Object.fromEntries(calls)).toEqual({ rankAll: 1 });

        // The same page as the paged service's first page.
        const paged = await services.recall.recall({ query: "beacon", limit: 6 });
        expect(first.count).toBe(6);
        expect(first.total).toBe(20);
        expect(first.records).toEqual(paged.hits.map((h) => toRecord(h.memory, detail)));
        expect(typeof first.next_cursor).toBe("string");

        // Walking on with the reused page's cursor visits what the paged walk visits.
        const toolWalk = first.records.map((r) => r.id);
        let cursor = first.next_cursor;
        while (cursor) {
          const page = await recallTool({ query: "beacon", limit: 6, detail, cursor });
          toolWalk.push(...page.records.map((r) => r.id));
          cursor = page.next_cursor;
        }
        const serviceWalk = paged.hits.map((h) => h.memory.id);
        let next = paged.next_cursor;
        while (next) {
          const page = await services.recall.recall({ query: "beacon", limit: 6, cursor: next });
          serviceWalk.push(...page.hits.map((h) => h.memory.id));
          next = page.next_cursor;
        }
        expect(serviceWalk).toHaveLength(20);
        expect(toolWalk).toEqual(serviceWalk);
      },
    );

    it("gives no cursor when the whole set fits the page, still with one read", async () => {
      const page = await recallTool({ query: "beacon", limit: 50 });
      expect(Object.fromEntries(calls)).toEqual({ rankAll: 1 });
      expect(page.count).toBe(20);
      expect(page.total).toBe(20);
      expect(page.next_cursor).toBeNull();
    });

    it("reads the store once for search_memories' first page, and its cursor walks like the paged service", async () => {
      const call = async (args: Record<string, unknown>) => {
        const out = await client.callTool({ name: "search_memories", arguments: args });
        expect(out.isError).toBeFalsy();
        return JSON.parse((out.content as { text: string }[])[0]?.text ?? "") as Page;
      };
      const first = await call({ query: "beacon", limit: 7 });
      expect(Object.fromEntries(calls)).toEqual({ searchAll: 1 });
      const paged = await services.search.search({ query: "beacon", limit: 7 });
      expect(first.total).toBe(20);
      expect(first.records.map((r) => r.id)).toEqual(paged.hits.map((h) => h.memory.id));
      const toolWalk = first.records.map((r) => r.id);
      let cursor = first.next_cursor;
      while (cursor) {
        const page = await call({ query: "beacon", limit: 7, cursor });
        toolWalk.push(...page.records.map((r) => r.id));
        cursor = page.next_cursor;
      }
      const serviceWalk = paged.hits.map((h) => h.memory.id);
      let next = paged.next_cursor;
      while (next) {
        const page = await services.search.search({ query: "beacon", limit: 7, cursor: next });
        serviceWalk.push(...page.hits.map((h) => h.memory.id));
        next = page.next_cursor;
      }
      expect(serviceWalk).toHaveLength(20);
      expect(toolWalk).toEqual(serviceWalk);
    });

    it("formats inject_context from the whole-set read at medium detail, and re-reads at light", async () => {
      const call = async (detail: string) => {
        const out = await client.callTool({
          name: "inject_context",
          arguments: { query: "beacon", limit: 6, budget_tokens: 4000, detail },
        });
        expect(out.isError).toBeFalsy();
        return (out.content as { text: string }[])[0]?.text;
      };
      const medium = await call("medium");
      expect(Object.fromEntries(calls)).toEqual({ rankAll: 1 });
      const { hits } = await services.recall.recall({ query: "beacon", limit: 6 });
      expect(medium).toBe((await services.context.format(hits, 4000)).context);
      calls.clear();
      // A light read has no content to format: the recall reads its page.
      expect(await call("light")).toBe(medium);
      expect(calls.get("rank")).toBe(1);
    });

    it("reads the page again when called with a cursor", async () => {
      const first = await recallTool({ query: "beacon", limit: 6 });
      calls.clear();
      await recallTool({ query: "beacon", limit: 6, cursor: first.next_cursor });
      expect(calls.get("rank")).toBe(1);
    });
  });
}
