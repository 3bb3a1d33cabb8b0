/**
 * The memory pipeline over a streamed source (every match of a read, as a
 * store cursor yields it): the same file as from an array, the score range
 * gathered on the way, `maxRecords` capping the file while the rest is
 * counted, the streaming-to-disk path intact; and `withOffload`'s whole-set
 * mode: offload every match, or the inline page with `total`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { OffloadHeader, OffloadResponse } from "../src/index.js";
import {
  declareOffloadsLocally,
  LRO_PROXY_CAPABILITY,
  offloadsLocally,
  REQUEST_CAPABILITIES_META,
  REQUEST_CLIENT_INFO_META,
  requestOffloadsLocally,
  withOffload,
} from "../src/mcp.js";
import { type OffloadConfig, Offloader, type SourceRecord } from "../src/node.js";
import { STREAM_AFTER_CHARS } from "../src/offload/offloader.js";
import { bash, recordingEvents, tempDir } from "./fixtures/helpers.js";
import { type FixtureMemory, makeMemories } from "./fixtures/memory-records.js";

const t = tempDir("lro-whole-");
afterAll(() => t.cleanup());

function offloader(extra: Partial<OffloadConfig> = {}, dir = "out"): Offloader {
  return new Offloader({
    config: {
      enabled: true,
      thresholdTokens: 1600,
      ttlSeconds: 3600,
      outputDir: join(t.dir, dir),
      ...extra,
    },
    now: () => Date.UTC(2025, 0, 2),
    events: recordingEvents().events,
  });
}

/** An async source like a store cursor: one record at a time, a score each; counts reads. */
function streamOf(records: readonly FixtureMemory[], scores: readonly number[]) {
  const read = { n: 0 };
  async function* gen(): AsyncGenerator<SourceRecord> {
    for (let i = 0; i < records.length; i++) {
      read.n++;
      yield { record: records[i] as object, score: scores[i] };
    }
  }
  return { source: gen(), read };
}

const body = (path: string) => readFileSync(path, "utf8").split("\n").slice(1).join("\n");

describe("offloadRecords with a streamed source", () => {
  const records = makeMemories(300);
  const scores = records.map((_, i) => 0.9 - i / 1000);

  it("writes the same records as the array input and gathers the score range", async () => {
    const fromArray = await offloader().offloadRecords({
      operation: "recall",
      detail: "light",
      records,
      scores,
    });
    const { source, read } = streamOf(records, scores);
    const fromStream = await offloader().offloadRecords({
      operation: "recall",
      detail: "light",
      source,
    });
    if (fromArray.kind !== "offloaded" || fromStream.kind !== "offloaded") {
      throw new Error(`expected two offloads, got ${fromArray.kind} and ${fromStream.kind}`);
    }
    expect(read.n).toBe(300);
    expect(body(fromStream.file.path)).toBe(body(fromArray.file.path));
    expect(fromStream.response.summary).toEqual(fromArray.response.summary);
    expect(fromStream.response.summary.score_range).toEqual([0.601, 0.9]);
    expect(fromStream.total).toBe(300);
    expect(fromStream.response.capped).toBeUndefined();
  });

  it("caps the file at maxRecords, counts the rest, and says so in the descriptor", async () => {
    const { source, read } = streamOf(records, scores);
    const r = await offloader({ maxRecords: 40 }).offloadRecords({
      operation: "recall",
      query: "caching",
      detail: "light",
      source,
    });
    if (r.kind !== "offloaded") throw new Error(`expected offload, got ${r.kind}`);
    expect(read.n).toBe(300);
    expect(r.total).toBe(300);
    expect(r.file.header.count).toBe(40);
    expect(r.response.summary.count).toBe(40);
    expect(bash(`tail -n +2 '${r.file.path}' | wc -l`).stdout.trim()).toBe("40");
    expect(r.response.capped).toEqual({
      total_matches: 300,
      records_in_file: 40,
      max_records: 40,
      note: expect.stringContaining("first 40 of 300"),
    });
    expect(r.response.guidance.split("\n")[0]).toBe(
      "CAPPED: 300 records match, the file holds the first 40.",
    );
    // The first 40, in the source's order; the score range of those.
    const ids = body(r.file.path)
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(records.slice(0, 40).map((m) => m.id));
    expect(r.response.summary.score_range).toEqual([0.861, 0.9]);
  });

  it("a set past the cap is offloaded even when its kept part is small", async () => {
    const few = makeMemories(5);
    const r = await offloader({ maxRecords: 2 }).offloadRecords({
      operation: "list",
      detail: "light",
      source: streamOf(few, []).source,
    });
    expect(r.kind).toBe("offloaded");
    if (r.kind === "offloaded") expect(r.response.capped?.total_matches).toBe(5);
  });

  it("stays inline below the threshold, with every line and the total", async () => {
    const few = makeMemories(4);
    const r = await offloader().offloadRecords({
      operation: "list",
      detail: "light",
      source: streamOf(few, []).source,
    });
    expect(r.kind).toBe("inline");
    if (r.kind === "inline") {
      expect(r.total).toBe(4);
      expect(r.lines).toHaveLength(4);
    }
  });

  it("streams a large capped source to disk with an exact header", async () => {
    const many = makeMemories(16_000);
    const lines = many.map((m) => JSON.stringify(m));
    expect(lines.reduce((n, l) => n + l.length + 1, 0)).toBeGreaterThan(STREAM_AFTER_CHARS);
    const r = await offloader({ maxRecords: 15_500 }).offloadRecords({
      operation: "list",
      detail: "full",
      source: streamOf(many, []).source,
    });
    if (r.kind !== "offloaded") throw new Error(`expected offload, got ${r.kind}`);
    const text = readFileSync(r.file.path, "utf8");
    const nl = text.indexOf("\n");
    const header = JSON.parse(text.slice(0, nl)) as OffloadHeader;
    expect(header.count).toBe(15_500);
    expect(r.total).toBe(16_000);
    expect(text.slice(nl + 1)).toBe(`${lines.slice(0, 15_500).join("\n")}\n`);
  }, 60_000);
});

