/**
 * Loading 5,000 notes through MCP stdio (SDK Client, compiled bin), on SQLite
 * and, when a URL is set, PostgreSQL (issue 32 item 3): one `capture_memory`
 * call per note beside `capture_memories` in batches of `BATCH_LIMITS.memories`.
 * Targets: the batched load takes <= 10 calls and is >= 10x faster.
 * PostgreSQL comes from `ATLATL_BENCH_PG_URL`, else `ATLATL_TEST_PG_URL`; the
 * run uses a fresh schema and drops it afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { generateCorpus } from "atlatl";
import { BATCH_LIMITS } from "../../server/src/model/limits.js";
import { benchPostgresUrl, POSTGRES_NOT_MEASURED, withBenchSchemas } from "./bench-postgres.js";
import { atLeast, atMost, type Benchmark, type BenchRow, type BenchTable } from "./harness.js";

const bin = resolve(dirname(fileURLToPath(import.meta.url)), "../../server/bin/atlatl.js");
const COUNT = 5000;

type Input = Record<string, unknown>;

/** `capture_memory` arguments of `count` corpus notes (the reference load's shape). */
function notes(count: number, seed: number): Input[] {
  return [...generateCorpus({ count, seed })].map((m) => ({
    content: m.content,
    title: m.title,
    namespace: m.namespace,
    memory_type: m.memory_type,
    tags: m.tags,
  }));
}

/** A client over `atlatl serve` with these store arguments, against a fresh store. */
async function connect(storeArgs: string[], dir: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...storeArgs, "serve", "--output-dir", join(dir, "offload")],
    env: { ...(process.env as Record<string, string>), ATLATL_CONFIG: "" },
    stderr: "ignore",
  });
  const client = new Client({ name: "atlatl-bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function callOk(client: Client, name: string, args: Input): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
}

interface Load {
  oneByOneMs: number;
  batchMs: number;
  batchCalls: number;
}

/** Both loads, each into its own fresh store (`storeArgs` of the first, then the second). */
async function measureLoads(storeArgs: [string[], string[]], dir: string): Promise<Load> {
  const single = await connect(storeArgs[0], dir);
  const one = notes(COUNT, 11);
  await callOk(single, "capture_memory", { content: "warm-up" });
  let start = performance.now();
  for (const note of one) await callOk(single, "capture_memory", note);
  const oneByOneMs = performance.now() - start;
  await single.close();

  const batched = await connect(storeArgs[1], dir);
  const many = notes(COUNT, 12);
  await callOk(batched, "capture_memory", { content: "warm-up" });
  let batchCalls = 0;
  start = performance.now();
  for (let i = 0; i < many.length; i += BATCH_LIMITS.memories) {
    await callOk(batched, "capture_memories", {
      memories: many.slice(i, i + BATCH_LIMITS.memories),
    });
    batchCalls++;
  }
  const batchMs = performance.now() - start;
  await batched.close();
  return { oneByOneMs, batchMs, batchCalls };
}

function rowsOf(store: string, load: Load): BenchRow[] {
  const speedup = load.oneByOneMs / load.batchMs;
  return [
    {
      name: `${store}: ${COUNT} capture_memory calls`,
      value: load.oneByOneMs,
      unit: "ms",
      notes: `${((COUNT / load.oneByOneMs) * 1000).toFixed(0)} memories/s`,
    },
    atMost(`${store}: capture_memories calls for ${COUNT}`, load.batchCalls, "calls", 10),
    {
      name: `${store}: ${COUNT} memories by capture_memories`,
      value: load.batchMs,
      unit: "ms",
      notes: `${((COUNT / load.batchMs) * 1000).toFixed(0)} memories/s`,
    },
    atLeast(`${store}: batch speed-up over one by one`, speedup, "x", 10),
  ];
}

async function run(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-batch-"));
  const rows: BenchRow[] = [];
  const details: Record<string, Load> = {};
  try {
    const sqlite = await measureLoads(
      [
        ["--db", join(dir, "one.db")],
        ["--db", join(dir, "batch.db")],
      ],
      dir,
    );
    rows.push(...rowsOf("SQLite", sqlite));
    details.sqlite = sqlite;

    const url = benchPostgresUrl();
    if (!url) {
      rows.push(POSTGRES_NOT_MEASURED);
    } else {
      await withBenchSchemas(url, 2, async (schemaUrls) => {
        const args = schemaUrls.map((u) => ["--database", u]) as [string[], string[]];
        const postgres = await measureLoads(args, dir);
        rows.push(...rowsOf("PostgreSQL", postgres));
        details.postgres = postgres;
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    {
      name: "server-batch-capture",
      title: `Loading ${COUNT} memories over MCP stdio: one by one vs capture_memories`,
      rows,
      details,
    },
  ];
}

export const serverBatchCaptureBenchmark: Benchmark = { name: "server-batch-capture", run };
