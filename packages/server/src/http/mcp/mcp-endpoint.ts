import { OFFLOAD_LIST_EVENTS } from "@atlatl/lro/mcp";
import { jsonRpcErrorHttpResponse, listenTasksUndeclared, rawMessage } from "@atlatl/lro/node";
import {
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  type McpRequestContext,
} from "@modelcontextprotocol/server";
import type { AtlatlServer } from "../../mcp/create-server.js";
import { ListenRefusals } from "../security/listen-refusals.js";
import { isListenRequest } from "./json-rpc-body.js";
import type { Caller, LegacySessions } from "./legacy-sessions.js";
import type { PrincipalServers } from "./principal-servers.js";
import { type Principals, principalAuthInfo } from "./principals.js";

/**
 * `/mcp` for both protocol generations. A 2025-era request (`initialize`, no
 * `_meta` envelope, and every GET/DELETE: `isLegacyRequest`, the SDK's own
 * classification) goes to the sessionful {@link LegacySessions}; a 2026-07-28
 * request (the envelope) to the SDK's stateless `createMcpHandler`, which
 * validates its headers and version, answers `server/discover` and
 * `subscriptions/listen` (one asking for `taskIds` without the tasks
 * extension is refused here first, -32021), and serves every other request
 * on a fresh atlatl server from {@link PrincipalServers}, for the principal
 * it is given as `authInfo`. No LRO state lives in either: both read and write the
 * principal's files and tasks, by handle.
 *
 * With `[server.http] legacy_sessions = false` there are no sessions
 * (`legacy` absent): the same per-principal handler also serves 2025-era
 * requests, statelessly (`legacy: 'stateless'`, the SDK's: each POST on a
 * fresh server from the same factory, no `Mcp-Session-Id`, GET and DELETE
 * 405), so any instance behind a balancer answers any request.
 *
 * One modern handler per principal, so that a principal's
 * `subscriptions/listen` streams hear only its own offload resources change
 * (the SDK's bus has no notion of who listens) and one principal cannot use up
 * another's subscription places (`maxListeners` each).
 */
export class McpEndpoint {
  private readonly modern = new Map<string, McpHttpHandler>();
  /** The servers the factory built for each modern request being served. */
  private readonly built = new WeakMap<Request, AtlatlServer[]>();
  private readonly listenRefusals: ListenRefusals;
  private closed = false;

  constructor(
    private readonly deps: {
      principals: Pick<Principals, "get">;
      servers: Pick<PrincipalServers, "create">;
      /** 2025-era sessions; absent (`legacy_sessions = false`): 2025-era requests served statelessly. */
      legacy?: Pick<LegacySessions, "handle" | "closeAll">;
      /** `[server.http] max_body_bytes`: the bound the SDK reads a body under (the app's too). */
      maxBodyBytes: number;
      /**
       * Open `subscriptions/listen` streams of one principal at most (they
       * hold no request slot): `[server.http] max_sessions_per_token`, the
       * bound on the other generation's long-lived streams.
       */
      maxListeners: number;
      /** `[server.http] max_listen_refusals_per_minute`. */
      maxListenRefusalsPerMinute: number;
      onerror?: (error: Error) => void;
    },
  ) {
    this.listenRefusals = new ListenRefusals(deps.maxListenRefusalsPerMinute);
  }

  /** Serve one `/mcp` request of `who`; `parsedBody` is its JSON body when already read. */
  async handle(req: Request, who: Caller, parsedBody?: unknown): Promise<Response> {
    const { legacy, maxBodyBytes: maxRequestBodySize } = this.deps;
    if (
      legacy &&
      (req.method !== "POST" || (await isLegacyRequest(req, parsedBody, { maxRequestBodySize })))
    ) {
      return legacy.handle(req, who, parsedBody);
    }
    const listen = isListenRequest(parsedBody);
    if (listen) {
      const refusal = this.listenRefusals.check(who.principalId);
      if (refusal) return refusal;
    }
    // The SDK's listen router would acknowledge an empty filter (SEP-2663: -32021).
    const message = rawMessage(parsedBody);
    const refused = message && listenTasksUndeclared(message);
    if (message && refused) {
      if (listen) this.listenRefusals.refused(who.principalId);
      return jsonRpcErrorHttpResponse(400, message.id ?? null, refused);
    }
    const principal = this.deps.principals.get(who.principalId);
    // While the request is served, the principal's (maybe empty) directory stays.
    principal.active++;
    const built: AtlatlServer[] = [];
    this.built.set(req, built);
    try {
      const res = await this.handlerOf(who.principalId).fetch(req, {
        authInfo: principalAuthInfo(who.principalId),
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
      const streamed = res.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
      if (listen && !streamed) this.listenRefusals.refused(who.principalId);
      return res;
    } finally {
      principal.active--;
      this.built.delete(req);
      // A server the SDK connected is released when its exchange closes it
      // (`onclose`); one it only built and closed unconnected (a listen, a
      // refused call) never fires `onclose`: released here, or it would stay
      // subscribed to the principal's hub for good.
      for (const atlatl of built) if (!atlatl.server.isConnected()) void atlatl.close();
    }
  }

  /** The modern handler of `principalId`, made on its first modern request. */
  private handlerOf(principalId: string): McpHttpHandler {
    const known = this.modern.get(principalId);
    if (known) return known;
    const handler = createMcpHandler((ctx) => this.serverFor(ctx), {
      legacy: this.deps.legacy ? "reject" : "stateless",
      maxRequestBodySize: this.deps.maxBodyBytes,
      maxSubscriptions: this.deps.maxListeners,
      ...(this.deps.onerror ? { onerror: this.deps.onerror } : {}),
    });
    const events = this.deps.principals.get(principalId).events;
    for (const type of OFFLOAD_LIST_EVENTS)
      events.on(type, () => handler.notify.resourcesChanged());
    this.modern.set(principalId, handler);
    return handler;
  }

  /** The factory: a fresh atlatl server for the principal the request was authenticated as. */
  private serverFor(ctx: McpRequestContext) {
    const principalId = ctx.authInfo?.clientId;
    if (principalId === undefined)
      throw new Error("an MCP request reached the server unauthenticated");
    const { atlatl } = this.deps.servers.create(principalId);
    if (ctx.requestInfo) this.built.get(ctx.requestInfo)?.push(atlatl);
    return atlatl.server;
  }

  /** Close every session and modern exchange, listeners included (shutdown). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([
      this.deps.legacy?.closeAll(),
      ...[...this.modern.values()].map((h) => h.close().catch(() => {})),
    ]);
  }
}
