/**
 * Hostile upstreams (issue 18, items 1, 2 and 8; issue 29, item 9): a stdio line
 * longer than V8's longest string, a result nested deeper than JSON.stringify
 * can go, an SSE event and a JSON body that never end, and a URL whose query and
 * userinfo hold secrets. The call gets a clear coded error (the deep result is
 * cut at the bound, with a warning), the same session goes on, the proxy's
 * memory stays within the bound, and no message shows the secrets.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MESSAGE_TOO_LARGE } from "@atlatl/lro/node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { DEEP_CUT_MARKER, MAX_RESULT_DEPTH } from "../src/proxy/result-depth.js";
import { MAX_MESSAGE_BYTES } from "../src/upstream/message-bound.js";
import { FIXTURES, type Peer, PROXY_MAIN, proxied, tempDir } from "./helpers.js";

const out = tempDir("atlatl-proxy-hostile-");
const children: ChildProcess[] = [];
const peers: Peer[] = [];

afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
  for (const c of children) c.kill();
  out.remove();
});

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (err) {
    return err as McpError;
  }
  throw new Error("expected a rejection");
}

/** The proxy process's peak resident memory, in bytes (Linux). */
function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmHWM for process ${pid}`);
  return Number(m[1]) * 1024;
}

/** A response over the bound fails its call with MESSAGE_TOO_LARGE naming the bound. */
function expectTooLarge(err: McpError): void {
  expect(err.code).toBe(MESSAGE_TOO_LARGE);
  expect(err.message).toContain("MESSAGE_TOO_LARGE");
  expect(err.message).toContain(`exceeds ${MAX_MESSAGE_BYTES} bytes`);
  expect(err.data).toEqual({ code: "MESSAGE_TOO_LARGE", max_message_bytes: MAX_MESSAGE_BYTES });
}

/** The proxy held at most the bound once, plus the runtime (not the 520 MiB sent). */
const PEAK_RSS_LIMIT = MAX_MESSAGE_BYTES + 512 * 1024 * 1024;

describe("a stdio upstream sending a line longer than V8's longest string", () => {
  it("fails that call with MESSAGE_TOO_LARGE and the session goes on", async () => {
    const p = await proxied([join(FIXTURES, "faulty-server.mjs")], ["--output-dir", out.dir]);
    peers.push(p);
    // 520 MiB: over 2^29 - 24 characters, which no string can hold.
    const err = await rejection(
      p.client.callTool({ name: "long-line", arguments: { mib: 520 } }, undefined, {
        timeout: 120_000,
      }),
    );
    expectTooLarge(err);
    const r = await p.client.callTool({ name: "echo", arguments: { after: "the long line" } });
    expect(r.content).toEqual([{ type: "text", text: '{"after":"the long line"}' }]);
    expect(peakRss(p.transport.pid as number)).toBeLessThan(PEAK_RSS_LIMIT);
  }, 180_000);
});

describe("a stdio upstream sending a result nested 10,000 deep", () => {
  /** The arrays of `deep` above its first non-array, and that value. */
  function unnest(deep: unknown): { arrays: number; bottom: unknown } {
    let level = deep;
    let arrays = 0;
    while (Array.isArray(level)) {
      arrays++;
      level = level[0];
    }
    return { arrays, bottom: level };
  }

  it("cuts what lies below the bound with a marker and a warning (not a stack overflow), passes one at the bound whole, and the session goes on", async () => {
    const p = await proxied([join(FIXTURES, "faulty-server.mjs")], ["--output-dir", out.dir]);
    peers.push(p);
    for (const [where, key] of [
      ["structured", "structuredContent"],
      ["meta", "_meta"],
    ] as const) {
      const r = await p.client.callTool({ name: "deep", arguments: { depth: 10_000, where } });
      expect(r.isError).toBeUndefined();
      // The result, its `key` object and `deep` arrays: arrays down to level MAX_RESULT_DEPTH kept.
      const holder = (where === "meta" ? r._meta : r.structuredContent) as { deep: unknown };
      expect(unnest(holder.deep)).toEqual({
        arrays: MAX_RESULT_DEPTH - 2,
        bottom: DEEP_CUT_MARKER,
      });
      expect(DEEP_CUT_MARKER).toBe(`[cut: nested deeper than ${MAX_RESULT_DEPTH} levels]`);
      const content = r.content as { type: string; text: string }[];
      expect(content[0]).toEqual({ type: "text", text: "deep" });
      expect(content).toHaveLength(2);
      const warning = content[1]?.text ?? "";
      expect(warning).toMatch(/^Warning: atlatl-proxy: RESULT_TOO_DEEP: /);
      expect(warning).toContain(`nests more than ${MAX_RESULT_DEPTH} levels deep (under "${key}")`);
      expect(warning).toContain(`1 value nested deeper was replaced by "${DEEP_CUT_MARKER}"`);
      expect(warning).not.toContain("call stack");
    }
    // Offloaded (threshold 1), the descriptor carries the same warning.
    const o = await proxied(
      [join(FIXTURES, "faulty-server.mjs")],
      ["--output-dir", out.dir, "--threshold", "1"],
    );
    peers.push(o);
    const offloaded = await o.client.callTool({ name: "deep", arguments: { depth: 10_000 } });
    const descriptor = JSON.parse(
      (offloaded.content as { type: string; text: string }[])[0]?.text ?? "{}",
    ) as { tool?: string; warning?: string; files?: unknown };
    expect(descriptor.tool).toBe("deep");
    expect(descriptor.files).toBeDefined();
    expect(descriptor.warning).toMatch(
      /^atlatl-proxy: RESULT_TOO_DEEP: .*under "structuredContent"/,
    );
    // The result, structuredContent and `depth` arrays: MAX_RESULT_DEPTH levels in all.
    const atBound = await p.client.callTool({
      name: "deep",
      arguments: { depth: MAX_RESULT_DEPTH - 2 },
    });
    const { arrays, bottom } = unnest((atBound.structuredContent as { deep: unknown }).deep);
    expect(arrays).toBe(MAX_RESULT_DEPTH - 2);
    expect(bottom).toBeUndefined();
    expect(atBound.content).toEqual([{ type: "text", text: "deep" }]);
    const r = await p.client.callTool({ name: "echo", arguments: { after: "the deep one" } });
    expect(r.content).toEqual([{ type: "text", text: '{"after":"the deep one"}' }]);
  }, 60_000);
});

async function startHostile(mode: "streamable" | "sse" = "streamable"): Promise<number> {
  const child = spawn(process.execPath, [join(FIXTURES, "hostile-http-server.mjs"), mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const [chunk] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return Number(chunk.toString().trim());
}

/** The proxy on `--url url`, its stderr collected. */
async function viaProxy(
  url: string,
): Promise<{ client: Client; pid: number; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      "--conditions=source",
      "--import",
      "tsx",
      PROXY_MAIN,
      "--output-dir",
      out.dir,
      "--url",
      url,
    ],
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const client = new Client({ name: "hostile-test", version: "1.0.0" });
  const result = { client, pid: 0, stderr: () => stderr };
  try {
    await client.connect(transport);
  } catch (err) {
    // Let stderr arrive before the caller reads it.
    await new Promise((r) => setTimeout(r, 200));
    throw Object.assign(err as Error, { stderr });
  }
  peers.push({ client, transport, close: () => client.close() });
  result.pid = transport.pid as number;
  return result;
}

describe("a --url upstream whose response never ends", () => {
  for (const tool of ["endless-sse", "endless-json"]) {
    it(`${tool}: fails that call with MESSAGE_TOO_LARGE, memory stays bounded, the session goes on`, async () => {
      const port = await startHostile();
      const { client, pid } = await viaProxy(`http://127.0.0.1:${port}/mcp`);
      const err = await rejection(
        client.callTool({ name: tool, arguments: {} }, undefined, { timeout: 120_000 }),
      );
      expectTooLarge(err);
      const r = await client.callTool({ name: "echo", arguments: { message: "still here" } });
      expect(r.content).toEqual([{ type: "text", text: "still here" }]);
      expect(peakRss(pid)).toBeLessThan(PEAK_RSS_LIMIT);
    }, 180_000);
  }
});

