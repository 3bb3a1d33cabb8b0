import { isCodedError } from "@atlatl/lro";
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { App } from "../app/open-app.js";
import { appError } from "./app-error.js";
import { type HttpConfig, isLoopbackHost, LOOPBACK_NAMES } from "./http-config.js";
import { isListenRequest, jsonRpcBody, type McpBodyVariables } from "./mcp/json-rpc-body.js";
import type { McpEndpoint } from "./mcp/mcp-endpoint.js";
import { LOCAL_PRINCIPAL } from "./mcp/principals.js";
import type { HttpMetrics } from "./ops/metrics.js";
import { problem } from "./problem.js";
import { type AuthVariables, bearerAuth, MIN_TOKEN_CHARS } from "./security/bearer-auth.js";
import { perTokenConcurrency } from "./security/concurrency.js";
import { hostOriginGuard } from "./security/host-origin.js";

export const MCP_PATH = "/mcp";

/** Host names accepted in `Host`: loopback names, the configured ones, the bound address. */
function allowedHosts(http: HttpConfig): string[] {
  const bound = http.host === "0.0.0.0" || http.host === "::" ? [] : [http.host];
  return [...LOOPBACK_NAMES, ...http.allowedHosts, ...bound].map((h) =>
    h.includes(":") && !h.startsWith("[") ? `[${h}]` : h,
  );
}

/**
 * Refuse a configuration that would serve the store to the network unguarded:
 * beyond loopback, no token or a short one.
 * Returns the message to print, or undefined when the configuration is fine.
 */
export function insecureBindMessage(http: HttpConfig): string | undefined {
  if (isLoopbackHost(http.host)) return undefined;
  if (http.tokens.length > 0) return shortTokenMessage(http);
  return (
    `refusing to listen on ${http.host} without a bearer token: anyone who can reach the port ` +
    "could read and change every memory. Set ATLATL_SERVER__HTTP__TOKENS=<token>[,<token>...] " +
    "or [server.http] tokens / token_file in the config file (e.g. a token from `openssl rand -hex 32`)."
  );
}

/** Beyond loopback, a token shorter than {@link MIN_TOKEN_CHARS} (named by position, never by value). */
function shortTokenMessage(http: HttpConfig): string | undefined {
  const short = http.tokens.findIndex((t) => t.length < MIN_TOKEN_CHARS);
  if (short < 0) return undefined;
  return (
    `refusing to listen on ${http.host}: bearer token ${short + 1} of ${http.tokens.length} has ` +
    `${http.tokens[short]?.length} characters; beyond loopback every token needs at least ` +
    `${MIN_TOKEN_CHARS}, or it could be guessed. Replace it in ATLATL_SERVER__HTTP__TOKENS or ` +
    "[server.http] tokens / token_file (e.g. with `openssl rand -hex 32`)."
  );
}

/** The parts the HTTP app is composed of (each built once per process). */
interface HttpAppParts {
  app: Pick<App, "store" | "offloadStore">;
  http: HttpConfig;
  /** `/mcp`: both protocol generations. */
  mcp: Pick<McpEndpoint, "handle">;
  metrics: HttpMetrics;
  /** Route groups mounted after the guards (REST under `/v1`). */
  routes?: { path: string; app: Hono<{ Variables: AuthVariables }> }[];
  /** True once shutdown began: new requests on kept-alive connections get 503 and `Connection: close`. */
  isClosing?: () => boolean;
  /** Outermost middleware (request logging). */
  log?: MiddlewareHandler<{ Variables: AuthVariables }>;
  /** A failure whose text the client is not shown (it may name internals): for the operator. */
  onError?: (err: Error) => void;
}

/**
 * The HTTP surface, composed explicitly, outermost first: request log, metrics,
 * `/healthz` (unguarded), then Host/Origin check, bearer auth, body limit and
 * per-token concurrency in front of `/mcp`, `/metrics` and `/v1`.
 */
export function createHttpApp(parts: HttpAppParts): Hono<{ Variables: AuthVariables }> {
  const { http, mcp, metrics } = parts;
  const web = new Hono<{ Variables: AuthVariables & McpBodyVariables }>();
  if (parts.log) web.use("*", parts.log);
  const closing = parts.isClosing;
  if (closing) {
    web.use("*", async (c, next) => {
      if (closing()) {
        return problem(
          { title: "Service Unavailable", status: 503, detail: "The server is shutting down." },
          { connection: "close", "retry-after": "5" },
        );
      }
      await next();
      // Finished during shutdown: do not keep the connection alive for more.
      if (closing()) c.res.headers.set("connection", "close");
    });
  }
  web.use("*", metrics.middleware);

  web.get("/healthz", async (c) => {
    let part = "store";
    try {
      await parts.app.store.count();
      part = "offload store";
      await parts.app.offloadStore.check();
      return c.json({ status: "ok", offload_store: parts.app.offloadStore.kind });
    } catch (err) {
      parts.onError?.(err as Error);
      // The code, not the driver's text: anyone may ask, and that text names hosts.
      const code = isCodedError(err) ? err.code : "UNAVAILABLE";
      return problem({
        title: "Service Unavailable",
        status: 503,
        code,
        detail: `${part}: not answering (${code})`,
      });
    }
  });

  web.use("*", hostOriginGuard({ hosts: allowedHosts(http), origins: http.allowedOrigins }));
  if (http.tokens.length > 0) web.use("*", bearerAuth(http.tokens));
  else {
    web.use("*", async (c, next) => {
      c.set("tokenId", "anonymous");
      c.set("principalId", LOCAL_PRINCIPAL);
      await next();
    });
  }
  const limitBody = bodyLimit({
    maxSize: http.maxBodyBytes,
    onError: () =>
      problem({
        title: "Content Too Large",
        status: 413,
        detail: `The request body is larger than ${http.maxBodyBytes} bytes ([server.http] max_body_bytes).`,
      }),
  });
  // In HTTP/1.1 (what `serve` speaks) a request without Content-Length or
  // Transfer-Encoding has no body (RFC 9112 section 6.3): nothing to limit, and
  // asking for its body would make @hono/node-server build a whole Request.
  web.use("*", (c, next) =>
    c.req.header("content-length") === undefined && c.req.header("transfer-encoding") === undefined
      ? next()
      : limitBody(c, next),
  );
  // A JSON POST to /mcp is parsed once here (an empty batch refused), then
  // handed on; before the concurrency bound, which looks at its method.
  web.use(MCP_PATH, jsonRpcBody());
  // Long-lived streams wait for server messages, not work in flight: a
  // session's GET stream and a 2026-07-28 `subscriptions/listen`.
  web.use(
    "*",
    perTokenConcurrency<AuthVariables & McpBodyVariables>(
      http.maxConcurrent,
      (c) =>
        c.req.path === MCP_PATH && (c.req.method === "GET" || isListenRequest(c.get("mcpBody"))),
    ),
  );

  web.all(MCP_PATH, (c) =>
    mcp.handle(
      c.req.raw,
      { tokenId: c.get("tokenId"), principalId: c.get("principalId") },
      c.get("mcpBody"),
    ),
  );
  web.get("/metrics", async (c) => {
    c.header("content-type", metrics.registry.contentType);
    return c.body(await metrics.registry.metrics());
  });
  for (const r of parts.routes ?? []) web.route(r.path, r.app);
  web.onError(appError(MCP_PATH, parts.onError ?? (() => {})));
  web.notFound(() => problem({ title: "Not Found", status: 404, detail: "No such route." }));
  return web;
}
