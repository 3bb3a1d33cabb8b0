/**
 * What each 2026-07-28 request says is heard per request (no `initialize`,
 * a fresh server instance each): the proxy signal in its envelope
 * (`clientInfo.proxy` alone is enough), its log level (LRO events are logged
 * to the call only when it carries one), the cache fields of the lists, and a
 * `tools/list` that is the same, in registration order, every time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LroEvent, LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIST_TTL_MS } from "../../src/mcp/create-server.js";
import { TaskTable } from "../../src/mcp/tasks/memory/memory-task-store.js";
import { createServices, type Services } from "../../src/services/create-services.js";
import type { MemoryStore } from "../../src/store/store.js";
import { BACKENDS } from "../backends/backends.js";
import { testClock } from "../services/helpers.js";
import { makeMemory } from "../store/fixtures.js";
import { type ModernEndpoint, modernEndpoint, textOf } from "./modern-endpoint.js";
import { ATLATL_TOOLS } from "./tool-names.js";

const MEMORIES = 40;
const recall = { name: "recall_memories", arguments: { query: "beacon", detail: "full" } };

describe("2026-07-28 requests, each on its own server instance", () => {
  let store: MemoryStore;
  let services: Services;
  let dir: string;
  let endpoint: ModernEndpoint;

  beforeAll(async () => {
    store = await (BACKENDS[0] as (typeof BACKENDS)[number]).open();
    await store.upsertMany(
      Array.from({ length: MEMORIES }, (_, i) =>
        makeMemory({ content: `beacon ${i} ${"signal ".repeat(10)}` }),
      ),
    );
    services = createServices(store, { now: testClock().now });
    dir = mkdtempSync(join(tmpdir(), "atlatl-modern-"));
    const offloader = new Offloader({
      config: { enabled: true, thresholdTokens: 50, ttlSeconds: 3600, outputDir: dir },
      events: new LroEvents({ sink: null }),
    });
    endpoint = modernEndpoint(() => ({ services, offloader }));
  });

  afterAll(async () => {
    await endpoint?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("offloads a broad recall for a plain client, and gives the whole set to one whose envelope says clientInfo.proxy", async () => {
    const plain = await endpoint.request<CallToolResult>("tools/call", recall);
    expect(JSON.parse(textOf(plain)).offloaded).toBe(true);

    const proxy = await endpoint.request<CallToolResult>("tools/call", recall, {
      clientInfo: { name: "some-proxy", version: "1.0.0", proxy: true },
    });
    const set = (proxy.structuredContent as { lro_whole_set?: { records: unknown[] } })
      .lro_whole_set;
    expect(set?.records).toHaveLength(MEMORIES);
    expect(textOf(proxy)).not.toContain('"offloaded":true');

    const declared = await endpoint.request<CallToolResult>("tools/call", recall, {
      capabilities: { experimental: { "atlatl/proxy": {} } },
    });
    expect(
      (declared.structuredContent as { lro_whole_set?: { records: unknown[] } }).lro_whole_set
        ?.records,
    ).toHaveLength(MEMORIES);
  });

  it("logs the call's LRO events to that call only when the request carries a log level", async () => {
    const silent = await endpoint.exchange("tools/call", recall);
    expect(silent.filter((m) => m.method === "notifications/message")).toEqual([]);
    expect(JSON.parse(textOf(silent.at(-1)?.result as CallToolResult)).offloaded).toBe(true);

    const heard = await endpoint.exchange("tools/call", recall, { logLevel: "info" });
    const logs = heard.filter((m) => m.method === "notifications/message");
    const descriptor = JSON.parse(textOf(heard.at(-1)?.result as CallToolResult));
    expect(logs).toHaveLength(1);
    expect(logs[0]?.params).toMatchObject({
      level: "info",
      logger: "atlatl.lro",
      data: { type: "OffloadCreated", path: descriptor.file_path, count: MEMORIES },
    });

    // Above the events' level: nothing.
    const quiet = await endpoint.exchange("tools/call", recall, { logLevel: "error" });
    expect(quiet.filter((m) => m.method === "notifications/message")).toEqual([]);
  });

  it("logs each of concurrent calls' LRO events to that call alone (one offloader, one hub)", async () => {
    const source = JSON.parse(textOf(await endpoint.request<CallToolResult>("tools/call", recall)));
    // Two recalls and an lro_extract whose output is offloaded again, all at once.
    const extract = { name: "lro_extract", arguments: { file_path: source.file_path, query: "." } };
    const calls = await Promise.all(
      [recall, recall, extract].map((params) =>
        endpoint.exchange("tools/call", params, { logLevel: "info" }),
      ),
    );
    const paths = calls.map((messages) => {
      const descriptor = JSON.parse(textOf(messages.at(-1)?.result as CallToolResult));
      // A recall's descriptor names its file; the extraction's (sections) its `results` file.
      const path: string = descriptor.file_path ?? descriptor.files?.results;
      const logs = messages.filter((m) => m.method === "notifications/message");
      expect(logs.map((m) => m.params)).toEqual([
        expect.objectContaining({
          logger: "atlatl.lro",
          data: expect.objectContaining({ type: "OffloadCreated", path }),
        }),
      ]);
      return path;
    });
    expect(new Set(paths).size).toBe(3);
    expect(paths[2]).toMatch(/\/atlatl-extract-[0-9A-Z]{26}\.jsonl$/);
  });

  it("gives discover and the lists their cache fields: tools and prompts public, resources private and not to be reused", async () => {
    const discover = await endpoint.request("server/discover", {});
    expect(discover).toMatchObject({ ttlMs: LIST_TTL_MS, cacheScope: "public" });
    // The tasks extension is advertised where a 2026-07-28 client looks for it.
    expect(discover).toMatchObject({
      capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} }, tools: {} },
    });
    const tools = await endpoint.request("tools/list", {});
    expect(tools).toMatchObject({ ttlMs: LIST_TTL_MS, cacheScope: "public" });
    const prompts = await endpoint.request("prompts/list", {});
    expect(prompts).toMatchObject({ ttlMs: LIST_TTL_MS, cacheScope: "public" });
    expect(prompts).toMatchObject({
      prompts: expect.arrayContaining([
        expect.objectContaining({
          name: "recall_and_summarize",
          arguments: [
            { name: "query", description: "The topic to recall", required: true },
            {
              name: "namespace",
              description: "Only this namespace prefix, e.g. _semantic",
              required: false,
            },
          ],
        }),
      ]),
    });
    const resources = await endpoint.request("resources/list", {});
    expect(resources).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    const templates = await endpoint.request("resources/templates/list", {});
    expect(templates).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  it("lists the tools in registration order, byte for byte the same every time", async () => {
    const first = await endpoint.request<{ tools: { name: string; inputSchema: object }[] }>(
      "tools/list",
      {},
    );
    // No dialect of its own: 2026-07-28 reads a schema without `$schema` as 2020-12.
    for (const tool of first.tools) expect(tool.inputSchema).not.toHaveProperty("$schema");
    const second = await endpoint.request<{ tools: { name: string }[] }>("tools/list", {});
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(first.tools.map((t) => t.name)).toEqual(ATLATL_TOOLS);
  });
});

/** An event hub that counts its live subscriptions. */
class CountingEvents extends LroEvents {
  live = 0;
  override on(type: "*", listener: (event: LroEvent) => void): () => void;
  // biome-ignore lint/suspicious/noExplicitAny: the hub's overloads, passed through.
  override on(type: any, listener: any): () => void {
    const off = super.on(type, listener);
    this.live++;
    let done = false;
    return () => {
      if (!done) this.live--;
      done = true;
      off();
    };
  }
}

