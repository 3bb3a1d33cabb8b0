/**
 * `atlatl serve --http` under load (issue 11), loopback only, bounded in time:
 *
 * 1. MCP `tools/call` of a narrow recall over HTTP (autocannon, 10 connections,
 *    {@link DURATION_S} s) in both protocol generations, each beside the same
 *    run's floor, a bare SDK 2.x server returning a constant that serves the
 *    generations the way atlatl does (`http-floor-child.ts`):
 *    - 2026-07-28 ("modern"): independent POSTs, no `initialize`, no session,
 *      the `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers and the
 *      `_meta` envelope (protocol version, client capabilities, client info);
 *    - 2025-11-25 ("legacy"): `initialize` once, then POSTs in that session.
 *    Targets for each: >= 70 % of its floor's throughput, p99 <= 25 ms.
 *    "Narrow": a recall whose every match fits inline (checked before the
 *    run), as an agent's pointed question is; a recall that offloads writes a
 *    file per call and is another measure. Beside it, the same server's
 *    cheapest tool (`get_memory`) splits the gap into the server's fixed cost
 *    per call and the recall's own work. The runs are interleaved (see
 *    `interleaved`). A server that does not answer 2026-07-28 gets its modern
 *    rows reported as not measured (the floor's still are). The same call over
 *    stdio (SDK 2.x client, sequential, each generation) is reported too.
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
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createServices, seedStore, toRecord } from "atlatl";
import { openSqliteStore } from "../../server/src/store/sqlite/open-sqlite.js";
import { atLeast, atMost, type Benchmark, type BenchRow, type BenchTable } from "./harness.js";
import {
  CONNECTIONS,
  DURATION_S,
  interleaved,
  type Load,
  shareOf,
  startProcess,
  stopProcess,
  targetRows,
  withP99,
} from "./http-load.js";
import {
  inlineRecords,
  LEGACY,
  legacyCalls,
  MODERN,
  modernCalls,
  modernResult,
} from "./mcp-http-requests.js";

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(here, "../../server/bin/atlatl.js");
const floorChild = join(here, "http-floor-child.ts");
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
/** The 2.x client pinned to 2026-07-28 (no fallback to `initialize`). */
const PIN_MODERN: ClientOptions = { versionNegotiation: { mode: { pin: MODERN } } };
/** The REST page of the bench (the route's default detail, light). */
const REST_PAGE = "/v1/memories?limit=50";
/** Milliseconds per in-process page peer. */
const IN_PROCESS_MS = 2000;

