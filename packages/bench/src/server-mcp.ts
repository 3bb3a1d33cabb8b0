/**
 * End-to-end latency of the atlatl server through MCP stdio: the SDK Client calls
 * `recall_memories` on a spawned `atlatl serve` (the compiled bin), which
 * recalls 500 full-detail hits and offloads them. Target (issue #3): p50 <= 40 ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { seedStore } from "atlatl";
import { openSqliteStore } from "../../server/src/store/sqlite/open-sqlite.js";
import { atMost, type Benchmark, type BenchTable, measure } from "./harness.js";

const bin = resolve(dirname(fileURLToPath(import.meta.url)), "../../server/bin/atlatl.js");

async function run(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-mcp-"));
  const dbPath = join(dir, "atlatl.db");
  try {
    const store = await openSqliteStore({ path: dbPath });
    // 500 memories: LRO offloads every match of a recall (not the `limit` page),
    // so the recall below writes exactly 500 full-detail records, as it always has.
    await seedStore(store, { count: 500, seed: 7 });
    await store.close();

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "serve", "--db", dbPath, "--output-dir", join(dir, "offload")],
      env: { ...(process.env as Record<string, string>), ATLATL_CONFIG: "" },
      stderr: "ignore",
    });
    const client = new Client({ name: "atlatl-bench", version: "1.0.0" });
    await client.connect(transport);
    let count = 0;
    const recall = async () => {
      const result = await client.callTool({
        name: "recall_memories",
        arguments: { query: "", status: "any", limit: 500, detail: "full" },
      });
      const first = result.content[0];
      const body = JSON.parse(first?.type === "text" ? first.text : "{}") as {
        offloaded?: boolean;
        summary?: { count: number };
      };
      if (!body.offloaded) throw new Error("expected an offloaded result");
      count = body.summary?.count ?? 0;
    };
    const timing = await measure(recall, { runs: 40, warmup: 5 });
    const narrow = await measure(
      () =>
        client.callTool({
          name: "recall_memories",
          arguments: { query: "rollback runbook", limit: 5 },
        }),
      { runs: 40, warmup: 5 },
    );
    await client.close();
    return [
      {
        name: "server-mcp",
        title: "atlatl serve over MCP stdio (SDK Client, compiled bin, 2,000-memory store)",
        rows: [
          atMost(`recall_memories offloading ${count} full-detail hits, p50`, timing.p50, "ms", 40),
          { name: "same, p95", value: timing.p95, unit: "ms" },
          { name: "narrow inline recall (limit 5), p50", value: narrow.p50, unit: "ms" },
        ],
        details: { offload: timing, narrow },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const serverMcpBenchmark: Benchmark = { name: "server-mcp", run };
