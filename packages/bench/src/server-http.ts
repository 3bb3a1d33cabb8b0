/**
 * `atlatl serve --http` under load (issue 11), loopback only, bounded in time:
 *
 * 1. MCP `tools/call` of a narrow recall over HTTP on a warm session (autocannon,
 *    10 connections, {@link DURATION_S} s) beside the floor, a minimal SDK server
 *    over the same transport returning a constant, in the same run. Targets:
 *    >= 70 % of the floor's throughput, p99 <= 25 ms. "Narrow": a recall whose
 *    every match fits inline (checked before the run), as an agent's pointed
 *    question is; a recall that offloads writes a file per call and is another
 *    measure. Beside it, the same server's cheapest tool (`get_memory`) splits
 *    the gap into the server's fixed cost per call and the recall's own work.
 *    The three runs are interleaved (see `interleaved`). The same call over
 *    stdio (SDK client, sequential) is reported too.
 * 2. `GET /v1/memories?limit=50` beside a bare Hono route returning a constant
 *    (the runs of this part interleaved, see `interleaved`).
 *    Targets: >= 50 % of the floor, p99 <= 15 ms. The page is served from the
 *    server's page cache after the first request (no write happens), so the
 *    same request with `Cache-Control: no-cache` (a fresh store read each
 *    time) is reported beside it, with peers that split the rest: a bare
 *    Hono route returning a constant as large as the page (moving the bytes)
 *    and the page built in this process without HTTP (store read, then
 *    records and JSON).
 * 3. 100 concurrent sessions, each offloading a recall of every memory (LRO
 *    judges the whole result set, so the file holds every match, ~1,800
 *    records, not a `limit` page of 500): every file distinct and valid,
 *    0 errors, p99 reported.
 *
 * Every server is its own process, like the server under test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createServices, seedStore, toRecord } from "atlatl";
import autocannon from "autocannon";
import { openSqliteStore } from "../../server/src/store/sqlite/open-sqlite.js";
import {
  atLeast,
  atMost,
  type Benchmark,
  type BenchRow,
  type BenchTable,
  summarize,
} from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(here, "../../server/bin/atlatl.js");
const floorChild = join(here, "http-floor-child.ts");
/** Seconds per autocannon run (the 30 s; shorter while iterating). */
export const DURATION_S = Number(process.env.ATLATL_BENCH_HTTP_SECONDS ?? 30);
const CONNECTIONS = 10;
const SESSIONS = 100;
const TOKEN = "bench-token";
/** Memories in the bench store. */
const MEMORIES = 2000;
/**
 * A pointed recall: 6 of the 2,000 memories match (5 inline, `total` 6, a
 * cursor). A bare "rollback runbook" matches 271, whose light records (~20k
 * tokens) are offloaded: the whole set is judged, not the page.
 */
const NARROW = {
  query: "kafka upgrade",
  namespace: "_episodic/sessions/dynamo",
  tags: ["messaging"],
  limit: 5,
};
const MCP_ACCEPT = "application/json, text/event-stream";
/** The REST page of the bench (the route's default detail, light). */
const REST_PAGE = "/v1/memories?limit=50";
/** Milliseconds per in-process page peer. */
const IN_PROCESS_MS = 2000;

