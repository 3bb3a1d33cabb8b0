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
  /** Stop listening to LRO events. */
  close(): void;
}

export function createHttpMetrics(events: LroEvents): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "atlatl_" });
  const requests = new Counter({
    name: "atlatl_http_requests_total",
    help: "HTTP requests by route, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "atlatl_http_request_duration_seconds",
    help: "Time to the response headers, by route and method",
    labelNames: ["route", "method"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
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
  for (const outcome of ["created", "expired", "failed"]) offloads.inc({ outcome }, 0);
  const off = [
    events.on("OffloadCreated", () => offloads.inc({ outcome: "created" })),
    events.on("OffloadFileExpired", () => offloads.inc({ outcome: "expired" })),
    events.on("OffloadWriteFailed", () => offloads.inc({ outcome: "failed" })),
  ];

  // One labelled child per (route, method, status), made on first use: the
  // label values are bounded (route patterns, methods, statuses), and a child
  // skips prom-client's per-call label validation and hashing of a label object.
  const children = new Map<string, { observe(s: number): void; inc(): void }>();
  const child = (route: string, method: string, status: string) => {
    const key = `${route} ${method} ${status}`;
    let found = children.get(key);
    if (!found) {
      const timed = latency.labels(route, method);
      const counted = requests.labels(route, method, status);
      found = { observe: (s) => timed.observe(s), inc: () => counted.inc() };
      children.set(key, found);
    }
    return found;
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      // The matched pattern (`/v1/memories/:id`), not the path: bounded label values.
      const route =
        matchedRoutes(c).findLast((r) => r.path !== "*" && r.path !== "/*")?.path ?? "unmatched";
      const m = child(route, c.req.method, String(c.res.status));
      m.observe((performance.now() - start) / 1000);
      m.inc();
    }
  };
  return {
    registry,
    middleware,
    setActiveSessions: (n) => sessions.set(n),
    close: () => {
      for (const o of off) o();
    },
  };
}
