/**
 * Files written through the library are cleaned up by default: a library
 * user's server (an `McpServer` with `withOffload`) whose files have a short
 * TTL sees its file deleted by the offloader's background sweeper, with an
 * `OffloadFileExpired` event; `sweep: false` keeps the files for the
 * application to sweep; offloaders built per request share one sweeper; and
 * the sweeper's timer never keeps a process alive.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { afterEach, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type LroEvent,
  LroEvents,
  type RecordsOffloadResponse,
  recordsProfile,
} from "../src/index.js";
import { withOffload } from "../src/mcp.js";
import { Offloader } from "../src/node.js";
import { tempDir } from "./fixtures/helpers.js";

const here = dirname(fileURLToPath(import.meta.url));

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** A user's server: `find` returns 100 records through `withOffload`, files living 1 s. */
async function userServer(sweep: boolean | undefined) {
  const t = tempDir("lro-user-");
  cleanups.push(t.cleanup);
  const events = new LroEvents({ sink: null });
  const seen: LroEvent[] = [];
  events.on("*", (e) => seen.push(e));
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: 50, ttlSeconds: 1, outputDir: t.dir },
    events,
    ...(sweep === undefined ? {} : { sweep }),
  });
  cleanups.push(() => offloader.stopSweeping());
  const server = new McpServer({ name: "user", version: "1.0.0" });
  server.registerTool(
    "find",
    { inputSchema: z.object({ q: z.string() }) },
    withOffload({ offloader })(async ({ q }: { q: string }) => ({
      operation: "find",
      query: q,
      profile: "records" as const,
      records: Array.from({ length: 100 }, (_, i) => ({ id: `${q}-${i}` })),
    })),
  );
  const client = new Client({ name: "c", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  cleanups.push(() => client.close());
  const find = async (q: string): Promise<string> => {
    const r = (await client.callTool({ name: "find", arguments: { q } })) as {
      content: { text?: string }[];
    };
    const d = JSON.parse(r.content[0]?.text ?? "{}") as RecordsOffloadResponse;
    expect(d.offloaded).toBe(true);
    return d.file_path;
  };
  return { events, seen, find };
}

it("deletes a library user's expired file by default, with OffloadFileExpired; sweep: false keeps it", async () => {
  const kept = await userServer(false);
  const swept = await userServer(undefined);
  // The opted-out file is the older one: expired whenever the other is.
  const keptPath = await kept.find("old");
  const expired = new Promise<LroEvent>((resolve) =>
    swept.events.on("OffloadFileExpired", resolve),
  );
  const path = await swept.find("new");
  expect(existsSync(path)).toBe(true);

  expect(await expired).toMatchObject({ path, operation: "find", reason: "expired" });
  expect(existsSync(path)).toBe(false);
  expect(existsSync(keptPath)).toBe(true);
  expect(kept.seen.map((e) => e.type)).not.toContain("OffloadFileExpired");
  expect(kept.seen.map((e) => e.type)).not.toContain("OffloadSweepCompleted");
});

it("offloaders of one directory (one per request, say) share one background sweeper", async () => {
  const t = tempDir("lro-per-request-");
  cleanups.push(t.cleanup);
  const intervals = vi.spyOn(globalThis, "setInterval");
  const cleared = vi.spyOn(globalThis, "clearInterval");
  cleanups.push(() => {
    intervals.mockRestore();
    cleared.mockRestore();
  });
  const offloaders = Array.from(
    { length: 20 },
    () =>
      new Offloader({
        config: { enabled: true, thresholdTokens: 50, ttlSeconds: 3600, outputDir: t.dir },
        events: new LroEvents({ sink: null }),
      }),
  );
  for (const [i, offloader] of offloaders.entries()) {
    const outcome = await offloader.offloadRecords({
      operation: "find",
      profile: recordsProfile,
      records: Array.from({ length: 100 }, (_, n) => ({ id: `${i}-${n}` })),
    });
    expect(outcome.kind).toBe("offloaded");
  }
  expect(intervals).toHaveBeenCalledOnce();
  const timer = intervals.mock.results[0]?.value;
  for (const offloader of offloaders.slice(1)) offloader.stopSweeping();
  expect(cleared).not.toHaveBeenCalledWith(timer);
  offloaders[0]?.stopSweeping();
  expect(cleared).toHaveBeenCalledWith(timer);
});

it("the background sweeper's timer does not keep a process alive", async () => {
  const t = tempDir("lro-child-");
  cleanups.push(t.cleanup);
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", join(here, "fixtures/sweeping-child.ts"), t.dir],
    { cwd: resolve(here, ".."), stdio: ["ignore", "pipe", "inherit"] },
  );
  cleanups.push(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const code = await new Promise<number | null>((done) => child.on("exit", done));
  expect(code).toBe(0);
  expect(JSON.parse(out)).toMatchObject({ kind: "offloaded" });
});
