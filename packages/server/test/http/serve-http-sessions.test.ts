/**
 * Bounds on MCP sessions over HTTP (issue 18, items 4 and 14): sessions per
 * token and in all (429 naming the setting), idle sessions closed (the slot
 * freed), an LRO proxy client's inline whole set cut to its byte bound with a
 * notice, and an empty JSON-RPC batch refused as Invalid Request. A real
 * process with small limits, driven over HTTP.
 */
import { readWholeSet, type WholeSet } from "@atlatl/lro/mcp";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INITIALIZE, MCP_HEADERS, raw } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const A = "sessions-token-a";
const B = "sessions-token-b";
const INLINE_BYTES = 64 * 1024;

describe("atlatl serve --http: session bounds", () => {
  let s: HttpServer;
  const auth = (token: string) => ({ ...MCP_HEADERS, authorization: `Bearer ${token}` });
  /** Open a session with a raw `initialize`; the response (session id in its header). */
  const open = (token: string) =>
    raw(s.url, "/mcp", { method: "POST", headers: auth(token), body: INITIALIZE });
  const end = (token: string, id: string) =>
    raw(s.url, "/mcp", {
      method: "DELETE",
      headers: { ...auth(token), "mcp-session-id": id },
    });
  const sessionId = (r: { headers: Record<string, unknown> }) =>
    r.headers["mcp-session-id"] as string;

  beforeAll(async () => {
    s = await startHttpServer({
      tokens: `${A},${B}`,
      seed: 600,
      env: {
        ATLATL_SERVER__HTTP__MAX_SESSIONS_PER_TOKEN: "2",
        ATLATL_SERVER__HTTP__MAX_SESSIONS: "3",
        ATLATL_SERVER__HTTP__SESSION_IDLE_SECONDS: "2",
        ATLATL_SERVER__HTTP__PROXY_INLINE_BYTES: String(INLINE_BYTES),
      },
    });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("answers 429 past the sessions of one token, then of the server, and opens again once one ends", async () => {
    const a1 = await open(A);
    const a2 = await open(A);
    expect([a1.status, a2.status]).toEqual([200, 200]);
    const a3 = await open(A);
    expect(a3.status).toBe(429);
    expect(a3.headers["retry-after"]).toBeDefined();
    expect(a3.json<{ error: { message: string } }>().error.message).toMatch(
      /this token has 2 open MCP sessions \(\[server\.http\] max_sessions_per_token\)/,
    );
    // Another token is not held by A's sessions, but by the server's total.
    const b1 = await open(B);
    expect(b1.status).toBe(200);
    const b2 = await open(B);
    expect(b2.status).toBe(429);
    expect(b2.json<{ error: { message: string } }>().error.message).toMatch(
      /the server has 3 open MCP sessions \(\[server\.http\] max_sessions\)/,
    );
    // Ending one frees its place.
    expect((await end(A, sessionId(a1))).status).toBe(200);
    const a4 = await open(A);
    expect(a4.status).toBe(200);
    for (const [t, r] of [
      [A, a2],
      [A, a4],
      [B, b1],
    ] as const) {
      await end(t, sessionId(r));
    }
  });

  it("closes a session idle past session_idle_seconds and frees its place", async () => {
    const a1 = await open(A);
    const a2 = await open(A);
    expect((await open(A)).status).toBe(429);
    const id = sessionId(a1);
    // Polled, not timed: the session ends once idle for 2 s.
    await expect
      .poll(
        async () =>
          (
            await raw(s.url, "/mcp", {
              method: "POST",
              headers: { ...auth(A), "mcp-session-id": id },
              body: { jsonrpc: "2.0", id: 9, method: "ping" },
            })
          ).status,
        { timeout: 15_000, interval: 3_000 },
      )
      .toBe(404);
    await expect.poll(async () => (await open(A)).status, { timeout: 15_000 }).toBe(200);
    await end(A, sessionId(a2));
  });

  it("cuts an LRO proxy client's inline whole set to proxy_inline_bytes, saying so", async () => {
    const proxy = await s.connect({ token: A, proxy: true, name: "atlatl-proxy" });
    const result = (await proxy.callTool({
      name: "recall_memories",
      arguments: { query: "", limit: 1000, detail: "full", status: "any" },
    })) as CallToolResult;
    const whole = readWholeSet(result);
    expect(whole).toBeDefined();
    const set = whole?.set as WholeSet;
    const recordBytes = set.records.reduce(
      (n, r) => n + Buffer.byteLength(JSON.stringify(r)) + 1,
      0,
    );
    expect(recordBytes).toBeLessThanOrEqual(INLINE_BYTES);
    expect(set.total).toBe(600);
    expect(set.records.length).toBeGreaterThan(0);
    expect(set.records.length).toBeLessThan(600);
    expect(set.warning).toMatch(new RegExp(`${INLINE_BYTES}-byte bound`));
    expect(set.warning).toContain(`first ${set.records.length} of 600 records`);
    await (proxy.transport as StreamableHTTPClientTransport).terminateSession();
  });

  it("answers an empty JSON-RPC batch with Invalid Request (-32600), with or without a session", async () => {
    const none = await raw(s.url, "/mcp", { method: "POST", headers: auth(A), body: "[]" });
    expect(none.status).toBe(400);
    expect(none.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    const opened = await open(A);
    const id = sessionId(opened);
    const within = await raw(s.url, "/mcp", {
      method: "POST",
      headers: { ...auth(A), "mcp-session-id": id },
      body: " [ ] ",
    });
    expect(within.status).toBe(400);
    expect(within.json()).toMatchObject({ error: { code: -32600 } });
    // A non-empty batch and a bad body are answered as before.
    const bad = await raw(s.url, "/mcp", {
      method: "POST",
      headers: { ...auth(A), "mcp-session-id": id },
      body: "[",
    });
    expect(bad.json()).toMatchObject({ error: { code: -32700 } });
    const ping = await raw(s.url, "/mcp", {
      method: "POST",
      headers: { ...auth(A), "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      body: [{ jsonrpc: "2.0", id: 5, method: "ping" }],
    });
    expect(ping.status).toBe(200);
    expect(ping.body).toContain('"id":5');
    await end(A, id);
  });
});
