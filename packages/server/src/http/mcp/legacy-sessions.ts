import { randomUUID } from "node:crypto";
import { jsonRpcErrorHttpResponse, rawMessage } from "@atlatl/lro/node";
import {
  type AuthInfo,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { AtlatlServer } from "../../mcp/create-server.js";
import { initializeClientInfo } from "../../mcp/raw-message.js";
import type { SessionLimits } from "../http-config.js";
import { BoundedEventStore } from "./bounded-event-store.js";
import type { PrincipalServers } from "./principal-servers.js";
import { type Principal, principalAuthInfo } from "./principals.js";

/** Idle sessions are looked for this often at most (more often when the idle limit is short). */
const IDLE_CHECK_MS = 60_000;

/** Who sends a request: its token (limits, by position) and principal (LRO state). */
export interface Caller {
  tokenId: string;
  principalId: string;
}

interface Session {
  id: string;
  tokenId: string;
  principal: Principal;
  transport: WebStandardStreamableHTTPServerTransport;
  atlatl: AtlatlServer;
  lastSeen: number;
}

/**
 * MCP 2025-11-25 (and older) over Streamable HTTP, sessionful as those
 * clients expect (Claude Code, Codex, the Inspector): one `McpServer` (and
 * transport) per session, with its `Mcp-Session-Id`, GET stream and
 * `Last-Event-ID` resumption. A session belongs to the token that opened it;
 * any other token gets "Session not found". Sessions are bounded per token
 * and in all (429 past either), closed when idle, and keep a bounded tail of
 * their messages for resumption. A session holds no LRO state of its own: it
 * serves its token's principal (offload files, tasks, event hub), which
 * outlives it and which 2026-07-28 requests of the same token share.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  /** Sessions per token, counted from the start of their `initialize` (so bursts cannot overshoot). */
  private readonly perToken = new Map<string, number>();
  private opening = 0;
  private readonly idleTimer: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      servers: Pick<PrincipalServers, "create">;
      limits: SessionLimits;
      onChange?: (active: number) => void;
    },
  ) {
    const every = Math.max(100, Math.min(IDLE_CHECK_MS, Math.floor(deps.limits.idleMs / 4)));
    this.idleTimer = setInterval(() => void this.closeIdle(), every);
    this.idleTimer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Serve one request of `who`; `parsedBody` is its JSON body when already read. */
  async handle(req: Request, who: Caller, parsedBody?: unknown): Promise<Response> {
    const { tokenId } = who;
    const body = {
      authInfo: principalAuthInfo(who.principalId),
      ...(parsedBody === undefined ? {} : { parsedBody }),
    };
    const id = req.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session || session.tokenId !== tokenId) {
        return jsonRpcErrorHttpResponse(404, null, { code: -32001, message: "Session not found" });
      }
      session.lastSeen = Date.now();
      return session.transport.handleRequest(req, body);
    }
    if (req.method !== "POST") {
      return jsonRpcErrorHttpResponse(400, null, {
        code: -32000,
        message: "Bad Request: Mcp-Session-Id header is required",
      });
    }
    const refusal = this.overLimit(tokenId);
    if (refusal) return refusal;
    this.opening++;
    try {
      return await this.open(req, who, body, this.countSession(tokenId));
    } finally {
      this.opening--;
    }
  }

  /** 429 when `tokenId`, or the server, has as many sessions as allowed. */
  private overLimit(tokenId: string): Response | undefined {
    const { maxPerToken, maxTotal, idleMs } = this.deps.limits;
    const idle = `idle sessions close after ${Math.round(idleMs / 1000)} s`;
    const retry = {
      "retry-after": String(Math.max(1, Math.ceil(Math.min(idleMs, 60_000) / 1000))),
    };
    const tooMany = (message: string) =>
      jsonRpcErrorHttpResponse(429, null, { code: -32000, message }, retry);
    if ((this.perToken.get(tokenId) ?? 0) >= maxPerToken) {
      return tooMany(
        `Too many sessions: this token has ${maxPerToken} open MCP sessions ([server.http] max_sessions_per_token). ` +
          `End unused ones (HTTP DELETE with their Mcp-Session-Id) or reuse one; ${idle}.`,
      );
    }
    if (this.sessions.size + this.opening >= maxTotal) {
      return tooMany(
        `Too many sessions: the server has ${maxTotal} open MCP sessions ([server.http] max_sessions). ` +
          `Retry later; ${idle}.`,
      );
    }
    return undefined;
  }

  /** Count a session of `tokenId`; returns its release (idempotent). */
  private countSession(tokenId: string): () => void {
    this.perToken.set(tokenId, (this.perToken.get(tokenId) ?? 0) + 1);
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      const left = (this.perToken.get(tokenId) ?? 1) - 1;
      if (left <= 0) this.perToken.delete(tokenId);
      else this.perToken.set(tokenId, left);
    };
  }

  /** A POST without a session: an `initialize`, answered by a new session. */
  private async open(
    req: Request,
    { tokenId, principalId }: Caller,
    body: { authInfo: AuthInfo; parsedBody?: unknown },
    release: () => void,
  ): Promise<Response> {
    const id = randomUUID();
    const { limits } = this.deps;
    // The `initialize` as sent: its clientInfo.proxy, which the SDK drops.
    const opening = rawMessage(body.parsedBody);
    const clientInfo = opening && initializeClientInfo(opening);
    const { principal, atlatl } = this.deps.servers.create(
      principalId,
      clientInfo ? { clientInfo } : undefined,
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: new BoundedEventStore(limits.resumeBytes),
      onsessioninitialized: () => {
        this.sessions.set(id, { id, tokenId, principal, transport, atlatl, lastSeen: Date.now() });
        principal.active++;
        this.deps.onChange?.(this.sessions.size);
      },
    });
    let forgotten = false;
    transport.onclose = () => {
      if (forgotten) return;
      forgotten = true;
      void this.forget(id, atlatl, release);
    };
    let res: Response;
    try {
      await atlatl.server.connect(transport);
      res = await transport.handleRequest(req, body);
    } finally {
      // Not an initialize (or a failed one): nothing to keep, no session to count.
      if (!this.sessions.has(id)) {
        release();
        await atlatl.close().catch(() => {});
      }
    }
    return res;
  }

  /** A session ended: its principal's files stay for their TTL (another session may read them). */
  private async forget(id: string, atlatl: AtlatlServer, release: () => void): Promise<void> {
    release();
    const session = this.sessions.get(id);
    if (session) {
      this.sessions.delete(id);
      session.principal.active--;
      this.deps.onChange?.(this.sessions.size);
    }
    await atlatl.close().catch(() => {});
  }

  private async closeIdle(): Promise<void> {
    const cutoff = Date.now() - this.deps.limits.idleMs;
    for (const s of [...this.sessions.values()]) {
      if (s.lastSeen < cutoff) await s.transport.close().catch(() => {});
    }
  }

  /** Close every session (shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.idleTimer);
    await Promise.all([...this.sessions.values()].map((s) => s.transport.close().catch(() => {})));
  }
}
