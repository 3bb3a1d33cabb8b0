/**
 * Issue 31 item 10: a throw no route answers gets JSON, not Hono's plain-text
 * 500: a JSON-RPC error under /mcp, problem+json elsewhere; the error's text
 * goes to the operator's log, never to the client.
 */
import { LroEvents } from "@atlatl/lro";
import { Hono } from "hono";
import { Gauge } from "prom-client";
import { describe, expect, it } from "vitest";
import type { App } from "../../src/app/open-app.js";
import { createHttpApp } from "../../src/http/create-http-app.js";
import { loadHttpConfig } from "../../src/http/http-config.js";
import { createHttpMetrics } from "../../src/http/ops/metrics.js";
import type { AuthVariables } from "../../src/http/security/bearer-auth.js";
import { StoreError } from "../../src/store/errors.js";

const SECRET = "connect ECONNREFUSED 10.1.2.3:5432 at /srv/atlatl/internal.ts";

function throwingApp(logged: Error[]) {
  const failing = new Hono<{ Variables: AuthVariables }>();
  failing.get("/", () => {
    throw new Error(SECRET);
  });
  return createHttpApp({
    // Not reached: the routes under test never touch the store.
    app: {} as Pick<App, "store" | "offloadStore">,
    http: loadHttpConfig(null, {}),
    mcp: {
      handle: async () => {
        throw new Error(SECRET);
      },
    },
    metrics: createHttpMetrics(new LroEvents({ sink: null })),
    routes: [{ path: "/failing", app: failing }],
    onError: (err) => logged.push(err),
  });
}

describe("the HTTP app's one error handler", () => {
  it("answers a throw under /mcp with a JSON-RPC error carrying the request's id", async () => {
    const logged: Error[] = [];
    const res = await throwingApp(logged).request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { host: "127.0.0.1", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "call-9", method: "tools/list" }),
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      jsonrpc: "2.0",
      id: "call-9",
      error: { code: -32603, message: "Internal server error" },
    });
    expect(text).not.toContain("ECONNREFUSED");
    expect(logged.map((e) => e.message)).toEqual([SECRET]);
  });

  it("answers a throw elsewhere with problem+json, without the error's text", async () => {
    const logged: Error[] = [];
    const res = await throwingApp(logged).request("http://127.0.0.1/failing", {
      headers: { host: "127.0.0.1" },
    });
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ status: 500, title: "Internal Server Error" });
    expect(JSON.parse(text).code).toBe("INTERNAL");
    expect(text).not.toContain("ECONNREFUSED");
    expect(logged).toHaveLength(1);
  });

  it("answers a throw under /metrics with problem+json and the code INTERNAL", async () => {
    const logged: Error[] = [];
    const metrics = createHttpMetrics(new LroEvents({ sink: null }));
    // A collector that fails, as a metric read from a broken source would.
    new Gauge({
      name: "failing_collector",
      help: "throws when collected",
      registers: [metrics.registry],
      collect() {
        throw new Error(SECRET);
      },
    });
    const res = await createHttpApp({
      app: {} as Pick<App, "store" | "offloadStore">,
      http: loadHttpConfig(null, {}),
      mcp: { handle: async () => new Response(null, { status: 204 }) },
      metrics,
      onError: (err) => logged.push(err),
    }).request("http://127.0.0.1/metrics", { headers: { host: "127.0.0.1" } });
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ status: 500, code: "INTERNAL" });
    expect(text).not.toContain("ECONNREFUSED");
    expect(logged.map((e) => e.message)).toEqual([SECRET]);
  });

  it("answers a failing store at /healthz with 503, its code and no driver text", async () => {
    const logged: Error[] = [];
    const store = {
      count: async () => {
        throw new StoreError("UNAVAILABLE", SECRET);
      },
    };
    const res = await createHttpApp({
      app: { store, offloadStore: {} } as unknown as Pick<App, "store" | "offloadStore">,
      http: loadHttpConfig(null, {}),
      mcp: { handle: async () => new Response(null, { status: 204 }) },
      metrics: createHttpMetrics(new LroEvents({ sink: null })),
      onError: (err) => logged.push(err),
    }).request("http://127.0.0.1/healthz", { headers: { host: "127.0.0.1" } });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({
      status: 503,
      code: "UNAVAILABLE",
      detail: "store: not answering (UNAVAILABLE)",
    });
    expect(text).not.toContain("ECONNREFUSED");
    expect(logged.map((e) => e.message)).toEqual([SECRET]);
  });
});
