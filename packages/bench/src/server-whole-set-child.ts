/**
 * Child process of the `server-whole-set` benchmark: the real `recall_memories`
 * tool (SDK Client over an in-memory transport, atlatl's MCP server, SQLite)
 * recalls every memory of a seeded database at light detail and offloads the
 * whole set. Reports the call's wall and CPU time and this process's peak RSS
 * growth during it, then, in the same process, the floors: the store's raw one-pass
 * read of the same hits (whole memories, and the light fields the tool reads),
 * and the light read plus projecting and serializing each record (everything
 * but estimate, write and describe). One JSON line on stdout.
 * Run with `--expose-gc`; peak RSS as in `lro-engine-rss-child.ts`.
 */
import { rmSync, statSync } from "node:fs";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { createServices, toRecord } from "atlatl";
import { createAtlatlServer } from "../../server/src/mcp/create-server.js";
import { RECALL_SCORING_NO_TEXT } from "../../server/src/services/recall-service.js";
import { openSqliteStore } from "../../server/src/store/sqlite/open-sqlite.js";
import { measurePeak } from "./peak-rss.js";

const [dbPath, outputDir] = process.argv.slice(2) as [string, string];
const store = await openSqliteStore({ path: dbPath });
const offloader = new Offloader({
  config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir },
  events: new LroEvents({ sink: null }),
});
const app = createAtlatlServer({ services: createServices(store), offloader });
const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: "bench", version: "0" });
await Promise.all([app.server.connect(serverSide), client.connect(clientSide)]);

async function recallEverything(): Promise<{ file_path: string; summary: { count: number } }> {
  const r = await client.callTool({
    name: "recall_memories",
    arguments: { query: "", status: "any", limit: 20, detail: "light" },
  });
  const first = r.content[0];
  const body = JSON.parse(first?.type === "text" ? first.text : "{}");
  if (!body.offloaded)
    throw new Error(`expected an offload: ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

// Warm-up: page cache, statement cache and JIT, as in a server that has been serving.
rmSync((await recallEverything()).file_path, { force: true });

/**
 * One measured call. Peak RSS depends on when V8's background GC threads get
 * to run (on a busy host they lag), so the parent takes the median of RUNS.
 */
async function measured(): Promise<{
  ms: number;
  cpuMs: number;
  growth: number;
  bytes: number;
  count: number;
}> {
  const m = await measurePeak(recallEverything);
  const d = m.value;
  const bytes = statSync(d.file_path).size;
  rmSync(d.file_path, { force: true });
  return { ms: m.ms, cpuMs: m.cpuMs, growth: m.growth, bytes, count: d.summary.count };
}

const scoring = { ...RECALL_SCORING_NO_TEXT, asOf: Date.now() };
const filter = { status: "any" as const };

/**
 * The floor: the store's raw one-pass read of the same hits, nothing done with
 * them: whole memories (`full`), or the light fields the tool reads (`light`).
 */
async function rawRead(fields: "full" | "light" = "full"): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  for await (const _ of store.rankAll({ text: "", scoring, filter, fields })) n++;
  if (n === 0) throw new Error("the floor read nothing");
  return performance.now() - t0;
}

// Floor and tool call interleaved run by run: on a busy host the machine's
// speed drifts by multiples within a minute, and only neighbours compare.
const RUNS = 3;
const runs = [];
for (let i = 0; i < RUNS; i++) {
  const readMs = await rawRead();
  const lightReadMs = await rawRead("light");
  runs.push({ ...(await measured()), readMs, lightReadMs });
}

// The second floor: light read + project + serialize each record (all but estimate, write, describe).
const t0 = performance.now();
let chars = 0;
for await (const h of store.rankAll({ text: "", scoring, filter, fields: "light" })) {
  chars += JSON.stringify(toRecord(h.memory, "light")).length;
}
const serializeMs = performance.now() - t0;
const readMs = await rawRead();

await client.close();
await app.close();
await store.close();
process.stdout.write(`${JSON.stringify({ runs, readMs, serializeMs, chars })}\n`);
