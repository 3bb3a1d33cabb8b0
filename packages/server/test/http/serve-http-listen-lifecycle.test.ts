/**
 * Issue 29 item 1: for each 2026-07-28 `subscriptions/listen` the SDK builds a
 * server with our factory and closes it unconnected; that server (subscribed
 * to its principal's event hub) must be released all the same, or every
 * listen, refused or not, leaks one. `atlatl_mcp_servers_live` counts the
 * servers built and not yet released: after any number of listens it is back
 * to what it was. And a token looping on refused listens is answered 429
 * before the SDK past `max_listen_refusals_per_minute`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope, MCP_HEADERS, MODERN, modern, raw, sseText } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const A = "listen-token-a";
const B = "listen-token-b";
const ACK = "notifications/subscriptions/acknowledged";

/**
 * One `subscriptions/listen` of `token` (to `notifications`): its status and
 * the text read until `until`.
 */
async function listen(
  base: string,
  token: string,
  until: string,
  notifications: Record<string, unknown> = { resourcesListChanged: true },
) {
  const ac = new AbortController();
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    signal: ac.signal,
    headers: {
      ...MCP_HEADERS,
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": MODERN,
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "listen-1",
      method: "subscriptions/listen",
      params: { notifications, _meta: envelope() },
    }),
  });
  const seen = await sseText(res.body as ReadableStream<Uint8Array>).until(until);
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    seen,
    close: () => ac.abort(),
  };
}

/** `atlatl_mcp_servers_live` as /metrics reports it. */
async function liveServers(s: HttpServer): Promise<number> {
  const r = await raw(s.url, "/metrics", { headers: { authorization: `Bearer ${A}` } });
  const line = r.body.split("\n").find((l) => l.startsWith("atlatl_mcp_servers_live "));
  return Number(line?.split(" ")[1]);
}

describe("atlatl serve --http: a server built for a listen is released, connected or not", () => {
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({
      tokens: `${A},${B}`,
      env: {
        ATLATL_SERVER__HTTP__MAX_SESSIONS_PER_TOKEN: "1",
        ATLATL_SERVER__HTTP__MAX_LISTEN_REFUSALS_PER_MINUTE: "100000",
      },
    });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("leaves no server behind after 300 refused listens and 50 served ones", async () => {
    expect((await modern(s.url, "tools/list", {}, { token: A })).status).toBe(200);
    await expect.poll(() => liveServers(s)).toBe(0);

    const open = await listen(s.url, A, ACK);
    expect(open.seen).toContain(ACK);
    try {
      for (let i = 0; i < 300; i++) {
        const refused = await listen(s.url, A, '"error"');
        expect(refused.seen).toContain("Subscription limit reached");
      }
    } finally {
      open.close();
    }
    // Nothing to listen to: acknowledged, then ended by the server (no slot kept).
    for (let i = 0; i < 50; i++) {
      const served = await listen(s.url, B, '"resultType":"complete"', {});
      expect(served.seen).toContain(ACK);
    }
    // Every server built for those 351 listens has been released.
    await expect.poll(() => liveServers(s)).toBe(0);
  }, 60_000);
});

describe("atlatl serve --http: refused listens are bounded per token and minute", () => {
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({
      tokens: `${A},${B}`,
      env: {
        ATLATL_SERVER__HTTP__MAX_SESSIONS_PER_TOKEN: "1",
        ATLATL_SERVER__HTTP__MAX_LISTEN_REFUSALS_PER_MINUTE: "3",
      },
    });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("answers 429 past max_listen_refusals_per_minute, naming the setting; another token's listen goes on", async () => {
    const open = await listen(s.url, A, ACK);
    try {
      for (let i = 0; i < 3; i++) {
        const refused = await listen(s.url, A, '"error"');
        expect(refused.seen).toContain("Subscription limit reached");
      }
      const limited = await listen(s.url, A, '"error"');
      expect(limited.status).toBe(429);
      expect(Number(limited.retryAfter)).toBeGreaterThan(0);
      const error = JSON.parse(limited.seen).error;
      expect(error.code).toBe(-32000);
      expect(error.message).toContain("max_listen_refusals_per_minute");
      const other = await listen(s.url, B, ACK);
      expect(other.seen).toContain(ACK);
      other.close();
    } finally {
      open.close();
    }
  }, 60_000);
});