describe("a server instance per 2026-07-28 request", () => {
  it("keeps a principal's task for its later requests, and answers another principal's not found", async () => {
    const store = await (BACKENDS[0] as (typeof BACKENDS)[number]).open();
    await store.upsertMany([makeMemory({ content: "beacon alone" })]);
    const dir = mkdtempSync(join(tmpdir(), "atlatl-modern-tasks-"));
    // As over HTTP: an offloader (and directory) per principal, one task table.
    const offloaders = new Map<string, Offloader>();
    const offloaderOf = (principal: string) => {
      const known = offloaders.get(principal);
      if (known) return known;
      const made = new Offloader({
        config: {
          enabled: true,
          thresholdTokens: 50,
          ttlSeconds: 3600,
          outputDir: join(dir, principal),
        },
        events: new LroEvents({ sink: null }),
      });
      offloaders.set(principal, made);
      return made;
    };
    const services = createServices(store);
    const table = new TaskTable<CallToolResult>();
    const endpoint = modernEndpoint((principal) => ({
      services,
      offloader: offloaderOf(principal),
      principal,
      tasks: { table, owner: principal },
    }));
    const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
    try {
      const created = await endpoint.request<{ resultType: string; taskId: string }>(
        "tools/call",
        { name: "recall_memories", arguments: { query: "beacon" } },
        { capabilities: TASKS, principal: "alice" },
      );
      expect(created.resultType).toBe("task");
      await table.settled("alice", created.taskId);
      const mine = await endpoint.request<{ status: string; result: CallToolResult }>(
        "tasks/get",
        { taskId: created.taskId },
        { capabilities: TASKS, principal: "alice" },
      );
      expect(mine.status).toBe("completed");
      expect(JSON.parse(textOf(mine.result)).summary.count).toBe(1);
      for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
        const params = {
          taskId: created.taskId,
          ...(method === "tasks/update" ? { inputResponses: {} } : {}),
        };
        const [answer] = (
          await endpoint.exchange(method, params, {
            capabilities: TASKS,
            principal: "bob",
          })
        ).slice(-1);
        expect(answer?.error?.code).toBe(-32602);
        // Without the extension declared, even the owner is refused: -32021 naming it.
        const [undeclared] = (
          await endpoint.exchange(method, params, { capabilities: {}, principal: "alice" })
        ).slice(-1);
        expect(undeclared?.error).toMatchObject({
          code: -32021,
          data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
        });
      }
    } finally {
      table.close();
      await endpoint.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("releases what each instance subscribed when the SDK closes it", async () => {
    const store = await (BACKENDS[0] as (typeof BACKENDS)[number]).open();
    const dir = mkdtempSync(join(tmpdir(), "atlatl-modern-release-"));
    const events = new CountingEvents({ sink: null });
    const offloader = new Offloader({
      config: { enabled: true, thresholdTokens: 50, ttlSeconds: 3600, outputDir: dir },
      events,
    });
    const services = createServices(store);
    const endpoint = modernEndpoint(() => ({ services, offloader }));
    try {
      await endpoint.request("tools/list", {});
      const afterOne = events.live;
      for (let i = 0; i < 20; i++) await endpoint.request("resources/list", {});
      expect(events.live).toBe(afterOne);
      // Nothing is left subscribed: a call's LRO events reach its log through the call itself.
      expect(afterOne).toBe(0);
    } finally {
      await endpoint.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
