/**
 * `inject_context` judges its pre-budget set, the top `limit` hits (it has no
 * cursor, so `limit` is not a page size there): that set is what is written
 * and described, and when the write fails the warning describes exactly the
 * answer returned beside it.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LroEvent, LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import { Client } from "@modelcontextprotocol/client";
import { type CallToolResult, InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { createAtlatlServer } from "../../src/mcp/create-server.js";
import { createServices } from "../../src/services/create-services.js";
import { BACKENDS } from "../backends/backends.js";
import { testClock } from "../services/helpers.js";
import { makeMemory } from "../store/fixtures.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** atlatl over the SDK's in-memory transport, 22 long memories matching "beacon". */
async function connect(outputDir: (dir: string) => string) {
  const backend = BACKENDS[0];
  if (!backend) throw new Error("no backend");
  const store = await backend.open();
  const dir = mkdtempSync(join(tmpdir(), "atlatl-inject-limit-"));
  const seen: LroEvent[] = [];
  const events = new LroEvents({ sink: null });
  events.on("*", (e) => seen.push(e));
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: 300, ttlSeconds: 3600, outputDir: outputDir(dir) },
    events,
  });
  const atlatl = createAtlatlServer({
    services: createServices(store, { now: testClock().now }),
    offloader,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "inject-limit-test", version: "1.0.0" });
  await Promise.all([atlatl.server.connect(a), client.connect(b)]);
  await store.upsertMany(
    Array.from({ length: 22 }, (_, i) =>
      makeMemory({ content: `beacon ${i} ${"signal fire on the hill ".repeat(12)}` }),
    ),
  );
  cleanups.push(async () => {
    await client.close();
    await atlatl.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { client, dir, seen };
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe("inject_context: the pre-budget set is the top `limit` hits", () => {
  it("limit 3 writes a file of 3 and describes 3", async () => {
    const { client } = await connect((dir) => dir);
    const r = (await client.callTool({
      name: "inject_context",
      arguments: { query: "beacon", limit: 3 },
    })) as CallToolResult;
    const descriptor = JSON.parse(textOf(r));
    expect(descriptor.summary).toMatchObject({ operation: "inject", count: 3 });
    const lines = readFileSync(descriptor.file_path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(1 + 3);
  });

  it("when the write fails, the warning describes exactly the answer returned", async () => {
    const { client, seen } = await connect((dir) => {
      // A symlinked output directory is refused: the write fails.
      const link = join(dir, "link");
      symlinkSync(dir, link);
      return link;
    });
    const r = (await client.callTool({
      name: "inject_context",
      arguments: { query: "beacon", limit: 3 },
    })) as CallToolResult;
    const text = textOf(r);
    expect(seen.map((e) => e.type)).toEqual(["OffloadWriteFailed"]);
    const [answer, warning] = text.split("\n\n> Warning: ") as [string, string];
    expect(answer.startsWith("# Relevant memories")).toBe(true);
    expect(answer.match(/^## Memory /gm)?.length ?? 0).toBeLessThanOrEqual(3);
    // The warning counts what is returned (characters of this answer), not records of another set.
    const m = /(\d+) of (\d+) characters/.exec(warning);
    expect(m).not.toBeNull();
    expect(Number(m?.[1])).toBe(answer.length);
    expect(warning).not.toMatch(/\d+ of \d+ records/);
    expect(Math.ceil(text.length / 4)).toBeLessThanOrEqual(300);
  });
});