describe("a --url upstream on the older HTTP+SSE transport", () => {
  it("fails a call whose response event is over the bound with MESSAGE_TOO_LARGE, and the session goes on", async () => {
    const port = await startHostile("sse");
    const { client, pid } = await viaProxy(`http://127.0.0.1:${port}/mcp`);
    expect(client.getServerVersion()?.name).toBe("hostile-sse");
    // Every response comes on the one GET stream: the dropped event's id names its call.
    const err = await rejection(
      client.callTool({ name: "huge-event", arguments: { mib: 520 } }, undefined, {
        timeout: 120_000,
      }),
    );
    expectTooLarge(err);
    const r = await client.callTool({ name: "echo", arguments: { message: "still here" } });
    expect(r.content).toEqual([{ type: "text", text: "still here" }]);
    expect(peakRss(pid)).toBeLessThan(PEAK_RSS_LIMIT);
  }, 180_000);
});

describe("a --url with secrets in its query and userinfo", () => {
  const cases = [
    // The upstream's 404 echoes the path and query it was asked for.
    [
      "an error body echoing the URL",
      (port: number) => `http://127.0.0.1:${port}/nope?api_key=SECRETKEY123&v=1`,
    ],
    // fetch refuses a URL with credentials, quoting it whole.
    [
      "userinfo, which fetch quotes",
      (port: number) => `http://bob:PASSWORD987@127.0.0.1:${port}/mcp?api_key=SECRETKEY123`,
    ],
  ] as const;
  for (const [name, urlOf] of cases) {
    it(`${name}: neither the initialize error nor stderr shows them`, async () => {
      const port = await startHostile();
      const err = (await rejection(viaProxy(urlOf(port)))) as McpError & { stderr: string };
      expect(err.message).toContain("cannot connect to the upstream MCP server");
      expect(err.message).toContain("api_key=***");
      expect(err.stderr).toContain("cannot connect to the upstream MCP server");
      for (const text of [err.message, err.stderr]) {
        expect(text).not.toContain("SECRETKEY123");
        expect(text).not.toContain("PASSWORD987");
      }
    });
  }
});
