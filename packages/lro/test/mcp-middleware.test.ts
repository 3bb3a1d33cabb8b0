/**
 * `withOffload` with the SDK's real `McpServer` and `Client` over an in-memory
 * transport: inline results (with cursor), offloaded descriptors (no cursor,
 * optional resource link), pass-through results, inject's Markdown, and the
 * truncated fallback.
 */
import { readFileSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { OffloadResponse } from "../src/index.js";
import { OFFLOAD_MIME_TYPE, offloadResourceUri, withOffload } from "../src/mcp.js";
import { Offloader } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";
import { makeMemories } from "./fixtures/memory-records.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const memories = makeMemories(120);

async function connect(
  opts: { resourceLinks?: boolean; outputDir?: string; threshold?: number } = {},
) {
  const t = tempDir("lro-mcp-");
  cleanups.push(t.cleanup);
  const outputDir = opts.outputDir ?? join(t.dir, "out");
  const { events, seen } = recordingEvents();
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: opts.threshold ?? 1600, ttlSeconds: 3600, outputDir },
    events,
  });
  const offload = withOffload({ offloader, resourceLinks: opts.resourceLinks ?? false });
  const server = new McpServer({ name: "test", version: "0.0.0" });
  const calls: unknown[] = [];

  server.registerTool(
    "recall_memories",
    {
      inputSchema: {
        limit: z.number().int(),
        detail: z.enum(["light", "medium", "full"]),
      },
    },
    offload(async (args) => {
      calls.push(args);
      const hits = memories.slice(0, args.limit);
      return {
        operation: "recall",
        query: "caching",
        detail: args.detail,
        records: hits,
        scores: hits.map((_, i) => 1 - i / 1000),
        nextCursor: args.limit < memories.length ? "cursor-abc" : null,
      };
    }),
  );
  server.registerTool(
    "inject_context",
    { inputSchema: { limit: z.number().int() } },
    offload(async (args) => {
      const hits = memories.slice(0, args.limit);
      return {
        operation: "inject",
        query: "context",
        detail: "medium" as const,
        records: hits,
        inline: `## Context\n\n${hits.map((m) => `- ${m.title}: ${m.content}`).join("\n")}`,
      };
    }),
  );
  server.registerTool(
    "ping",
    { inputSchema: { text: z.string() } },
    offload(
      async (args): Promise<CallToolResult> => ({
        content: [{ type: "text", text: `pong ${args.text}` }],
      }),
    ),
  );
  server.registerTool(
    "no_args",
    {},
    offload(async () => ({
      operation: "list",
      detail: "light" as const,
      records: memories.slice(0, 2),
    })),
  );

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test-client", version: "0.0.0" });
  await client.connect(clientSide);
  cleanups.push(async () => {
    await client.close();
    await server.close();
  });
  return { client, outputDir, seen, calls };
}

function content(result: unknown) {
  return (result as CallToolResult).content as {
    type: string;
    text?: string;
    uri?: string;
    name?: string;
    mimeType?: string;
  }[];
}