describe("withOffload, whole-set mode", () => {
  async function connect(config: Partial<OffloadConfig>, n: number) {
    const all = makeMemories(n);
    const o = offloader(config, `mcp-${n}-${String(config.enabled)}`);
    const server = new McpServer({ name: "test", version: "0.0.0" });
    const reads = { source: 0, pages: 0 };
    server.registerTool(
      "list_memories",
      { inputSchema: { limit: z.number().int() } },
      withOffload({ offloader: o })(async (args) => ({
        operation: "list",
        query: null,
        detail: "light" as const,
        records: [],
        whole: {
          source: (async function* () {
            for (const m of all) {
              reads.source++;
              yield { record: m };
            }
          })(),
          page: async () => {
            reads.pages++;
            return { records: all.slice(0, args.limit), nextCursor: "next-page" };
          },
        },
      })),
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "c", version: "0" });
    await Promise.all([server.connect(a), client.connect(b)]);
    const call = async (limit: number) => {
      const r = (await client.callTool({
        name: "list_memories",
        arguments: { limit },
      })) as CallToolResult;
      const first = r.content[0];
      if (first?.type !== "text") throw new Error("no text content");
      return JSON.parse(first.text);
    };
    return { call, reads, close: () => client.close() };
  }

  it("offloads every match, however small the page, and never reads the page", async () => {
    const c = await connect({}, 200);
    const d = (await c.call(5)) as OffloadResponse & { next_cursor?: unknown };
    expect(d.offloaded).toBe(true);
    expect(d.summary.count).toBe(200);
    expect(d.next_cursor).toBeUndefined();
    expect(c.reads.pages).toBe(0);
    await c.close();
  });

  it("below the threshold returns the page with its cursor and the total", async () => {
    const c = await connect({}, 6);
    expect(await c.call(2)).toMatchObject({
      count: 2,
      total: 6,
      next_cursor: "next-page",
      records: [{}, {}],
    });
    await c.close();
  });

  it("with LRO off reads only the page", async () => {
    const c = await connect({ enabled: false }, 200);
    const page = await c.call(3);
    expect(page).toMatchObject({ count: 3, next_cursor: "next-page" });
    expect(c.reads.source).toBe(0);
    await c.close();
  });
});

