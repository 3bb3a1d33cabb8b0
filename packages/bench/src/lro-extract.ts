/**
 * `lro-extract`: the cost of reaching offloaded results without a shell.
 * Each recipe over a 500-record file end to end in-process (SDK Client ->
 * McpServer over InMemoryTransport -> lro_extract), beside jq-web alone and
 * beside `tail -n +2 FILE | jq ...` spawned from Node; then a 100,000-record
 * file, first call (read + parse, nothing cached) against the jq CLI's time for
 * the same filter, plus a custom query that runs in jq-web.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { LroEvents, memoryRecipe, renderRecipeCommand } from "@atlatl/lro";
import { registerLroExtract } from "@atlatl/lro/mcp";
import { JqEngine, Offloader } from "@atlatl/lro/node";
import { type CallToolResult, Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import {
  makeMemories,
  projectMemory,
  writeOffloadFixture,
} from "../../lro/test/extract/memory-fixtures.js";
import {
  atMost,
  type Benchmark,
  type BenchRow,
  type BenchTable,
  measure,
  summarize,
} from "./harness.js";

const run = promisify(execFile);

/** Parameters that select something in the fixture (the descriptor's defaults select nothing). */
const PARAMS: Record<string, string> = {
  namespace: "_episodic",
  keyword: "cache",
  memory_type: "episodic",
  tag: "api",
  pattern: "the cache",
};

interface Rig {
  client: Client;
  engine: JqEngine;
  call(args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

async function rig(dir: string): Promise<Rig> {
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: dir },
    events: new LroEvents({ sink: null }),
  });
  const server = new McpServer({ name: "bench", version: "0" });
  const engine = new JqEngine();
  registerLroExtract(server, { offloader, engine });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "bench-client", version: "0" });
  await Promise.all([server.connect(b), client.connect(a)]);
  await engine.warm();
  return {
    client,
    engine,
    async call(args) {
      const r = await client.callTool({ name: "lro_extract", arguments: args });
      if (r.isError) throw new Error(`lro_extract failed: ${JSON.stringify(r.content[0])}`);
      return r;
    },
    async close() {
      await client.close();
      await server.close();
      await engine.close();
    },
  };
}

function recipeArgs(file: string, n: number): Record<string, unknown> {
  const spec = memoryRecipe("medium", n);
  if (!spec) throw new Error(`no recipe ${n}`);
  const params = Object.fromEntries(spec.params.map((p) => [p, PARAMS[p] as string]));
  return { file_path: file, recipe: n, ...(spec.params.length ? { params } : {}) };
}

function shellCommand(file: string, n: number): string {
  const spec = memoryRecipe("medium", n);
  if (!spec) throw new Error(`no recipe ${n}`);
  return `${renderRecipeCommand(spec, file, PARAMS)} > /dev/null`;
}

async function timeShell(command: string, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await run("bash", ["-c", command], { maxBuffer: 1 << 30 });
    samples.push(performance.now() - t);
  }
  return summarize(samples).p50;
}