describe("withOffload on a real McpServer", () => {
  it("returns small results inline as JSON with the cursor, from the measured lines", async () => {
    const { client, seen, calls } = await connect();
    const r = await client.callTool({
      name: "recall_memories",
      arguments: { limit: 3, detail: "light" },
    });
    expect(calls).toEqual([{ limit: 3, detail: "light" }]);
    const items = content(r);
    expect(items).toHaveLength(1);
    const payload = JSON.parse(items[0]?.text as string);
    expect(Object.keys(payload)).toEqual(["count", "records", "next_cursor"]);
    expect(payload.count).toBe(3);
    expect(payload.next_cursor).toBe("cursor-abc");
    expect(payload.records[0]).toEqual({
      id: memories[0]?.id,
      title: memories[0]?.title,
      namespace: memories[0]?.namespace,
      memory_type: memories[0]?.memory_type,
      tags: memories[0]?.tags,
      created: memories[0]?.created,
      modified: memories[0]?.modified,
      status: memories[0]?.status,
    });
    expect(seen).toEqual([]);
  });

  it("offloads large results: the OffloadResponse, no cursor, file on disk", async () => {
    const { client, seen } = await connect();
    const r = await client.callTool({
      name: "recall_memories",
      arguments: { limit: 120, detail: "full" },
    });
    const items = content(r);
    expect(items).toHaveLength(1);
    const resp = JSON.parse(items[0]?.text as string) as OffloadResponse & {
      next_cursor?: unknown;
    };
    expect(resp.offloaded).toBe(true);
    expect("next_cursor" in resp).toBe(false);
    expect(items[0]?.text).not.toContain("cursor-abc");
    expect(resp.summary).toMatchObject({ count: 120, operation: "recall", detail: "full" });
    expect(resp.summary.score_range).toEqual([0.881, 1]);
    expect(resp.jq_recipes).toHaveLength(10);
    const lines = readFileSync(resp.file_path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(121);
    expect(JSON.parse(lines[1] as string)).toEqual(memories[0]);
    expect(seen.map((e) => e.type)).toEqual(["OffloadCreated"]);
  });

  it("adds a resource_link to the file when asked", async () => {
    const { client } = await connect({ resourceLinks: true });
    const r = await client.callTool({
      name: "recall_memories",
      arguments: { limit: 120, detail: "medium" },
    });
    const items = content(r);
    expect(items.map((c) => c.type)).toEqual(["text", "resource_link"]);
    const resp = JSON.parse(items[0]?.text as string) as OffloadResponse;
    expect(items[1]).toMatchObject({
      type: "resource_link",
      uri: offloadResourceUri(resp.file_path),
      name: basename(resp.file_path),
      mimeType: OFFLOAD_MIME_TYPE,
    });
    expect(items[1]?.uri).toBe(`atlatl://offload/${basename(resp.file_path)}`);
  });

  it("passes a plain CallToolResult through untouched, and works for tools without arguments", async () => {
    const { client } = await connect();
    const r = await client.callTool({ name: "ping", arguments: { text: "hi" } });
    expect(content(r)).toEqual([{ type: "text", text: "pong hi" }]);
    const n = await client.callTool({ name: "no_args", arguments: {} });
    expect(JSON.parse(content(n)[0]?.text as string)).toMatchObject({ count: 2 });
  });

  it("inject: returns the formatted Markdown inline, offloads the pre-budget set when large", async () => {
    const { client } = await connect();
    const small = await client.callTool({ name: "inject_context", arguments: { limit: 2 } });
    const text = content(small)[0]?.text as string;
    expect(text.startsWith("## Context\n\n- ")).toBe(true);
    expect(text).toContain(memories[1]?.title as string);

    const large = await client.callTool({ name: "inject_context", arguments: { limit: 120 } });
    const resp = JSON.parse(content(large)[0]?.text as string) as OffloadResponse;
    expect(resp.summary).toMatchObject({
      operation: "inject",
      count: 120,
      detail: "medium",
      score_range: null,
    });
    expect(resp.file_path).toMatch(/atlatl-inject-/);
  });

  it("falls back to a truncated inline result with a warning when the write fails", async () => {
    const t = tempDir("lro-mcp-link-");
    cleanups.push(t.cleanup);
    const link = join(t.dir, "link");
    symlinkSync(t.dir, link);
    const { client, seen } = await connect({ outputDir: link });
    const r = await client.callTool({
      name: "recall_memories",
      arguments: { limit: 120, detail: "light" },
    });
    const text = content(r)[0]?.text as string;
    expect(Math.ceil(text.length / 4)).toBeLessThanOrEqual(1600);
    const payload = JSON.parse(text);
    expect(Object.keys(payload)).toEqual([
      "count",
      "records",
      "truncated",
      "total_count",
      "warning",
    ]);
    expect(payload.truncated).toBe(true);
    expect(payload.total_count).toBe(120);
    expect(payload.count).toBe(payload.records.length);
    expect(payload.count).toBeGreaterThan(0);
    expect(payload.count).toBeLessThan(120);
    expect(payload.warning).toMatch(/failed.*truncated/);
    expect(seen.map((e) => e.type)).toEqual(["OffloadWriteFailed"]);

    const inj = await client.callTool({ name: "inject_context", arguments: { limit: 120 } });
    const injText = content(inj)[0]?.text as string;
    expect(injText.startsWith("## Context")).toBe(true);
    expect(injText).toContain("> Warning: Offloading the result to a file failed");
    expect(Math.ceil(injText.length / 4)).toBeLessThanOrEqual(1600);
  });
});
