/**
 * A call's own event listener (`onEvent` on the engine's inputs, `eventListener`
 * on `withOffload` and `registerLroExtract`): the call's events reach it, and
 * the offloader's hub, as before; another call's events never do. Driven with
 * the SDK's real `McpServer` and `Client` where the MCP layer is under test.
 */
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { LroEvent } from "../src/index.js";
import { offloadCallToolResult, registerLroExtract, withOffload } from "../src/mcp.js";
import { Offloader } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";
import { makeMemories } from "./fixtures/memory-records.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An offloader on a fresh directory (`outputDir` under it), its hub recording. */
function offloaderIn(outputDir?: (dir: string) => string) {
  const t = tempDir("lro-call-events-");
  cleanups.push(t.cleanup);
  const { events, seen } = recordingEvents();
  const offloader = new Offloader({
    config: {
      enabled: true,
      thresholdTokens: 100,
      ttlSeconds: 3600,
      outputDir: outputDir ? outputDir(t.dir) : t.dir,
    },
    events,
  });
  return { offloader, seen, dir: t.dir };
}

const pathOf = (e: LroEvent | undefined) => (e && "path" in e ? e.path : undefined);
const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

async function connected(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "call-events", version: "0.0.0" });
  await client.connect(clientSide);
  cleanups.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

describe("Offloader: a call's onEvent", () => {
  it("gets the call's OffloadCreated right after the hub; without one the hub alone; a throwing one fails nothing", async () => {
    const { offloader, seen } = offloaderIn();
    const order: string[] = [];
    offloader.events.on("*", (e) => order.push(`hub ${pathOf(e)}`));
    const mine: LroEvent[] = [];
    const onEvent = (e: LroEvent) => {
      order.push(`call ${pathOf(e)}`);
      mine.push(e);
    };
    const records = await offloader.offloadRecords({
      operation: "recall",
      detail: "light",
      records: makeMemories(20),
      onEvent,
    });
    const sections = await offloader.offloadSections({
      operation: "extract",
      sections: [{ key: "results", items: makeMemories(5) }],
      force: true,
      onEvent,
    });
    const unheard = await offloader.offloadRecords({
      operation: "recall",
      detail: "light",
      records: makeMemories(20),
    });
    const thrown = await offloader.offloadRecords({
      operation: "recall",
      detail: "light",
      records: makeMemories(20),
      onEvent: () => {
        throw new Error("listener bug");
      },
    });
    if (records.kind !== "offloaded" || sections.kind !== "offloaded") throw new Error("inline");
    expect(unheard.kind).toBe("offloaded");
    expect(thrown.kind).toBe("offloaded");
    const paths = [records.file.path, sections.files[0]?.path];
    expect(mine.map((e) => [e.type, pathOf(e)])).toEqual(paths.map((p) => ["OffloadCreated", p]));
    expect(order.slice(0, 4)).toEqual(paths.flatMap((p) => [`hub ${p}`, `call ${p}`]));
    expect(seen.map((e) => e.type)).toEqual(Array(4).fill("OffloadCreated"));
  });

  it("gets the call's OffloadWriteFailed", async () => {
    // A symlinked output directory is refused: every write fails.
    const { offloader, seen } = offloaderIn((dir) => {
      const link = join(dir, "link");
      symlinkSync(dir, link);
      return link;
    });
    const mine: LroEvent[] = [];
    const outcome = await offloader.offloadRecords({
      operation: "recall",
      detail: "light",
      records: makeMemories(20),
      onEvent: (e) => mine.push(e),
    });
    expect(outcome.kind).toBe("truncated");
    expect(mine.map((e) => e.type)).toEqual(["OffloadWriteFailed"]);
    expect(seen).toEqual(mine);
  });
});

describe("withOffload and registerLroExtract: eventListener, per call", () => {
  it("gives each of concurrent calls' listener its own events only", async () => {
    const { offloader, seen } = offloaderIn();
    const heard: Record<string, LroEvent[]> = { a: [], b: [], quiet: [] };
    const offload = withOffload({
      offloader,
      eventListener: (...args) => {
        const caller = (args[0] as { caller: string }).caller;
        return caller === "quiet" ? undefined : (e) => heard[caller]?.push(e);
      },
    });
    const server = new McpServer({ name: "call-events", version: "0.0.0" });
    server.registerTool(
      "recall",
      { inputSchema: { caller: z.string() } },
      offload(async () => ({ operation: "recall", detail: "light", records: makeMemories(20) })),
    );
    const client = await connected(server);
    const results = await Promise.all(
      ["a", "b", "quiet"].map((caller) =>
        client.callTool({ name: "recall", arguments: { caller } }),
      ),
    );
    const [a, b] = results.map((r) => JSON.parse(textOf(r)).file_path as string);
    expect(heard.a?.map(pathOf)).toEqual([a]);
    expect(heard.b?.map(pathOf)).toEqual([b]);
    expect(heard.quiet).toEqual([]);
    expect(seen).toHaveLength(3);
  });

  it("gives an extraction's listener its re-offloaded output's OffloadCreated", async () => {
    const { offloader, seen } = offloaderIn();
    const source = await offloader.offloadRecords({
      operation: "recall",
      detail: "light",
      records: makeMemories(20),
    });
    if (source.kind !== "offloaded") throw new Error("inline");
    const heard: LroEvent[] = [];
    const contexts: unknown[] = [];
    const server = new McpServer({ name: "call-events", version: "0.0.0" });
    const extract = registerLroExtract(server, {
      offloader,
      // The arguments as the host passes them: validated arguments, then its handler context.
      eventListener: (args, extra) => {
        contexts.push(extra);
        return (args as { limit?: number }).limit === undefined ? (e) => heard.push(e) : undefined;
      },
    });
    cleanups.push(() => extract.close());
    const client = await connected(server);
    const whole = await client.callTool({
      name: "lro_extract",
      arguments: { file_path: source.file.path, query: "." },
    });
    const derived = JSON.parse(textOf(whole)).files.results as string;
    expect(derived).toMatch(/atlatl-extract-/);
    expect(heard.map((e) => [e.type, pathOf(e)])).toEqual([["OffloadCreated", derived]]);
    expect(seen.map(pathOf)).toEqual([source.file.path, derived]);
    expect(contexts[0]).toHaveProperty("requestId");
  });

  it("offloadCallToolResult: the call's onEvent gets the event of its offloaded result", async () => {
    const { offloader, seen } = offloaderIn();
    const heard: LroEvent[] = [];
    const rows = makeMemories(20);
    const result = await offloadCallToolResult(
      offloader,
      { content: [{ type: "text", text: JSON.stringify(rows) }] },
      { operation: "rows", onEvent: (e) => heard.push(e) },
    );
    const path = JSON.parse(textOf(result)).file_path as string;
    expect(heard.map(pathOf)).toEqual([path]);
    expect(seen).toEqual(heard);
  });
});
