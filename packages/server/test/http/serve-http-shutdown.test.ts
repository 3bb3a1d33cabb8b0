import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { envelope, MCP_HEADERS, MODERN, raw, sseText } from "./raw-request.js";
import { startHttpServer } from "./spawn-http.js";

describe("atlatl serve --http: graceful shutdown", () => {
  it("on SIGTERM stops accepting, finishes the request in flight, closes sessions and exits 0", async () => {
    const s = await startHttpServer({ tokens: "tok" });
    const auth = { authorization: "Bearer tok" };
    const client = await s.connect();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);

    // A capture whose body is still arriving when SIGTERM comes.
    const body = '{"content":"captured during shutdown"}';
    const slow = request(new URL("/v1/memories", s.url), {
      method: "POST",
      headers: {
        ...auth,
        "content-type": "application/json",
        "content-length": String(body.length),
      },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      slow.on("response", (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      slow.on("error", reject);
    });
    slow.write(body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<number | null>((r) => s.child.once("exit", r));
    s.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    // New connections are refused while the old one finishes.
    await expect(raw(s.url, "/healthz")).rejects.toThrow();
    slow.end(body.slice(10));
    const done = await response;
    expect(done.status).toBe(201);
    expect(JSON.parse(done.text).title).toBe("captured during shutdown");
    expect(await exited).toBe(0);
    expect(s.stderr()).toContain('"msg":"stopped"');
    await s.stop();
  }, 60_000);
});

describe("atlatl serve --http: shutdown with 2026-07-28 listeners", () => {
  it("on SIGTERM ends an open subscriptions/listen stream with its response and exits 0", async () => {
    const s = await startHttpServer({ tokens: "tok" });
    const listen = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: {
        ...MCP_HEADERS,
        "content-type": "application/json",
        authorization: "Bearer tok",
        "mcp-protocol-version": MODERN,
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: { notifications: { resourcesListChanged: true }, _meta: envelope() },
      }),
    });
    expect(listen.status).toBe(200);
    const stream = sseText(listen.body as ReadableStream<Uint8Array>);
    await stream.until("notifications/subscriptions/acknowledged");
    const exited = new Promise<number | null>((r) => s.child.once("exit", r));
    s.child.kill("SIGTERM");
    // The stream ends (not cut): its last frame answers the listen request.
    expect(await stream.rest()).toMatch(/"id":"listen-1"/);
    expect(await exited).toBe(0);
    expect(s.stderr()).toContain('"msg":"stopped"');
    await s.stop();
  }, 60_000);
});
