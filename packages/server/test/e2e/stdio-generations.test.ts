/**
 * `atlatl serve` over stdio speaks both protocol generations, whichever the
 * client opens with: the SDK 2.x client in `legacy` (2025-11-25 initialize),
 * `auto` (probes, then 2026-07-28) and pinned 2026-07-28 modes, and the SDK
 * 1.x client. Each lists the tools, gets a broad recall offloaded to a file
 * and reads it back with `lro_extract`. LRO events of a call are logged to
 * that call at the level a 2025-11-25 session set (`logging/setLevel`) or the
 * one a 2026-07-28 request carries (`_meta` log level); a 2026-07-28 request
 * without one is never logged to.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OffloadResponse } from "@atlatl/lro";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { ATLATL_TOOLS } from "../mcp/tool-names.js";
import { makeMemory } from "../store/fixtures.js";
import { serverRoot, startServer } from "./spawn-server.js";

const MEMORIES = 60;

/** What a test needs of either SDK's client. */
interface Peer {
  era: string;
  listTools(): Promise<{ tools: { name: string }[] }>;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** `completion/complete` of a prompt argument: the values offered. */
  completePrompt(prompt: string, argument: string, value: string): Promise<string[]>;
  /** Ask for log messages at `level`: `logging/setLevel`, or each request's `_meta` (2026). */
  logAt(level: "info" | "error"): Promise<void>;
  /** The LRO log messages received so far. */
  logs: { level: string; logger?: string; data: { type: string; path?: string } }[];
  /**
   * Count `notifications/resources/list_changed` from now on: pushed to a
   * 2025-11-25 session, on a `subscriptions/listen` stream for 2026-07-28.
   */
  watchResourceList(): Promise<{ count(): number; stop(): Promise<void> }>;
  close(): Promise<void>;
}

const LOG_LEVEL_META = "io.modelcontextprotocol/logLevel";

type Mode = "legacy" | "auto" | { pin: "2026-07-28" };

async function seeded(dir: string): Promise<string> {
  const dbPath = join(dir, "atlatl.db");
  const store = await openSqliteStore({ path: dbPath });
  await store.upsertMany(
    Array.from({ length: MEMORIES }, (_, i) =>
      makeMemory({ content: `beacon ${i} ${"signal ".repeat(20)}` }),
    ),
  );
  await store.close();
  return dbPath;
}

/** `atlatl serve` on `dbPath`, with the SDK 2.x client in `mode`. */
async function v2Peer(mode: Mode, dbPath: string, outputDir: string): Promise<Peer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      "--conditions=source",
      "--import",
      "tsx",
      join(serverRoot, "src/cli/main.ts"),
      "serve",
      "--db",
      dbPath,
    ],
    env: {
      ...(process.env as Record<string, string>),
      ATLATL_CONFIG: "",
      ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outputDir,
    },
    cwd: serverRoot,
    stderr: "pipe",
  });
  const client = new Client(
    { name: "atlatl-generations", version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(transport);
  const era = client.getProtocolEra() ?? "none";
  const logs: Peer["logs"] = [];
  client.setNotificationHandler("notifications/message", (n) => {
    logs.push(n.params as Peer["logs"][number]);
  });
  let level: string | undefined;
  return {
    era,
    listTools: () => client.listTools(),
    call: async (name, args) =>
      (await client.callTool({
        name,
        arguments: args,
        ...(era === "modern" && level ? { _meta: { [LOG_LEVEL_META]: level } } : {}),
      })) as CallToolResult,
    completePrompt: async (prompt, argument, value) =>
      (
        await client.complete({
          ref: { type: "ref/prompt", name: prompt },
          argument: { name: argument, value },
        })
      ).completion.values,
    async logAt(l) {
      if (era === "modern") level = l;
      else await client.setLoggingLevel(l);
    },
    logs,
    async watchResourceList() {
      let seen = 0;
      client.setNotificationHandler("notifications/resources/list_changed", () => {
        seen++;
      });
      const subscription =
        era === "modern" ? await client.listen({ resourcesListChanged: true }) : undefined;
      return { count: () => seen, stop: async () => subscription?.close() };
    },
    close: () => client.close(),
  };
}

const CASES: { name: string; era: string; start: (db: string, out: string) => Promise<Peer> }[] = [
  { name: "SDK 2.x client, legacy", era: "legacy", start: (db, o) => v2Peer("legacy", db, o) },
  { name: "SDK 2.x client, auto", era: "modern", start: (db, o) => v2Peer("auto", db, o) },
  {
    name: "SDK 2.x client, pinned 2026-07-28",
    era: "modern",
    start: (db, o) => v2Peer({ pin: "2026-07-28" }, db, o),
  },
  {
    name: "SDK 1.x client",
    era: "legacy",
    async start(db, outputDir) {
      const s = await startServer({
        storeArgs: ["--db", db],
        env: { ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outputDir },
      });
      const logs: Peer["logs"] = [];
      s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(n.params as Peer["logs"][number]);
      });
      return {
        era: "legacy",
        listTools: () => s.client.listTools(),
        call: async (name, args) =>
          (await s.client.callTool({ name, arguments: args })) as CallToolResult,
        completePrompt: async (prompt, argument, value) =>
          (
            await s.client.complete({
              ref: { type: "ref/prompt", name: prompt },
              argument: { name: argument, value },
            })
          ).completion.values,
        logAt: async (level) => {
          await s.client.setLoggingLevel(level);
        },
        logs,
        async watchResourceList() {
          let seen = 0;
          s.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
            seen++;
          });
          return { count: () => seen, stop: async () => {} };
        },
        close: () => s.close(),
      };
    },
  },
];

