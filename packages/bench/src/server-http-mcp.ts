/**
 * The MCP part of the server-http benchmark: the narrow recall (and
 * `get_memory`) over HTTP in both protocol generations beside the SDK 2.x
 * floor of each, and over stdio with the SDK 2.x client in each.
 */
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { atLeast, type BenchRow } from "./harness.js";
import { interleaved, type Load, shareOf, targetRows, withP99 } from "./http-load.js";
import {
  inlineRecords,
  LEGACY,
  legacyCalls,
  MODERN,
  modernCalls,
  modernResult,
} from "./mcp-http-requests.js";

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
export const PIN_MODERN: ClientOptions = { versionNegotiation: { mode: { pin: MODERN } } };
/** Fail unless {@link NARROW} answers inline (5 records) on 2025-11-25; returns one record's id. */
export async function checkNarrow(base: string, auth: Record<string, string>): Promise<string> {
  const client = new Client({ name: "bench-check", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: auth },
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

/**
 * The MCP runs: the narrow recall and `get_memory` in each generation, beside
 * the floor's constant tool in the same generation, interleaved. The modern
 * runs of atlatl only when it answers 2026-07-28 with the same inline page.
 */
export async function mcpGenerations(
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
export async function overStdio(
  args: string[],
  env: Record<string, string>,
  options: ClientOptions,
) {
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
export function stdioRow(
  era: "modern" | "legacy",
  t: ReturnType<typeof withP99> | Error,
): BenchRow {
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
