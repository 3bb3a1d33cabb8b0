/**
 * Upstream behaviour through the proxy, with a misbehaving upstream of our own:
 * notifications and instructions are relayed,
 * JSON-RPC errors pass through, a hang times out or is cancelled, a crash gives a
 * clear error (and the proxy keeps serving), a 50 MB result is offloaded.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  type McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { direct, FIXTURES, type Peer, proxied, tempDir } from "./helpers.js";
import { runRecipe } from "./recipes.js";

const FAULTY = join(FIXTURES, "faulty-server.mjs");
const out = tempDir("atlatl-proxy-faults-");
/** Upstream requests time out after 2 s. */
let p: Peer;
/** Default timeout; its upstream is crashed by the last test. */
let q: Peer;
let stderr = "";
/** Without the extraction tool; its upstream is crashed too. */
let r: Peer;
let noToolStderr = "";

beforeAll(async () => {
  [p, q, r] = await Promise.all([
    proxied([FAULTY], ["--output-dir", out.dir, "--timeout", "2"]),
    proxied([FAULTY], ["--output-dir", out.dir]),
    proxied([FAULTY], ["--output-dir", out.dir, "--no-extract-tool"]),
  ]);
  q.transport.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  r.transport.stderr?.on("data", (c: Buffer) => {
    noToolStderr += c.toString();
  });
});
afterAll(async () => {
  await Promise.all([p?.close(), q?.close(), r?.close()]);
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

describe("upstream failures through the proxy", () => {
  it("passes a JSON-RPC error through with its code, message and data", async () => {
    const d = await direct([FAULTY]);
    try {
      const call = { name: "rpc-error", arguments: {} };
      const [a, b] = await Promise.all([
        rejection(d.client.callTool(call)),
        rejection(p.client.callTool(call)),
      ]);
      expect(b.code).toBe(-32042);
      expect(b.message).toBe(a.message);
      expect(b.data).toEqual({ detail: [1, 2, 3] });
    } finally {
      await d.close();
    }
  });

  it("relays the upstream's instructions, logging/setLevel, log messages and tools/list_changed", async () => {
    expect(p.client.getInstructions()).toBe("Misbehaves on purpose.");
    const seen: string[] = [];
    p.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      seen.push("tools/list_changed");
    });
    p.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      seen.push(`log ${n.params.level} ${String(n.params.data)}`);
    });
    expect(await p.client.setLoggingLevel("info")).toEqual({});
    await p.client.callTool({ name: "notify", arguments: {} });
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual(["tools/list_changed", "log warning relayed"]);
  });

  it("announces itself to the upstream: clientInfo.proxy and the atlatl/proxy capability", async () => {
    const r = await p.client.callTool({ name: "client-info", arguments: {} });
    const info = JSON.parse((r.content as { text: string }[])[0]?.text as string);
    expect(info.raw.clientInfo).toEqual({ name: "proxy-test", version: "1.0.0", proxy: true });
    expect(info.caps.experimental).toEqual({ "atlatl/proxy": {} });
    // The real client's capabilities are passed on.
    expect(info.caps.sampling).toEqual({});
    expect(info.caps.roots).toEqual({ listChanged: true });
  });

  it("answers resources/read of an unknown URI with -32602 when the upstream has no resources", async () => {
    const err = await rejection(p.client.readResource({ uri: "demo://nope/1" }));
    expect(err.code).toBe(ErrorCode.InvalidParams);
    expect(err.message).toContain("Resource not found: demo://nope/1");
    expect(err.data).toEqual({ uri: "demo://nope/1" });
  });

  it("fails a call the upstream never answers with a timeout error naming the setting", async () => {
    const started = Date.now();
    const err = await rejection(p.client.callTool({ name: "hang", arguments: {} }));
    expect(err.code).toBe(ErrorCode.RequestTimeout);
    expect(err.message).toContain("did not answer tools/call within 2 s (proxy.timeout_seconds)");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("forwards the client's cancellation to the upstream", async () => {
    const controller = new AbortController();
    const call = p.client.callTool({ name: "hang", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort("changed my mind"), 200);
    await expect(call).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 200));
    const count = await p.client.callTool({ name: "aborted-count", arguments: {} });
    // The earlier timed-out call was cancelled upstream as well.
    expect(Number((count.content as { text: string }[])[0]?.text)).toBeGreaterThanOrEqual(2);
  });

  it("offloads a 50 MB result instead of passing it inline", async () => {
    const r = await q.client.callTool({ name: "huge", arguments: { mb: 50 } }, undefined, {
      timeout: 60_000,
    });
    const descriptor = JSON.parse((r.content as { text: string }[])[0]?.text as string);
    expect(descriptor.offloaded).toBe(true);
    expect(statSync(descriptor.files.text).size).toBeGreaterThan(50 * 1024 * 1024);
    // Every line of the 50 MB text is a record (jq -s over 50 MB would take longer than the rest).
    const lines = (await runRecipe(`tail -n +2 '${descriptor.files.text}' | wc -l`)).trim();
    expect(Number(lines)).toBe(descriptor.summary.text.count);
    // The first lines, through jq, without reading the whole 50 MB with it.
    const head = await runRecipe(
      `head -3 '${descriptor.files.text}' | tail -n +2 | jq -r '"\\(.line): \\(.text)"'`,
    );
    expect(head).toBe(`1: line 0 ${"x".repeat(90)}\n2: line 1 ${"x".repeat(90)}\n`);
  });

  it("fails calls with a clear error when the upstream dies, and keeps serving", async () => {
    {
      const err = await rejection(q.client.callTool({ name: "crash", arguments: {} }));
      expect(err.code).toBe(ErrorCode.ConnectionClosed);
      expect(err.message).toContain("is gone");
      const again = await rejection(q.client.callTool({ name: "echo", arguments: {} }));
      expect(again.message).toContain("is gone");
      // The proxy itself still answers: its own tool works without the upstream.
      const extract = await q.client.callTool({
        name: "lro_extract",
        arguments: { file_path: join(out.dir, "nothing.jsonl"), query: "." },
      });
      expect(extract.isError).toBe(true);
      await new Promise((r) => setTimeout(r, 100));
      expect(stderr).toContain("faulty: crashing on purpose");
      expect(stderr).toContain("closed its connection");
      expect(stderr).toContain("(lro_extract and offload files still work)");
    }
  });

  it("names only what the client has when the upstream dies: no extraction tool unless listed", async () => {
    const err = await rejection(r.client.callTool({ name: "crash", arguments: {} }));
    expect(err.code).toBe(ErrorCode.ConnectionClosed);
    await vi.waitFor(() => expect(noToolStderr).toContain("closed its connection"));
    expect(noToolStderr).toContain("(offload files still work)");
    expect(noToolStderr).not.toContain("lro_extract");
  });
});
