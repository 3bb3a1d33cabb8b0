import { randomUUID } from "node:crypto";
import { Offloader } from "@atlatl/lro/node";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { App } from "../../app/open-app.js";
import { type AtlatlServer, createAtlatlServer } from "../../mcp/create-server.js";
import type { SharedExtraction } from "../../mcp/shared-extraction.js";
import { BoundedEventStore } from "./bounded-event-store.js";
import { removeSessionDir, sessionOffloadDir } from "./session-dirs.js";

/** A session not used for this long is closed (its client vanished without DELETE). */
export const SESSION_IDLE_MS = 60 * 60 * 1000;

interface Session {
  id: string;
  tokenId: string;
  dir: string;
  transport: WebStandardStreamableHTTPServerTransport;
  atlatl: AtlatlServer;
  lastSeen: number;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/**
 * MCP over Streamable HTTP: one `McpServer` (and transport) per session, over
 * the process's one store, services and extraction engine. A session belongs
 * to the token that opened it; any other token gets "Session not found".
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly dirs = new Set<string>();
  private readonly idleTimer: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      app: Pick<App, "services" | "config" | "events">;
      extraction: SharedExtraction;
      onChange?: (active: number) => void;
    },
  ) {
    this.idleTimer = setInterval(() => void this.closeIdle(), 60_000);
    this.idleTimer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** True while `dir` is the offload directory of a live session. */
  isLiveDir(dir: string): boolean {
    return this.dirs.has(dir);
  }

  async handle(req: Request, tokenId: string): Promise<Response> {
    const id = req.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session || session.tokenId !== tokenId) {
        return jsonRpcError(404, -32001, "Session not found");
      }
      session.lastSeen = Date.now();
      return session.transport.handleRequest(req);
    }
    if (req.method !== "POST") {
      return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    return this.open(req, tokenId);
  }

  /** A POST without a session: an `initialize`, answered by a new session. */
  private async open(req: Request, tokenId: string): Promise<Response> {
    const id = randomUUID();
    const dir = sessionOffloadDir(this.deps.app.config.offload.outputDir, id);
    const { app, extraction } = this.deps;
    const offloader = new Offloader({
      config: { ...app.config.offload, outputDir: dir },
      events: app.events,
    });
    const atlatl = createAtlatlServer({
      services: app.services,
      offloader,
      extraction,
      sessionScoped: true,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: new BoundedEventStore(),
      onsessioninitialized: () => {
        this.sessions.set(id, { id, tokenId, dir, transport, atlatl, lastSeen: Date.now() });
        this.dirs.add(dir);
        this.deps.onChange?.(this.sessions.size);
      },
    });
    let forgotten = false;
    transport.onclose = () => {
      if (forgotten) return;
      forgotten = true;
      void this.forget(id, atlatl, dir);
    };
    await atlatl.server.connect(transport);
    const res = await transport.handleRequest(req);
    // Not an initialize (or a failed one): nothing to keep.
    if (!this.sessions.has(id)) await atlatl.close().catch(() => {});
    return res;
  }

  private async forget(id: string, atlatl: AtlatlServer, dir: string): Promise<void> {
    const had = this.sessions.delete(id);
    this.dirs.delete(dir);
    if (had) this.deps.onChange?.(this.sessions.size);
    await atlatl.close().catch(() => {});
    await removeSessionDir(dir).catch(() => {});
  }

  private async closeIdle(): Promise<void> {
    const cutoff = Date.now() - SESSION_IDLE_MS;
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
