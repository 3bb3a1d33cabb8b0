import type { LroEvents } from "@atlatl/lro";
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The server's Prometheus metrics (own registry: nothing global). */
export interface HttpMetrics {
  registry: Registry;
  /** Counts and times every request by route pattern, method and status. */
  middleware: MiddlewareHandler;
  setActiveSessions(n: number): void;
  setLiveServers(n: number): void;
  /** Stop listening to LRO events. */
  close(): void;
}

/** Requests queued before they are handed to prom-client (bounds the queues' memory). */
const FLUSH_EVERY = 1024;

interface Series {
  timed: { observe(seconds: number): void };
  counted: { inc(n?: number): void };
  durations: number[];
}

export function createHttpMetrics(events: LroEvents): HttpMetrics {
  const registry = new Registry();
  // Requests are recorded as a duration pushed on their series' queue and
  // handed to prom-client in batches (a hot loop: a fraction of the cost of
  // one call per request) when a queue is full and before every scrape, so
  // /metrics is always exact. One series per (route, method, status): the
  // label values are bounded (route patterns, methods, statuses).
  const series = new Map<string, Series>();
  let queued = 0;
  const flush = () => {
    for (const s of series.values()) {
      if (s.durations.length === 0) continue;
      for (const d of s.durations) s.timed.observe(d);
      s.counted.inc(s.durations.length);
      s.durations.length = 0;
    }
    queued = 0;
  };
  collectDefaultMetrics({ register: registry, prefix: "atlatl_" });
  const requests = new Counter({
    name: "atlatl_http_requests_total",
    help: "HTTP requests by route, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
    collect: flush,
  });
  const latency = new Histogram({
    name: "atlatl_http_request_duration_seconds",
    help: "Time to the response headers, by route and method",
    labelNames: ["route", "method"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
    collect: flush,
  });
  const offloads = new Counter({
    name: "atlatl_offloads_total",
    help: "LRO offload files by outcome: created, expired (swept) or failed (write failed)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const sessions = new Gauge({
    name: "atlatl_mcp_sessions_active",
    help: "Open MCP sessions over Streamable HTTP",
    registers: [registry],
  });
  const servers = new Gauge({
    name: "atlatl_mcp_servers_live",
    help: "MCP server instances built and not yet released: one per open session and per MCP request being served",
    registers: [registry],
  });
  for (const outcome of ["created", "expired", "failed"]) offloads.inc({ outcome }, 0);
  const off = [
    events.on("OffloadCreated", () => offloads.inc({ outcome: "created" })),
    events.on("OffloadFileExpired", () => offloads.inc({ outcome: "expired" })),
    events.on("OffloadWriteFailed", () => offloads.inc({ outcome: "failed" })),
  ];

  const record = (route: string, method: string, status: string, seconds: number) => {
    const key = `${route} ${method} ${status}`;
    let s = series.get(key);
    if (!s) {
      s = {
        timed: latency.labels(route, method),
        counted: requests.labels(route, method, status),
        durations: [],
      };
      series.set(key, s);
    }
    s.durations.push(seconds);
    if (++queued >= FLUSH_EVERY) flush();
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      // The matched pattern (`/v1/memories/:id`), not the path: bounded label values.
      const route =
        matchedRoutes(c).findLast((r) => r.path !== "*" && r.path !== "/*")?.path ?? "unmatched";
      record(route, c.req.method, String(c.res.status), (performance.now() - start) / 1000);
    }
  };
  return {
    registry,
    middleware,
    setActiveSessions: (n) => sessions.set(n),
    setLiveServers: (n) => servers.set(n),
    close: () => {
      for (const o of off) o();
    },
  };
}