/** Fail unless {@link NARROW} answers inline (5 records) on 2025-11-25; returns one record's id. */
async function checkNarrow(base: string): Promise<string> {
  const client = new Client({ name: "bench-check", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  try {
    const r = await client.callTool({ name: "recall_memories", arguments: NARROW });
    const records = inlineRecords(r);
    if (records?.length !== NARROW.limit) {
      throw new Error(
        `the narrow recall is not a narrow inline page: ${JSON.stringify(r).slice(0, 200)}`,
      );
    }
    return (records[0] as { id: string }).id;
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
        const r = await client.callTool({
          name: "recall_memories",
          arguments: { query: "", limit: 500, detail: "full" },
        });
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

/**
 * The MCP runs: the narrow recall and `get_memory` in each generation, beside
 * the floor's constant tool in the same generation, interleaved. The modern
 * runs of atlatl only when it answers 2026-07-28 with the same inline page.
 */
async function mcpGenerations(
  base: string,
  floorBase: string,
  auth: Record<string, string>,
  someId: string,
) {
  const floorCheck = await modernResult(floorBase, {}, "constant", {});
  if (!floorCheck.result) throw new Error(`the floor does not answer ${MODERN}: ${floorCheck.why}`);
  const probe = await modernResult(base, auth, "recall_memories", NARROW);
  const records = probe.result && inlineRecords(probe.result);
  const modernWhy =
    records?.length === NARROW.limit
      ? undefined
      : (probe.why ?? `not the narrow inline page: ${JSON.stringify(probe.result).slice(0, 160)}`);
  const runs = [
    modernCalls(floorBase, {}, "constant", {}),
    await legacyCalls(floorBase, {}, "constant", {}),
    await legacyCalls(base, auth, "recall_memories", NARROW),
    await legacyCalls(base, auth, "get_memory", { id: someId }),
  ];
  if (modernWhy === undefined) {
    runs.push(
      modernCalls(base, auth, "recall_memories", NARROW),
      modernCalls(base, auth, "get_memory", { id: someId }),
    );
  }
  const [floorModern, floorLegacy, legacyRecall, legacyGet, modernRecall, modernGet] =
    (await interleaved(runs)) as [Load, Load, Load, Load, Load?, Load?];
  const target = { share: 70, p99: 25 };
  const modernRows: BenchRow[] =
    modernRecall && modernGet
      ? [
          ...targetRows(
            `MCP ${MODERN} tools/call narrow recall (no session), share of the SDK 2.x floor`,
            modernRecall,
            floorModern,
            target,
          ),
          getMemoryRow("modern", modernGet, floorModern),
        ]
      : [
          atLeast(
            `MCP ${MODERN} tools/call narrow recall (no session), share of the SDK 2.x floor`,
            Number.NaN,
            "%",
            target.share,
            `not measured: atlatl does not answer ${MODERN} (${modernWhy})`,
          ),
        ];
  const rows: BenchRow[] = [
    ...modernRows,
    ...targetRows(
      `MCP ${LEGACY} tools/call narrow recall (session), share of the SDK 2.x floor`,
      legacyRecall,
      floorLegacy,
      target,
    ),
    getMemoryRow("legacy", legacyGet, floorLegacy),
    {
      name: `floor: SDK 2.x ${MODERN} (a server per request) against its ${LEGACY} session`,
      value: shareOf(floorModern, floorLegacy),
      unit: "%",
      notes: `${floorModern.rps.toFixed(0)} vs ${floorLegacy.rps.toFixed(0)} req/s; p99 ${floorModern.p99} vs ${floorLegacy.p99} ms`,
    },
  ];
  return {
    rows,
    loads: { floorModern, floorLegacy, legacyRecall, legacyGet, modernRecall, modernGet },
  };
}

/** The `get_memory` peer of one generation. */
function getMemoryRow(era: "modern" | "legacy", l: Load, floor: Load): BenchRow {
  return {
    name: `peer: get_memory on the same server, ${era === "modern" ? MODERN : LEGACY}, share of its floor`,
    value: shareOf(l, floor),
    unit: "%",
    notes: `${l.rps.toFixed(0)} req/s, p99 ${l.p99} ms: the server's fixed cost per call; the rest of the gap is the recall's own work`,
  };
}

/** The narrow recall over stdio, one SDK 2.x client calling in sequence. */
async function overStdio(args: string[], env: Record<string, string>, options: ClientOptions) {
  const client = new Client({ name: "bench-stdio", version: "1" }, options);
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, env, stderr: "ignore" }),
  );
  try {
    const samples: number[] = [];
    for (let i = 0; i < 320; i++) {
      const start = performance.now();
      await client.callTool({ name: "recall_memories", arguments: NARROW });
      if (i >= 20) samples.push(performance.now() - start);
    }
    return withP99(samples);
  } finally {
    await client.close();
  }
}

/** The stdio row of one generation (or why it was not measured). */
function stdioRow(era: "modern" | "legacy", t: ReturnType<typeof withP99> | Error): BenchRow {
  const name = `same call over stdio (sequential SDK 2.x client, ${era === "modern" ? MODERN : LEGACY}), p50`;
  if (t instanceof Error) {
    return {
      name,
      value: Number.NaN,
      unit: "ms",
      notes: `not measured: ${t.message.slice(0, 160)}`,
    };
  }
  return {
    name,
    value: t.p50,
    unit: "ms",
    notes: `p99 ${t.p99.toFixed(2)} ms, ${(1000 / t.mean).toFixed(0)} calls/s serial`,
  };
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
    const mcp = await mcpGenerations(base, `http://127.0.0.1:${mcpFloor.port}`, auth, someId);
    const [floorRest, rest, restFresh, pagePeer] = (await interleaved([
      { url: `http://127.0.0.1:${honoFloor.port}${REST_PAGE}` },
      { url: `${base}${REST_PAGE}`, headers: auth },
      { url: `${base}${REST_PAGE}`, headers: { ...auth, "cache-control": "no-cache" } },
      { url: `http://127.0.0.1:${honoFloor.port}/page` },
    ])) as [Load, Load, Load, Load];
    const built = await inProcessPage(dbPath);
    const sessions = await manySessions(base);

    const stdioArgs = [bin, "serve", "--db", dbPath, "--output-dir", join(dir, "offload-stdio")];
    const stdioLegacy = await overStdio(stdioArgs, env, {});
    const stdioModern = await overStdio(stdioArgs, env, PIN_MODERN).catch((e: Error) => e);
    const share = (l: Load) => shareOf(l, floorRest);
    const fmt = (l: Load) =>
      `${l.rps.toFixed(0)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, ${l.requests} requests, ${l.errors} errors, ${l.non2xx} non-2xx`;
    return [
      {
        name: "server-http",
        title: `atlatl serve --http, loopback, autocannon ${CONNECTIONS} connections x ${DURATION_S} s (2,000-memory store)`,
        rows: [
          ...mcp.rows,
          stdioRow("legacy", stdioLegacy),
          stdioRow("modern", stdioModern),
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
          mcp: Object.fromEntries(
            Object.entries(mcp.loads).map(([k, l]) => [
              k,
              l === undefined ? "not measured" : fmt(l),
            ]),
          ),
          rest: {
            atlatl: fmt(rest),
            uncached: fmt(restFresh),
            floor: fmt(floorRest),
            pagePeer: fmt(pagePeer),
            inProcess: built,
          },
          stdio: {
            legacy: stdioLegacy,
            modern: stdioModern instanceof Error ? stdioModern.message : stdioModern,
          },
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