describe("offloadsLocally: the one rule for the proxy signal", () => {
  it("is true for the capability under experimental (2025-11-25) or extensions (2026-07-28)", () => {
    expect(offloadsLocally({ experimental: { [LRO_PROXY_CAPABILITY]: {} } })).toBe(true);
    expect(offloadsLocally({ extensions: { [LRO_PROXY_CAPABILITY]: {} } })).toBe(true);
    expect(LRO_PROXY_CAPABILITY).toBe("atlatl/proxy");
  });

  it("is true for clientInfo.proxy === true, whatever the capabilities", () => {
    expect(offloadsLocally(undefined, { name: "p", version: "1", proxy: true })).toBe(true);
    expect(offloadsLocally({}, { name: "p", version: "1", proxy: true })).toBe(true);
  });

  it("is false for anything else, malformed input included", () => {
    const caps: unknown[] = [
      undefined,
      null,
      "atlatl/proxy",
      {},
      { experimental: {} },
      { experimental: { other: {} } },
      { extensions: { "io.modelcontextprotocol/tasks": {} } },
      { experimental: "atlatl/proxy" },
      { [LRO_PROXY_CAPABILITY]: {} },
    ];
    const infos: unknown[] = [
      undefined,
      null,
      "proxy",
      { name: "c", version: "1" },
      { proxy: "true" },
      { proxy: 1 },
      { proxy: false },
    ];
    for (const c of caps) {
      for (const i of infos) {
        expect(offloadsLocally(c, i), `${JSON.stringify(c)} ${JSON.stringify(i)}`).toBe(false);
      }
    }
  });

  it("declareOffloadsLocally declares it in both groups, keeping what was there", () => {
    const caps = declareOffloadsLocally({
      experimental: { mine: { a: 1 } },
      extensions: { "io.modelcontextprotocol/tasks": {} },
      sampling: {},
    });
    expect(caps).toEqual({
      experimental: { mine: { a: 1 }, [LRO_PROXY_CAPABILITY]: {} },
      extensions: { "io.modelcontextprotocol/tasks": {}, [LRO_PROXY_CAPABILITY]: {} },
      sampling: {},
    });
    expect(offloadsLocally({ experimental: caps.experimental })).toBe(true);
    expect(offloadsLocally({ extensions: caps.extensions })).toBe(true);
  });
});

describe("requestOffloadsLocally: the proxy capability in one request's _meta", () => {
  it("is true for the 2026-07-28 envelope's clientCapabilities declaring atlatl/proxy", () => {
    const caps = declareOffloadsLocally({});
    expect(requestOffloadsLocally({ [REQUEST_CAPABILITIES_META]: caps })).toBe(true);
    expect(REQUEST_CAPABILITIES_META).toBe("io.modelcontextprotocol/clientCapabilities");
  });

  it("is true for the envelope's clientInfo.proxy or an extensions capability", () => {
    expect(
      requestOffloadsLocally({
        [REQUEST_CAPABILITIES_META]: {},
        [REQUEST_CLIENT_INFO_META]: { name: "p", version: "1", proxy: true },
      }),
    ).toBe(true);
    expect(
      requestOffloadsLocally({
        [REQUEST_CAPABILITIES_META]: { extensions: { [LRO_PROXY_CAPABILITY]: {} } },
      }),
    ).toBe(true);
    expect(REQUEST_CLIENT_INFO_META).toBe("io.modelcontextprotocol/clientInfo");
  });

  it("is false without it, for other capabilities and for malformed _meta", () => {
    for (const meta of [
      undefined,
      null,
      "x",
      {},
      { progressToken: 1 },
      { [REQUEST_CAPABILITIES_META]: {} },
      { [REQUEST_CAPABILITIES_META]: "atlatl/proxy" },
      { [REQUEST_CAPABILITIES_META]: { experimental: { other: {} } } },
      // The capability or client info at the top of _meta is not the envelope.
      { experimental: { "atlatl/proxy": {} } },
      { extensions: { "atlatl/proxy": {} } },
      { proxy: true },
      { [REQUEST_CLIENT_INFO_META]: { proxy: "yes" } },
    ]) {
      expect(requestOffloadsLocally(meta), JSON.stringify(meta)).toBe(false);
    }
  });
});
