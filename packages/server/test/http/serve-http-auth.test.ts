import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverRoot } from "../e2e/spawn-server.js";
import { INITIALIZE, MCP_HEADERS, raw } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const TOKEN = "s3cret-one";
const SECOND = "s3cret-two";
const CAPTURE = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "capture_memory", arguments: { content: "must not be stored" } },
};

/** Every way in that must be refused, on each guarded route. */
const REFUSALS: { name: string; headers: Record<string, string>; status: number }[] = [
  { name: "no token", headers: {}, status: 401 },
  { name: "wrong token", headers: { authorization: "Bearer not-the-token" }, status: 401 },
  { name: "token in the wrong header", headers: { "x-api-key": TOKEN }, status: 401 },
  { name: "token without the Bearer scheme", headers: { authorization: TOKEN }, status: 401 },
  {
    name: "bad Host",
    headers: { authorization: `Bearer ${TOKEN}`, host: "evil.example.com" },
    status: 403,
  },
  {
    // An allowed name as a prefix of another host is not that host.
    name: "Host extending an allowed name (localhost.evil.com)",
    headers: { authorization: `Bearer ${TOKEN}`, host: "localhost.evil.com" },
    status: 403,
  },
  {
    name: "Host extending an allowed address (127.0.0.1.evil.com:80)",
    headers: { authorization: `Bearer ${TOKEN}`, host: "127.0.0.1.evil.com:80" },
    status: 403,
  },
  {
    name: "Origin on a host extending an allowed name",
    headers: { authorization: `Bearer ${TOKEN}`, origin: "http://localhost.evil.com" },
    status: 403,
  },
  {
    name: "bad Origin",
    headers: { authorization: `Bearer ${TOKEN}`, origin: "https://evil.example.com" },
    status: 403,
  },
];

describe("atlatl serve --http: security by default", () => {
  let s: HttpServer;
  const auth = { authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    s = await startHttpServer({
      tokens: `${TOKEN},${SECOND}`,
      env: {
        ATLATL_SERVER__HTTP__MAX_BODY_BYTES: "4096",
        ATLATL_SERVER__HTTP__MAX_CONCURRENT: "1",
        ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS: "100",
      },
    });
  }, 60_000);
  afterAll(async () => {
    if (s) await s.stop();
  });

  for (const r of REFUSALS) {
    it(`refuses ${r.name} with ${r.status} on /mcp, /v1/* and /metrics`, async () => {
      const attempts = [
        raw(s.url, "/mcp", {
          method: "POST",
          headers: { ...MCP_HEADERS, ...r.headers },
          body: INITIALIZE,
        }),
        raw(s.url, "/mcp", {
          method: "POST",
          headers: { ...MCP_HEADERS, ...r.headers },
          body: CAPTURE,
        }),
        raw(s.url, "/v1/memories", {
          method: "POST",
          headers: r.headers,
          body: { content: "nope" },
        }),
        raw(s.url, "/v1/memories", { headers: r.headers }),
        raw(s.url, "/v1/recall?q=", { headers: r.headers }),
        raw(s.url, "/v1/openapi.json", { headers: r.headers }),
        raw(s.url, "/metrics", { headers: r.headers }),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(r.status);
        expect(res.headers["content-type"]).toBe("application/problem+json");
      }
    });
  }

  it("left no stored memory and no offload file behind after the refusals", async () => {
    const list = await raw(s.url, "/v1/memories?limit=10", { headers: auth });
    expect(list.status).toBe(200);
    expect(list.json<{ items: unknown[] }>().items).toEqual([]);
    const principals = join(s.outputDir, "principals");
    expect(existsSync(principals) ? readdirSync(principals) : []).toEqual([]);
    expect(
      existsSync(s.outputDir) ? readdirSync(s.outputDir).filter((n) => n.endsWith(".jsonl")) : [],
    ).toEqual([]);
  });

  it("serves /healthz without a token", async () => {
    const res = await raw(s.url, "/healthz");
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: "ok", offload_store: "local" });
  });

  it("accepts the second token and loopback Origins", async () => {
    const res = await raw(s.url, "/v1/memories", {
      headers: { authorization: `Bearer ${SECOND}`, origin: "http://localhost:3000" },
    });
    expect(res.status).toBe(200);
  });

  it("refuses a body over the limit with 413 and stores nothing", async () => {
    const res = await raw(s.url, "/v1/memories", {
      method: "POST",
      headers: auth,
      body: { content: "x".repeat(10_000) },
    });
    expect(res.status).toBe(413);
    const list = await raw(s.url, "/v1/memories", { headers: auth });
    expect(list.json<{ items: unknown[] }>().items).toEqual([]);
  });

  it("answers 429 past the per-token concurrency limit, then serves again", async () => {
    // A request whose body is still arriving holds the token's one slot.
    const url = new URL("/v1/memories", s.url);
    const slow = request(url, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "content-length": "40" },
    });
    const done = new Promise<number>((resolve) => {
      slow.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
    });
    slow.write('{"content":');
    await expect
      .poll(async () => (await raw(s.url, "/v1/memories", { headers: auth })).status)
      .toBe(429);
    const limited = await raw(s.url, "/v1/memories", { headers: auth });
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("1");
    expect(limited.json<{ detail: string }>().detail).toMatch(/in flight/);
    // Another token is not limited by this one.
    expect(
      (await raw(s.url, "/v1/memories", { headers: { authorization: `Bearer ${SECOND}` } })).status,
    ).toBe(200);
    slow.end('"held-for-429-test-released"}');
    expect(await done).toBe(201);
    await expect
      .poll(async () => (await raw(s.url, "/v1/memories", { headers: auth })).status)
      .toBe(200);
  });

  /** `serve --http --host 0.0.0.0` with these tokens: its exit status and stderr. */
  const serveBeyondLoopback = (tokens: string) =>
    spawnSync(
      process.execPath,
      [
        "--conditions=source",
        "--import",
        "tsx",
        "src/cli/main.ts",
        "--db",
        ":memory:",
        "serve",
        "--http",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
      ],
      {
        cwd: serverRoot,
        env: { ...process.env, ATLATL_CONFIG: "", ATLATL_SERVER__HTTP__TOKENS: tokens },
        encoding: "utf8",
        timeout: 30_000,
      },
    );

  it("refuses to listen beyond loopback with a token shorter than 16 characters", () => {
    const out = serveBeyondLoopback("0123456789abcdef0123,tooshort");
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/token 2 of 2 has 8 characters; .*at least 16/);
    expect(out.stderr).not.toContain("tooshort");
    expect(out.stderr).not.toContain("listening on");
  });

  it("refuses to listen beyond loopback without a token, saying how to set one", () => {
    const out = serveBeyondLoopback("");
    expect(out.status).toBe(1);
    expect(out.stderr).toContain("ATLATL_SERVER__HTTP__TOKENS");
    expect(out.stderr).not.toContain("listening on");
  });
});