describe.each(CASES)("atlatl serve over stdio: $name", ({ era, start }) => {
  let dir: string;
  let outputDir: string;
  let peer: Peer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "atlatl-generations-"));
    outputDir = join(dir, "offload");
    peer = await start(await seeded(dir), outputDir);
  }, 60_000);

  afterAll(async () => {
    await peer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("negotiates the generation the client asked for", () => {
    expect(peer.era).toBe(era);
  });

  it("lists the tools in registration order", async () => {
    const { tools } = await peer.listTools();
    expect(tools.map((t) => t.name)).toEqual(ATLATL_TOOLS);
  });

  it("completes prompt arguments: namespaces, and memory titles for the query", async () => {
    const namespaces = await peer.completePrompt("recall_and_summarize", "namespace", "_sem");
    expect(namespaces).toEqual(["_semantic", "_semantic/general"]);
    // The titles of the memories a recall of what was typed finds (at most ten).
    const titles = await peer.completePrompt("recall_and_summarize", "query", "beacon");
    expect(titles).toHaveLength(10);
    expect(titles.every((t) => /^Memory \d+$/.test(t))).toBe(true);
    expect(await peer.completePrompt("context_for_task", "task", "zzz-nothing")).toEqual([]);
  });

  it("offloads a broad recall and reads the file back with lro_extract", async () => {
    const result = await peer.call("recall_memories", { query: "beacon", detail: "full" });
    expect(result.isError).toBeFalsy();
    const first = result.content[0];
    const descriptor = JSON.parse(first?.type === "text" ? first.text : "") as OffloadResponse;
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary).toMatchObject({ count: MEMORIES, operation: "recall" });
    expect(descriptor.file_path.startsWith(outputDir)).toBe(true);
    expect(existsSync(descriptor.file_path)).toBe(true);

    const counted = await peer.call("lro_extract", {
      file_path: descriptor.file_path,
      query: "length",
      slurp: true,
    });
    expect(counted.isError).toBeFalsy();
    const text = counted.content[0];
    expect(JSON.parse(text?.type === "text" ? text.text : "")).toBe(MEMORIES);
  });

  it("tells the client when an offload file appears (2025 pushed, 2026-07-28 on its subscription)", async () => {
    const watch = await peer.watchResourceList();
    const result = await peer.call("recall_memories", { query: "beacon", detail: "full" });
    const text = result.content[0];
    expect(JSON.parse(text?.type === "text" ? text.text : "").offloaded).toBe(true);
    await expect.poll(() => watch.count()).toBeGreaterThan(0);
    await watch.stop();
  });

  it("logs a call's LRO events to it at the level asked, a 2026-07-28 request without one not at all", async () => {
    const recall = () => peer.call("recall_memories", { query: "beacon", detail: "full" });
    const lro = () => peer.logs.filter((l) => l.logger === "atlatl.lro");
    // A 2026-07-28 request without a log level is never logged to.
    if (era === "modern") {
      await recall();
      expect(lro()).toEqual([]);
    }
    peer.logs.length = 0;
    await peer.logAt("info");
    const first = await recall();
    const text = first.content[0];
    const path = (JSON.parse(text?.type === "text" ? text.text : "") as OffloadResponse).file_path;
    await expect.poll(() => lro().length).toBe(1);
    expect(lro()[0]).toMatchObject({ level: "info", data: { type: "OffloadCreated", path } });
    // lro_extract's output over the threshold is offloaded in turn: its event is that call's.
    const whole = await peer.call("lro_extract", { file_path: path, query: "." });
    expect(JSON.parse((whole.content[0] as { text: string }).text).offloaded).toBe(true);
    await expect.poll(() => lro().length).toBe(2);
    expect(lro()[1]).toMatchObject({
      level: "info",
      data: {
        type: "OffloadCreated",
        path: expect.stringMatching(/\/atlatl-extract-[0-9A-Z]{26}\.jsonl$/),
      },
    });
    expect(existsSync(lro()[1]?.data.path as string)).toBe(true);
    await peer.logAt("error");
    await recall();
    await peer.call("recall_memories", { query: "nothing-matches-this" });
    expect(lro()).toHaveLength(2);
  });
});
