/**
 * `atlatl serve` over stdio speaks both protocol generations, whichever the
 * client opens with: the SDK 2.x client in `legacy` (2025-11-25 initialize),
 * `auto` (probes, then 2026-07-28) and pinned 2026-07-28 modes, and the SDK
 * 1.x client. Each lists the tools, gets a broad recall offloaded to a file
 * and reads it back with `lro_extract`.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OffloadResponse } from "@atlatl/lro";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { makeMemory } from "../store/fixtures.js";
import { serverRoot, startServer } from "./spawn-server.js";

const MEMORIES = 60;
const TOOLS = [
  "capture_memory",
  "get_memory",
  "update_memory",
  "forget_memory",
  "recall_memories",
  "search_memories",
  "list_memories",
  "inject_context",
  "lro_extract",
];

/** What a test needs of either SDK's client. */
interface Peer {
  era: string;
  listTools(): Promise<{ tools: { name: string }[] }>;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

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
  return {
    era: client.getProtocolEra() ?? "none",
    listTools: () => client.listTools(),
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
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
      return {
        era: "legacy",
        listTools: () => s.client.listTools(),
        call: async (name, args) =>
          (await s.client.callTool({ name, arguments: args })) as CallToolResult,
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
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
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
});
