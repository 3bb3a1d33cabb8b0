/**
 * `proxy`: what `atlatl-proxy` costs. (1) Added latency of an inline call,
 * stdio client -> proxy -> stdio upstream, beside a direct connection to the
 * same upstream in the same run (calls interleaved, so drift hits both).
 * (2) A 5 MB text result: time from the upstream's response to the descriptor
 * (the engine alone, in process), beside the floor of serializing the result
 * and writing that many bytes. (3) Peak RSS growth of that offload in a fresh
 * process, against the result's size.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LroEvents } from "@atlatl/lro";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createProxyEngine, DEFAULT_TOOL_POLICY } from "atlatl-proxy";
import { atMost, type Benchmark, type BenchTable, summarize } from "./harness.js";
import { textResult } from "./proxy-fixtures.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const UPSTREAM = join(root, "packages/proxy/test/fixtures/faulty-server.mjs");
const PROXY = join(root, "packages/proxy/src/cli/main.ts");
const FIVE_MB = 5 * 1024 * 1024;

async function connect(args: string[]): Promise<Client> {
  const client = new Client({ name: "proxy-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, stderr: "ignore", cwd: root }),
  );
  return client;
}

async function latency(): Promise<BenchTable> {
  const out = mkdtempSync(join(tmpdir(), "proxy-bench-"));
  const [direct, proxied] = await Promise.all([
    connect([UPSTREAM]),
    connect([
      "--conditions=source",
      "--import",
      "tsx",
      PROXY,
      "--output-dir",
      out,
      "--",
      process.execPath,
      UPSTREAM,
    ]),
  ]);
  try {
    const call = { name: "echo", arguments: { message: "a small inline result" } };
    const d: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < 600; i++) {
      const t0 = performance.now();
      await direct.callTool(call);
      const t1 = performance.now();
      await proxied.callTool(call);
      const t2 = performance.now();
      if (i < 100) continue; // warm-up
      d.push(t1 - t0);
      p.push(t2 - t1);
    }
    const ds = summarize(d);
    const ps = summarize(p);
    const added = ps.p50 - ds.p50;
    return {
      name: "proxy-latency",
      title: "atlatl-proxy: added latency of an inline call (stdio -> proxy -> stdio)",
      rows: [
        atMost(
          "added p50",
          added,
          "ms",
          1,
          `proxied p50 ${ps.p50.toFixed(3)} ms vs direct ${ds.p50.toFixed(3)} ms (ratio ${(ps.p50 / ds.p50).toFixed(2)})`,
        ),
        { name: "direct p50 (peer)", value: ds.p50, unit: "ms", notes: `p95 ${ds.p95.toFixed(3)}` },
        { name: "proxied p50", value: ps.p50, unit: "ms", notes: `p95 ${ps.p95.toFixed(3)}` },
      ],
      details: { direct: ds, proxied: ps, runs: d.length },
    };
  } finally {
    await Promise.all([direct.close(), proxied.close()]);
    rmSync(out, { recursive: true, force: true });
  }
}

async function offload5mb(): Promise<BenchTable> {
  const dir = mkdtempSync(join(tmpdir(), "proxy-bench-"));
  const engine = await createProxyEngine({
    config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: dir },
    extractToolName: "lro_extract",
    resourcePrefix: "atlatl://offload/",
    events: new LroEvents({ sink: null }),
  });
  try {
    const result = textResult(FIVE_MB);
    const t: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < 23; i++) {
      // Floor, side by side: serialize the result once and write that many bytes.
      const f0 = performance.now();
      writeFileSync(join(dir, "floor.json"), JSON.stringify(result), { mode: 0o600 });
      const f1 = performance.now();
      const out = await engine.offloadCallResult(result, {
        name: "logs",
        policy: DEFAULT_TOOL_POLICY,
      });
      const t2 = performance.now();
      if (out === result) throw new Error("expected an offload");
      if (i < 3) continue;
      floor.push(f1 - f0);
      t.push(t2 - f1);
    }
    const ts = summarize(t);
    const fs = summarize(floor);
    return {
      name: "proxy-offload-5mb",
      title: "atlatl-proxy: 5 MB text result, upstream response -> descriptor",
      rows: [
        atMost(
          "p50",
          ts.p50,
          "ms",
          60,
          `floor (stringify + write 5 MB) p50 ${fs.p50.toFixed(1)} ms, ratio ${(ts.p50 / fs.p50).toFixed(1)}x`,
        ),
        { name: "floor p50 (peer)", value: fs.p50, unit: "ms" },
      ],
      details: { offload: ts, floor: fs },
    };
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function rss5mb(): BenchTable {
  const child = join(here, "proxy-rss-child.ts");
  const run = spawnSync(
    process.execPath,
    ["--expose-gc", "--conditions=source", "--import", "tsx", child, String(FIVE_MB)],
    { cwd: root, encoding: "utf8", maxBuffer: 1 << 20 },
  );
  if (run.status !== 0) throw new Error(`proxy rss child failed: ${run.stderr}`);
  const r = JSON.parse(run.stdout.trim().split("\n").pop() as string) as {
    offloaded: boolean;
    ms: number;
    resultBytes: number;
    rssBefore: number;
    peak: number;
  };
  const growth = Math.max(0, r.peak - r.rssBefore);
  const ratio = growth / r.resultBytes;
  return {
    name: "proxy-offload-5mb-rss",
    title: "atlatl-proxy: peak RSS growth offloading a 5 MB text result (fresh process)",
    rows: [
      atMost(
        "peak RSS growth / result size",
        ratio,
        "x",
        3,
        `${(growth / 1e6).toFixed(1)} MB for a ${(r.resultBytes / 1e6).toFixed(1)} MB result; ${r.ms.toFixed(0)} ms`,
      ),
    ],
    details: r,
  };
}

export const proxyBenchmark: Benchmark = {
  name: "proxy",
  async run() {
    return [await latency(), await offload5mb(), rss5mb()];
  },
};
