/**
 * Issue 29 item 4: a PostgreSQL that stops answering (partition, stalled host)
 * must not hold requests for good. With `[store] connect_timeout_seconds = 1`
 * and `statement_timeout_seconds = 2`, every endpoint answers while the
 * database is stalled (a proxy in front of it that stops forwarding): /healthz
 * 503, REST 503 problem+json, an MCP tool an `isError` result with the code
 * `UNAVAILABLE`, what needs no database as usual; and once the database
 * answers again, so does the server. Each test's own timeout is the bound plus
 * a margin: a request held longer fails it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, PG_ENABLED, type StoreTarget } from "../backends/backends.js";
import { type StallingProxy, startStallingProxy } from "../store/stalling-proxy.js";
import { modern, raw } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

/** connect (1 s) + statement (2 s), and a margin for a loaded machine. */
const BOUND_AND_MARGIN_MS = 15_000;

describe.runIf(PG_ENABLED)("atlatl serve --http with a PostgreSQL that stops answering", () => {
  let target: StoreTarget;
  let proxy: StallingProxy;
  let s: HttpServer;
  beforeAll(async () => {
    const pg = BACKENDS.find((b) => b.name === "postgres");
    if (!pg) throw new Error("no PostgreSQL backend");
    target = await pg.serverConfig("");
    proxy = await startStallingProxy(target.config.url as string);
    s = await startHttpServer({
      store: { args: ["--database", proxy.url], env: {} },
      env: {
        ATLATL_STORE__CONNECT_TIMEOUT_SECONDS: "1",
        ATLATL_STORE__STATEMENT_TIMEOUT_SECONDS: "2",
        ATLATL_OFFLOAD_STORE__BACKEND: "postgres",
      },
    });
    expect((await raw(s.url, "/healthz")).status).toBe(200);
    expect((await raw(s.url, "/v1/memories")).status).toBe(200);
    proxy.stall();
  }, 60_000);
  afterAll(async () => {
    proxy?.resume();
    if (s) expect(await s.stop()).toBe(0);
    await proxy?.close();
    await target?.cleanup();
  });

  it(
    "/healthz answers 503 naming the part and the code, not the driver's text",
    async () => {
      const r = await raw(s.url, "/healthz");
      expect(r.status).toBe(503);
      expect(r.headers["content-type"]).toBe("application/problem+json");
      expect(r.json().detail).toBe("store: not answering (UNAVAILABLE)");
      expect(r.body).not.toMatch(/127\.0\.0\.1|timeout/);
    },
    BOUND_AND_MARGIN_MS,
  );

  it(
    "REST answers 503 problem+json, reads and writes alike",
    async () => {
      const [list, write] = await Promise.all([
        raw(s.url, "/v1/memories"),
        raw(s.url, "/v1/memories", {
          method: "POST",
          body: { content: "written while the database is stalled" },
        }),
      ]);
      for (const r of [list, write]) {
        expect(r.status, r.body).toBe(503);
        expect(r.headers["content-type"]).toBe("application/problem+json");
        expect(r.json()).toMatchObject({ status: 503, title: "Service Unavailable" });
        expect(r.body).toContain("retry later");
      }
    },
    BOUND_AND_MARGIN_MS,
  );

  it(
    "an MCP tool answers an isError result with the code UNAVAILABLE; tools/list and /metrics as usual",
    async () => {
      const [recall, tools, metrics] = await Promise.all([
        modern(s.url, "tools/call", { name: "recall_memories", arguments: { query: "anything" } }),
        modern(s.url, "tools/list"),
        raw(s.url, "/metrics"),
      ]);
      expect(recall.status).toBe(200);
      expect(recall.message.result?.isError).toBe(true);
      expect(recall.message.result?.content?.[0]?.text).toMatch(/UNAVAILABLE/);
      expect(tools.status).toBe(200);
      expect(tools.message.result?.tools).toBeDefined();
      expect(metrics.status).toBe(200);
    },
    BOUND_AND_MARGIN_MS,
  );

  it(
    "answers 503 as well when the database closes every connection, as a stopped one does",
    async () => {
      proxy.cut();
      const [health, list] = await Promise.all([
        raw(s.url, "/healthz"),
        raw(s.url, "/v1/memories"),
      ]);
      expect(health.status).toBe(503);
      expect(list.status, list.body).toBe(503);
      expect(list.headers["content-type"]).toBe("application/problem+json");
    },
    BOUND_AND_MARGIN_MS,
  );

  it(
    "answers again once the database does",
    async () => {
      proxy.resume();
      await expect.poll(async () => (await raw(s.url, "/healthz")).status).toBe(200);
      expect((await raw(s.url, "/v1/memories")).status).toBe(200);
    },
    BOUND_AND_MARGIN_MS,
  );
});
