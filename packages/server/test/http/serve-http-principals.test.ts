/**
 * One token's work stays its own over HTTP (issue 18, items 5 and 9; issue 21):
 * LRO events reach only the sessions of the principal (token) whose call caused
 * them, a failure without a path included; and a flood of runaway jq filters from one token does not
 * make another token's harmless `lro_extract` calls BUSY. A real process,
 * SDK clients over Streamable HTTP; outcomes, not timings.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalDir, tokenPrincipal } from "../../src/http/mcp/principals.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const A = "principal-token-a";
const B = "principal-token-b";
const RUNAWAY = "def f: f; f";

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const recall = async (c: Client) =>
  (await c.callTool({
    name: "recall_memories",
    arguments: { query: "", limit: 300, detail: "full" },
  })) as CallToolResult;
const extract = async (c: Client, file_path: string, query: string) =>
  (await c.callTool({
    name: "lro_extract",
    arguments: { file_path, query, limit: 1 },
  })) as CallToolResult;
const codeOf = (r: CallToolResult) =>
  r.isError ? (/^([A-Z_]+)/.exec(text(r))?.[1] ?? "ERROR") : "ok";

describe("atlatl serve --http: one token's work is its own", () => {
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({ tokens: `${A},${B}`, seed: 600 });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("sends an OffloadWriteFailed without a path only to the token whose call failed", async () => {
    const [a, b] = await Promise.all([s.connect({ token: A }), s.connect({ token: B })]);
    const seenA: { data: { type: string; path: string | null; error: string } }[] = [];
    const seenB: { data: { type: string; error?: string } }[] = [];
    a.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seenA.push(n.params as never);
    });
    b.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seenB.push(n.params as never);
    });
    await a.setLoggingLevel("debug");
    await b.setLoggingLevel("debug");
    // A's directory cannot be created: a file stands where it would be.
    const dirA = principalDir(s.outputDir, tokenPrincipal(A));
    mkdirSync(dirname(dirA), { recursive: true });
    writeFileSync(dirA, "not a directory");

    const failed = JSON.parse(text(await recall(a)));
    expect(failed.truncated).toBe(true);
    await expect
      .poll(() => seenA.filter((m) => m.data.type === "OffloadWriteFailed").length)
      .toBeGreaterThan(0);
    const event = seenA.find((m) => m.data.type === "OffloadWriteFailed");
    expect(event?.data.path).toBeNull();
    expect(event?.data.error).toContain(dirA);
    // B's own work goes on, and it never hears of A's failure.
    expect(JSON.parse(text(await recall(b))).offloaded).toBe(true);
    await expect.poll(() => seenB.some((m) => m.data.type === "OffloadCreated")).toBe(true);
    expect(seenB.filter((m) => m.data.type === "OffloadWriteFailed")).toEqual([]);
    expect(JSON.stringify(seenB)).not.toContain(dirA);
    rmSync(dirA);
  });

  it("answers another token's harmless lro_extract calls while one token floods runaway filters", async () => {
    const [a, b] = await Promise.all([s.connect({ token: A }), s.connect({ token: B })]);
    const fileA = JSON.parse(text(await recall(a))).file_path as string;
    const fileB = JSON.parse(text(await recall(b))).file_path as string;
    // More runaways than the engine lets one principal hold or queue (some wait
    // in A's line): the first answer to come back is BUSY (a runaway stopped
    // for those waiting), so the flood is in place.
    const flood = Array.from({ length: 24 }, () => extract(a, fileA, RUNAWAY));
    const first = await Promise.race(flood);
    expect(codeOf(first)).toBe("BUSY");

    const harmless = await Promise.all(Array.from({ length: 5 }, () => extract(b, fileB, ".id")));
    expect(harmless.map(codeOf)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    for (const r of harmless) expect(text(r)).toMatch(/^"[^"]+"\n$/);
    // A's flood ends in refusals and stops, not in results.
    const outcomes = (await Promise.all(flood)).map(codeOf);
    expect(outcomes).not.toContain("ok");
  }, 120_000);
});
