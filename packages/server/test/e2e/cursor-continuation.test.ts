/**
 * A cursor continues a walk; it is never judged again (specification,
 * "Relationship to Pagination": LRO threshold evaluation occurs on the
 * initial request only). Through the SDK's real Client against `atlatl serve`
 * over stdio: page 1 of a small set is inline with a next_cursor; memories are
 * added until the whole set is far above the threshold; the cursor continued
 * gives the walk's next page, inline with its own next_cursor, not an offload
 * of the grown set. A client that offloads locally (an LRO proxy) gets the
 * page alone too, without a whole set to judge.
 */
import { readdirSync } from "node:fs";
import { declareOffloadsLocally, readWholeSet } from "@atlatl/lro/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { makeMemory } from "../store/fixtures.js";
import { call, jsonOf, type RunningServer, serverRoot, startServer } from "./spawn-server.js";

/** The walk's set when it starts: small enough to stay inline. */
const FIRST = 6;
/** Memories added mid-walk: the set becomes far larger than the threshold. */
const ADDED = 80;

interface Page {
  offloaded?: boolean;
  count: number;
  total?: number;
  records: { id: string }[];
  next_cursor: string | null;
}

const ids = (page: Page) => page.records.map((r) => r.id);

/** The reads that take a cursor, with the arguments of a walk of pages of 2. */
const WALKS = [
  ["list_memories", { limit: 2 }],
  ["recall_memories", { query: "beacon", limit: 2 }],
  ["search_memories", { query: "beacon", limit: 2 }],
] as const;

async function seed(dbPath: string): Promise<void> {
  const store = await openSqliteStore({ path: dbPath });
  try {
    await store.upsertMany(
      Array.from({ length: FIRST }, (_, i) => makeMemory({ content: `beacon ${i}` })),
    );
  } finally {
    await store.close();
  }
}

/** Capture `ADDED` memories that match every walk, each large enough to matter. */
async function grow(s: RunningServer): Promise<void> {
  for (let i = 0; i < ADDED; i++) {
    const r = await call(s.client, "capture_memory", {
      title: `added ${i}`,
      content: `beacon added ${i} ${"tide ".repeat(40)}`,
      namespace: "_semantic/added",
      memory_type: "semantic",
    });
    expect(r.isError).toBeFalsy();
  }
}

describe("a cursor continuation is a page, never an offload (atlatl serve, stdio)", () => {
  let s: RunningServer | undefined;
  const clients: Client[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await s?.close();
    s = undefined;
  });

  it.each(WALKS)(
    "%s: the continued cursor gives the next page inline after the set grew",
    async (tool, args) => {
      s = await startServer({ beforeStart: ({ dbPath }) => seed(dbPath) });
      const first = jsonOf<Page>(await call(s.client, tool, args));
      expect(first).toMatchObject({ count: 2, total: FIRST, next_cursor: expect.any(String) });
      // The walk's second page while the set is small: what the cursor stands for.
      const second = jsonOf<Page>(
        await call(s.client, tool, { ...args, cursor: first.next_cursor }),
      );
      expect(second.offloaded).toBeUndefined();

      await grow(s);
      // The grown set is above the threshold: an initial request offloads it.
      const fresh = jsonOf<Page>(await call(s.client, tool, args));
      expect(fresh.offloaded).toBe(true);

      const continued = jsonOf<Page>(
        await call(s.client, tool, { ...args, cursor: first.next_cursor }),
      );
      expect(continued.offloaded).toBeUndefined();
      expect(continued).toMatchObject({ count: 2, next_cursor: expect.any(String) });
      expect(ids(continued)).toEqual(ids(second));
      expect(ids(continued).some((id) => ids(first).includes(id))).toBe(false);
      // Only the initial request wrote a file.
      expect(readdirSync(s.outputDir)).toHaveLength(1);

      // The walk goes on, page by page, to the end of the set it started on.
      const third = jsonOf<Page>(
        await call(s.client, tool, { ...args, cursor: continued.next_cursor }),
      );
      expect(third.offloaded).toBeUndefined();
      expect(third.count).toBe(2);
      const walked = new Set([...ids(first), ...ids(continued), ...ids(third)]);
      expect(walked.size).toBe(FIRST);
      expect(readdirSync(s.outputDir)).toHaveLength(1);
    },
    60_000,
  );

  it("gives a client that offloads locally the page alone, with no whole set", async () => {
    s = await startServer({ beforeStart: ({ dbPath }) => seed(dbPath) });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=source", "--import", "tsx", "src/cli/main.ts", "serve", ...s.storeArgs],
      env: {
        ...(process.env as Record<string, string>),
        ATLATL_CONFIG: "",
        ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: s.outputDir,
      },
      cwd: serverRoot,
      stderr: "ignore",
    });
    const proxy = new Client(
      { name: "lro-proxy", version: "1" },
      { capabilities: declareOffloadsLocally({}) },
    );
    await proxy.connect(transport);
    clients.push(proxy);
    const args = { limit: 2 };
    const first = (await proxy.callTool({
      name: "list_memories",
      arguments: args,
    })) as CallToolResult;
    expect(readWholeSet(first)?.set.total).toBe(FIRST);
    const cursor = jsonOf<Page>(first).next_cursor;

    await grow(s);
    const continued = (await proxy.callTool({
      name: "list_memories",
      arguments: { ...args, cursor },
    })) as CallToolResult;
    expect(readWholeSet(continued)).toBeUndefined();
    expect(continued.structuredContent).toBeUndefined();
    expect(jsonOf<Page>(continued)).toMatchObject({ count: 2, next_cursor: expect.any(String) });
    expect(ids(jsonOf<Page>(continued)).some((id) => ids(jsonOf<Page>(first)).includes(id))).toBe(
      false,
    );
  }, 60_000);
});
