import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { declareOffloadsLocally, readWholeSet } from "@atlatl/lro/mcp";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lines } from "./raw-lines.js";
import { serverRoot } from "./spawn-server.js";

const cli = ["--conditions=source", "--import", "tsx", join(serverRoot, "src/cli/main.ts")];

/** An LRO proxy in front of `atlatl serve` over stdio announces itself the same way as over HTTP. */
describe("atlatl serve over stdio: an LRO proxy client", () => {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-proxy-stdio-"));
  const db = join(dir, "atlatl.db");
  const env = {
    ...(process.env as Record<string, string>),
    ATLATL_CONFIG: "",
    ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(dir, "offload"),
  };
  const clients: { close(): Promise<void> }[] = [];
  const connect = async (proxy: boolean) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...cli, "--db", db, "serve"],
      env,
      cwd: serverRoot,
      stderr: "ignore",
    });
    // An LRO proxy: the specification's clientInfo flag and the capability atlatl reads.
    const client = new Client(
      { name: "atlatl-proxy", version: "1", ...(proxy ? { proxy: true } : {}) },
      proxy ? { capabilities: declareOffloadsLocally({}) } : undefined,
    );
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  /** A 2.x client pinned to 2026-07-28 (no initialize: its client info travels in each request). */
  const connectModern = async () => {
    const transport = new ModernStdioTransport({
      command: process.execPath,
      args: [...cli, "--db", db, "serve"],
      env,
      cwd: serverRoot,
      stderr: "ignore",
    });
    const client = new ModernClient(
      { name: "atlatl-proxy", version: "1", proxy: true } as { name: string; version: string },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const recallAll = async (client: Pick<Client, "callTool">) => {
    const r = (await client.callTool({
      name: "recall_memories",
      arguments: { query: "", limit: 1000, detail: "full", status: "any" },
    })) as CallToolResult;
    return { ...JSON.parse((r.content[0] as { text: string }).text), whole: readWholeSet(r)?.set };
  };

  beforeAll(() => {
    execFileSync(process.execPath, [...cli, "--db", db, "seed", "-n", "300"], {
      cwd: serverRoot,
      env,
      stdio: "ignore",
    });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gets every record inline, where a plain client gets an offload descriptor", async () => {
    const [proxy, plain] = await Promise.all([connect(true), connect(false)]);
    const inline = await recallAll(proxy);
    expect(inline.offloaded).toBeUndefined();
    expect(inline.records).toHaveLength(300);
    expect(inline.next_cursor ?? null).toBeNull();
    // Beside the page, the whole set and what a local descriptor needs.
    expect(inline.whole).toMatchObject({ operation: "recall", detail: "full", total: 300 });
    expect(inline.whole.records).toEqual(inline.records);
    expect(inline.whole.scores).toHaveLength(300);
    expect((await recallAll(plain)).offloaded).toBe(true);
  });

  it("knows a raw 2025-11-25 proxy by clientInfo.proxy alone, sent at initialize", async () => {
    const rawRecall = async (clientInfo: Record<string, unknown>) => {
      const child = spawn(process.execPath, [...cli, "--db", db, "serve"], {
        env,
        cwd: serverRoot,
      });
      child.stderr.resume();
      try {
        const lines = new Lines(child, "legacy");
        // No atlatl/proxy capability: only the specification's clientInfo flag, if any.
        await lines.initialize(clientInfo);
        const answer = await lines.request("tools/call", {
          name: "recall_memories",
          arguments: { query: "", limit: 1000, detail: "full", status: "any" },
        });
        const r = answer.result as unknown as CallToolResult;
        return { ...JSON.parse((r.content[0] as { text: string }).text), whole: readWholeSet(r) };
      } finally {
        child.kill();
      }
    };
    const proxy = await rawRecall({ proxy: true });
    expect(proxy.offloaded).toBeUndefined();
    expect(proxy.records).toHaveLength(300);
    expect(proxy.whole?.set).toMatchObject({ operation: "recall", total: 300 });
    expect(proxy.whole?.set.records).toHaveLength(300);
    const plain = await rawRecall({});
    expect(plain.offloaded).toBe(true);
    expect(plain.whole).toBeUndefined();
  });

  it("knows a 2026-07-28 proxy by clientInfo.proxy alone, which its requests' envelopes carry", async () => {
    const inline = await recallAll((await connectModern()) as unknown as Pick<Client, "callTool">);
    expect(inline.offloaded).toBeUndefined();
    expect(inline.whole).toMatchObject({ operation: "recall", total: 300 });
    expect(inline.whole.records).toHaveLength(300);
  });
});