async function small(): Promise<BenchTable> {
  const dir = mkdtempSync(join(tmpdir(), "lro-extract-bench-"));
  const r = await rig(dir);
  try {
    const records = makeMemories(500, 21).map((m) => projectMemory(m, "medium"));
    const file = writeOffloadFixture(dir, records, { detail: "medium" }).path;
    const bytes = statSync(file).size;
    const first = performance.now();
    await r.call(recipeArgs(file, 1));
    const cold = performance.now() - first;
    const rows: BenchRow[] = [];
    const engines: Record<string, unknown> = {};
    for (let n = 1; n <= 10; n++) {
      const args = recipeArgs(file, n);
      const t = await measure(
        async () => {
          const res = await r.call(args);
          engines[`recipe ${n}`] = res._meta?.["atlatl/engine"];
        },
        { runs: 40, warmup: 5 },
      );
      rows.push(
        atMost(
          `recipe ${n}, p50 end to end (SDK client, cached file)`,
          t.p50,
          "ms",
          15,
          `p95 ${t.p95.toFixed(1)} ms; ${engines[`recipe ${n}`]}`,
        ),
      );
    }
    rows.push({ name: "recipe 1, first call (read + parse the file)", value: cold, unit: "ms" });
    // jq-web alone on the same file and filter (what the fast path avoids).
    const spec2 = memoryRecipe("medium", 2);
    const body = Buffer.from(records.map((x) => JSON.stringify(x)).join("\n"));
    const jqAlone = await measure(
      async () => {
        const res = await r.engine.run({
          input: { key: "bench-500", bytes: body },
          filter: spec2?.filter ?? ".",
          args: { namespace: PARAMS.namespace as string },
        });
        if (!res.ok) throw res.error;
      },
      { runs: 30, warmup: 3 },
    );
    rows.push({
      name: "recipe 2 in jq-web alone (warm worker, input cached)",
      value: jqAlone.p50,
      unit: "ms",
    });
    const custom = await measure(
      () => r.call({ file_path: file, query: "select(.confidence > 0.9) | .id" }),
      {
        runs: 30,
        warmup: 3,
      },
    );
    rows.push({ name: "custom query via jq-web, p50 end to end", value: custom.p50, unit: "ms" });
    for (const n of [2, 6]) {
      rows.push({
        name: `recipe ${n} via bash + jq CLI spawned from Node, p50`,
        value: await timeShell(shellCommand(file, n), 20),
        unit: "ms",
        notes: "tail -n +2 FILE | jq ...",
      });
    }
    return {
      name: "lro-extract-500",
      title: `lro_extract over a 500-record file (medium detail, ${(bytes / 1024).toFixed(0)} KiB)`,
      rows,
      details: { engines, loadavg: loadavg() },
    };
  } finally {
    await r.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function large(): Promise<BenchTable> {
  const dir = mkdtempSync(join(tmpdir(), "lro-extract-bench-"));
  try {
    const records = makeMemories(100_000, 22).map((m) => projectMemory(m, "medium"));
    const file = writeOffloadFixture(dir, records, { detail: "medium" }).path;
    records.length = 0;
    const bytes = statSync(file).size;
    const rows: BenchRow[] = [];
    const cases: [string, Record<string, unknown>, string][] = [
      ["recipe 6 (count by namespace)", recipeArgs(file, 6), shellCommand(file, 6)],
      ["recipe 3 (title keyword)", recipeArgs(file, 3), shellCommand(file, 3)],
      ["recipe 5 (memory type; output re-offloaded)", recipeArgs(file, 5), shellCommand(file, 5)],
      [
        "custom query in jq-web",
        { file_path: file, query: "select(.confidence != null and .confidence > 0.99) | .id" },
        `tail -n +2 '${file}' | jq 'select(.confidence != null and .confidence > 0.99) | .id' > /dev/null`,
      ],
    ];
    const details: Record<string, unknown> = { bytes };
    for (const [label, args, command] of cases) {
      const cli = await timeShell(command, 2);
      // A fresh server per case: nothing cached, the first call reads and parses.
      const r = await rig(dir);
      try {
        const t = performance.now();
        const res = await r.call(args);
        const first = performance.now() - t;
        const warm = await measure(() => r.call(args), { runs: 3, warmup: 0 });
        rows.push(
          atMost(
            `${label}: first call`,
            first,
            "ms",
            Math.round(2 * cli),
            `jq CLI ${cli.toFixed(0)} ms (target 2x); cached ${warm.p50.toFixed(0)} ms; ${res._meta?.["atlatl/engine"]}`,
          ),
        );
        details[label] = { first, warm: warm.p50, cli, engine: res._meta?.["atlatl/engine"] };
      } finally {
        await r.close();
      }
    }
    return {
      name: "lro-extract-100k",
      title: `lro_extract over 100,000 records (medium detail, ${(bytes / 2 ** 20).toFixed(0)} MiB) vs the jq CLI`,
      rows,
      details: { ...details, loadavg: loadavg() },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const lroExtractBenchmark: Benchmark = {
  name: "lro-extract",
  async run() {
    return [await small(), await large()];
  },
};