/** Spawn a server process and wait for the port it prints (stderr or stdout). */
function startProcess(
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`no port printed: ${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = pattern.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolvePort({ child, port: Number(m[1]) });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/** Initialize a session by hand (the session id is all autocannon needs). */
async function openSession(base: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", accept: MCP_ACCEPT },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }),
  });
  await res.text();
  const sid = res.headers.get("mcp-session-id");
  if (!sid) throw new Error(`no session: ${res.status}`);
  await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      ...headers,
      "mcp-session-id": sid,
      "content-type": "application/json",
      accept: MCP_ACCEPT,
    },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  }).then((r) => r.text());
  return sid;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

/** Seconds of unmeasured load first: every server is measured warm (JIT, caches), the floors too. */
const WARMUP_S = 3;

async function load(opts: autocannon.Options, warm = true): Promise<Load> {
  if (warm) await autocannon({ connections: CONNECTIONS, ...opts, duration: WARMUP_S });
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    requests: r.requests.total,
  };
}

/**
 * Each of `runs` for half the duration, in order and then in reverse
 * (A B C C B A): a drift in the shared machine's load falls on every run
 * alike, so their ratios hold. Halves merge by requests over time; p99 is
 * the worse half's.
 */
async function interleaved(runs: autocannon.Options[]): Promise<Load[]> {
  const half = (o: autocannon.Options, warm: boolean) =>
    load({ ...o, duration: DURATION_S / 2 }, warm);
  const first: Load[] = [];
  for (const o of runs) first.push(await half(o, true));
  const second: Load[] = [];
  for (const o of [...runs].reverse()) second.unshift(await half(o, false));
  return first.map((a, i) => {
    const b = second[i] as Load;
    return {
      rps: (a.rps + b.rps) / 2,
      p50: Math.max(a.p50, b.p50),
      p99: Math.max(a.p99, b.p99),
      errors: a.errors + b.errors,
      non2xx: a.non2xx + b.non2xx,
      requests: a.requests + b.requests,
    };
  });
}

/** autocannon options for `tools/call` in one session, a fresh JSON-RPC id per request. */
async function mcpCalls(
  base: string,
  auth: Record<string, string>,
  tool: string,
  args: object,
): Promise<autocannon.Options> {
  const sid = await openSession(base, auth);
  let id = 1;
  return {
    url: `${base}/mcp`,
    method: "POST",
    headers: {
      ...auth,
      "mcp-session-id": sid,
      "content-type": "application/json",
      accept: MCP_ACCEPT,
    },
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: id++,
            method: "tools/call",
            params: { name: tool, arguments: args },
          }),
        }),
      },
    ],
  };
}

/** Fail unless {@link NARROW} answers inline (5 records); returns one record's id. */
async function checkNarrow(base: string): Promise<string> {
  const client = new Client({ name: "bench-check", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  try {
    const r = (await client.callTool({
      name: "recall_memories",
      arguments: NARROW,
    })) as CallToolResult;
    const body = JSON.parse((r.content[0] as { text: string }).text);
    if (body.offloaded || body.records?.length !== NARROW.limit) {
      throw new Error(
        `the narrow recall is not a narrow inline page: ${JSON.stringify(body).slice(0, 200)}`,
      );
    }
    return body.records[0].id as string;
  } finally {
    await client.close();
  }
}

async function manySessions(base: string) {
  const clients = await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const client = new Client({ name: "bench-session", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      return client;
    }),
  );
  const samples: number[] = [];
  let errors = 0;
  const files = await Promise.all(
    clients.map(async (client) => {
      const start = performance.now();
      try {
        const r = (await client.callTool({
          name: "recall_memories",
          arguments: { query: "", limit: 500, detail: "full" },
        })) as CallToolResult;
        samples.push(performance.now() - start);
        const body = JSON.parse((r.content[0] as { text: string }).text);
        if (!body.offloaded) throw new Error("not offloaded");
        const lines = readFileSync(body.file_path, "utf8").trimEnd().split("\n");
        const header = JSON.parse(lines[0] as string);
        // Every match of the recall (the whole set), at least the 500 records.
        if (header.count < 500 || lines.length !== header.count + 1)
          throw new Error("invalid file");
        for (const l of lines.slice(1)) JSON.parse(l);
        return body.file_path as string;
      } catch {
        errors++;
        return undefined;
      }
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  const valid = files.filter((f): f is string => f !== undefined);
  return { timing: withP99(samples), errors, distinct: new Set(valid).size, valid: valid.length };
}

/** `l`'s throughput as a percentage of `floor`'s. */
function shareOf(l: Load, floor: Load): number {
  return (l.rps / floor.rps) * 100;
}

/** The three rows for a measure: share of its floor, p99, and no errors. */
function targetRows(
  name: string,
  l: Load,
  floor: Load,
  targets: { share: number; p99: number },
): BenchRow[] {
  return [
    atLeast(
      name,
      shareOf(l, floor),
      "%",
      targets.share,
      `atlatl ${l.rps.toFixed(0)} vs floor ${floor.rps.toFixed(0)} req/s`,
    ),
    atMost("same, p99", l.p99, "ms", targets.p99),
    atMost("same, errors + non-2xx", l.errors + l.non2xx, "", 0),
  ];
}

/** p50/p95/mean of `samples` plus their p99 (the harness's summary stops at p95). */
function withP99(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const p99 =
    sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
  return { ...summarize(samples), p99 };
}

/** Pages per second of `build`, run back to back for {@link IN_PROCESS_MS} after a warm-up. */
async function rate(build: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await build();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < IN_PROCESS_MS) {
    await build();
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}

/**
 * The REST list page built in this process over the same database, no HTTP:
 * the store read alone, then with records and JSON as the route makes them.
 */
async function inProcessPage(dbPath: string) {
  const store = await openSqliteStore({ path: dbPath, readOnly: true });
  try {
    const services = createServices(store);
    const page = () => services.list.page({ limit: 50 }, "light");
    const readOnly = await rate(page);
    const withJson = await rate(async () => {
      const { memories, more } = await page();
      const items = memories.map((m) => toRecord(m, "light"));
      return JSON.stringify({ items, limit: 50, offset: 0, next_offset: more ? 50 : null });
    });
    return { readOnly, withJson };
  } finally {
    await store.close();
  }
}

async function run(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-http-"));
  const dbPath = join(dir, "atlatl.db");
  const children: ChildProcess[] = [];
  try {
    const store = await openSqliteStore({ path: dbPath });
    await seedStore(store, { count: MEMORIES, seed: 7 });
    await store.close();
    const env = {
      ...(process.env as Record<string, string>),
      ATLATL_CONFIG: "",
      ATLATL_LOG_LEVEL: "warn",
      ATLATL_SERVER__HTTP__TOKENS: TOKEN,
      // 100 sessions call at once with one token: above the default per-token limits.
      ATLATL_SERVER__HTTP__MAX_CONCURRENT: String(SESSIONS * 2),
      ATLATL_SERVER__HTTP__MAX_SESSIONS_PER_TOKEN: String(SESSIONS * 2),
      ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(dir, "offload"),
    };
    const atlatl = await startProcess(
      [bin, "--db", dbPath, "serve", "--http", "--port", "0"],
      env,
      /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    );
    children.push(atlatl.child);
    const floorArgs = (kind: string) => [...process.execArgv, floorChild, kind];
    const mcpFloor = await startProcess(floorArgs("mcp"), env, /PORT (\d+)/);
    children.push(mcpFloor.child);
    const base = `http://127.0.0.1:${atlatl.port}`;
    const auth = { authorization: `Bearer ${TOKEN}` };
    // The page's bytes, for the peer returning a constant as large.
    const pageFile = join(dir, "page.json");
    writeFileSync(
      pageFile,
      await fetch(`${base}${REST_PAGE}`, { headers: auth }).then((r) => r.text()),
    );
    const honoFloor = await startProcess([...floorArgs("hono"), pageFile], env, /PORT (\d+)/);
    children.push(honoFloor.child);

    const someId = await checkNarrow(base);
    const [floorMcp, httpMcp, httpGet] = (await interleaved([
      await mcpCalls(`http://127.0.0.1:${mcpFloor.port}`, {}, "constant", {}),
      await mcpCalls(base, auth, "recall_memories", NARROW),
      await mcpCalls(base, auth, "get_memory", { id: someId }),
    ])) as [Load, Load, Load];
    const [floorRest, rest, restFresh, pagePeer] = (await interleaved([
      { url: `http://127.0.0.1:${honoFloor.port}${REST_PAGE}` },
      { url: `${base}${REST_PAGE}`, headers: auth },
      { url: `${base}${REST_PAGE}`, headers: { ...auth, "cache-control": "no-cache" } },
      { url: `http://127.0.0.1:${honoFloor.port}/page` },
    ])) as [Load, Load, Load, Load];
    const built = await inProcessPage(dbPath);
    const sessions = await manySessions(base);

    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "serve", "--db", dbPath, "--output-dir", join(dir, "offload-stdio")],
      env,
      stderr: "ignore",
    });
    const client = new Client({ name: "bench-stdio", version: "1" });
    await client.connect(stdio);
    const stdioSamples: number[] = [];
    for (let i = 0; i < 320; i++) {
      const start = performance.now();
      await client.callTool({ name: "recall_memories", arguments: NARROW });
      if (i >= 20) stdioSamples.push(performance.now() - start);
    }
    const overStdio = withP99(stdioSamples);
    await client.close();

    const share = (l: Load) => shareOf(l, floorRest);
    const fmt = (l: Load) =>
      `${l.rps.toFixed(0)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, ${l.requests} requests, ${l.errors} errors, ${l.non2xx} non-2xx`;
    return [
      {
        name: "server-http",
        title: `atlatl serve --http, loopback, autocannon ${CONNECTIONS} connections x ${DURATION_S} s (2,000-memory store)`,
        rows: [
          ...targetRows(
            "MCP tools/call narrow recall over HTTP, share of the SDK floor",
            httpMcp,
            floorMcp,
            { share: 70, p99: 25 },
          ),
          {
            name: "peer: get_memory on the same server, share of the SDK floor",
            value: shareOf(httpGet, floorMcp),
            unit: "%",
            notes: `${httpGet.rps.toFixed(0)} req/s, p99 ${httpGet.p99} ms: the server's fixed cost per call; the rest of the gap is the recall's own work`,
          },
          {
            name: "same call over stdio (sequential SDK client), p50",
            value: overStdio.p50,
            unit: "ms",
            notes: `p99 ${overStdio.p99.toFixed(2)} ms, ${(1000 / overStdio.mean).toFixed(0)} calls/s serial`,
          },
          ...targetRows("GET /v1/memories?limit=50, share of a bare Hono route", rest, floorRest, {
            share: 50,
            p99: 15,
          }),
          {
            name: "same, uncached (Cache-Control: no-cache: a store read per request), share",
            value: share(restFresh),
            unit: "%",
            notes: `${restFresh.rps.toFixed(0)} req/s, p99 ${restFresh.p99} ms, ${restFresh.errors + restFresh.non2xx} errors + non-2xx`,
          },
          {
            name: "peer: bare Hono route returning a constant as large as the page, share",
            value: share(pagePeer),
            unit: "%",
            notes: `${readFileSync(pageFile).byteLength} bytes, ${pagePeer.rps.toFixed(0)} req/s`,
          },
          {
            name: "peer: the page read in process, no HTTP (ListService.page, light)",
            value: built.readOnly,
            unit: "pages/s",
            notes: `${(1e6 / built.readOnly).toFixed(0)} us a page`,
          },
          {
            name: "peer: same + records + JSON.stringify (what an uncached request builds)",
            value: built.withJson,
            unit: "pages/s",
            notes: `${(1e6 / built.withJson).toFixed(0)} us a page; at the uncached rate that is ${((restFresh.rps / built.withJson) * 100).toFixed(0)} % of the server's time`,
          },
          atMost(
            `${SESSIONS} sessions offloading a whole-set recall (every memory) at once: errors`,
            sessions.errors,
            "",
            0,
          ),
          atLeast("same: distinct valid files", sessions.distinct, "", SESSIONS),
          {
            name: "same, p99",
            value: sessions.timing.p99,
            unit: "ms",
            notes: `p50 ${sessions.timing.p50.toFixed(0)} ms`,
          },
        ],
        details: {
          mcp: { atlatl: fmt(httpMcp), getMemory: fmt(httpGet), floor: fmt(floorMcp) },
          rest: {
            atlatl: fmt(rest),
            uncached: fmt(restFresh),
            floor: fmt(floorRest),
            pagePeer: fmt(pagePeer),
            inProcess: built,
          },
          stdio: overStdio,
          sessions,
        },
      },
    ];
  } finally {
    for (const c of children) await stopProcess(c).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

export const serverHttpBenchmark: Benchmark = { name: "server-http", run };
