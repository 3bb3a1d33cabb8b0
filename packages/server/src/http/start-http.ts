import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { App } from "../app/open-app.js";
import { createSharedExtraction } from "../mcp/shared-extraction.js";
import { createHttpApp, insecureBindMessage, MCP_PATH } from "./create-http-app.js";
import type { HttpConfig } from "./http-config.js";
import { LegacySessions } from "./mcp/legacy-sessions.js";
import { McpEndpoint } from "./mcp/mcp-endpoint.js";
import { PrincipalServers } from "./mcp/principal-servers.js";
import { startPrincipalSweeper } from "./mcp/principal-sweeper.js";
import { Principals } from "./mcp/principals.js";
import { createHttpMetrics } from "./ops/metrics.js";
import { createLogger, requestLog } from "./ops/request-log.js";
import { createRestApi } from "./rest/rest-api.js";

/** In-flight requests get this long after SIGTERM before connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningHttpServer {
  /** `http://host:port` as bound (port 0 resolved). */
  url: string;
  /** Stop accepting, finish in-flight requests, close sessions and listeners, then the store. */
  close(): Promise<void>;
}

/**
 * Start `atlatl serve --http`: one store, services, jq engine, parsed-file
 * cache, task table and sweeper for the process; one offloader and offload
 * directory per principal (token); one MCP server per 2025-era session (per
 * 2025-era request with `legacy_sessions = false`) and per 2026-07-28
 * request. Throws before listening when the configuration is insecure.
 */
export async function startHttpServer(app: App, http: HttpConfig): Promise<RunningHttpServer> {
  const refusal = insecureBindMessage(http);
  if (refusal) throw new Error(refusal);
  const logger = createLogger();
  const extraction = createSharedExtraction();
  const metrics = createHttpMetrics(app.events);
  const principals = new Principals({
    config: app.config.offload,
    events: app.events,
    offloadStore: app.offloadStore,
  });
  // Kept where the offload files are: a task's handle is good wherever its file is.
  const tasks = app.taskStore;
  const servers = new PrincipalServers({
    app,
    tasks,
    principals,
    extraction,
    proxyInlineBytes: http.sessions.proxyInlineBytes,
    onLive: (n) => metrics.setLiveServers(n),
  });
  const mcp = new McpEndpoint({
    principals,
    servers,
    ...(http.legacySessions
      ? {
          legacy: new LegacySessions({
            servers,
            limits: http.sessions,
            onChange: (n) => metrics.setActiveSessions(n),
          }),
        }
      : {}),
    maxBodyBytes: http.maxBodyBytes,
    maxListeners: http.sessions.maxPerToken,
    maxListenRefusalsPerMinute: http.maxListenRefusalsPerMinute,
    onerror: (err) => logger.warn({ msg: "mcp", error: err.message }),
  });
  const sweeper = app.config.offload.enabled
    ? startPrincipalSweeper({
        config: app.config.offload,
        events: app.events,
        principals,
        offloadStore: app.offloadStore,
      })
    : undefined;
  let closing: Promise<void> | undefined;
  const web = createHttpApp({
    isClosing: () => closing !== undefined,
    app,
    http,
    mcp,
    metrics,
    log: requestLog(logger),
    onError: (err) => logger.error({ msg: "unhandled", error: err.message }),
    routes: [
      {
        path: "/v1",
        app: createRestApi(app.services, { writeEpoch: app.store.writeEpoch?.bind(app.store) }),
      },
    ],
  });

  // HTTP/1.1 (the default of @hono/node-server): the cast gives its connection controls.
  const server = serve({ fetch: web.fetch, hostname: http.host, port: http.port }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  }).catch(async (err) => {
    await tasks.close();
    throw err;
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  logger.info({ msg: "listening", url: `${url}${MCP_PATH}`, tokens: http.tokens.length });

  const close = () => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await mcp.close();
      server.closeIdleConnections();
      const timer = setTimeout(() => {
        server.closeAllConnections();
      }, SHUTDOWN_GRACE_MS);
      timer.unref();
      await stopped;
      clearTimeout(timer);
      sweeper?.stop();
      await servers.close().catch(() => {});
      metrics.close();
      await extraction.close().catch(() => {});
      await app.close().catch(() => {});
      logger.info({ msg: "stopped" });
      logger.flush();
    })();
    return closing;
  };
  return { url, close };
}
