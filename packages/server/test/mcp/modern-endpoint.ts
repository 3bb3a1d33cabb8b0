/**
 * atlatl's factory behind the SDK's `createMcpHandler` (the 2026-07-28
 * serving entry, a fresh instance per request), driven in process with raw
 * JSON-RPC requests: the envelope in `_meta`, no `initialize`, the standard
 * headers. Each request names its principal (`authInfo`), whose tasks it sees.
 * Responses stream (`sse`) so a request's notifications are seen too.
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  createMcpHandler,
  type McpHttpHandler,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { type AtlatlServerDeps, createAtlatlServer } from "../../src/mcp/create-server.js";

export const MODERN = "2026-07-28";

/** One JSON-RPC message of a response. */
export interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** What a request's `_meta` envelope says (capabilities, client info, log level). */
export interface Envelope {
  capabilities?: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  logLevel?: string;
  meta?: Record<string, unknown>;
}

export interface ModernEndpoint {
  handler: McpHttpHandler;
  /** Every message of one request's response, its result or error last. */
  exchange(
    method: string,
    params: Record<string, unknown>,
    options?: Envelope & { principal?: string },
  ): Promise<Message[]>;
  /** The result of one request (throws on a JSON-RPC error). */
  request<R = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown>,
    options?: Envelope & { principal?: string },
  ): Promise<R>;
  close(): Promise<void>;
}

let nextId = 1;

function parseSse(text: string): Message[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim())
    .filter((data) => data.length > 0)
    .map((data) => JSON.parse(data) as Message);
}

/** `deps` for each request's principal (its own task owner and, if it likes, offloader). */
export function modernEndpoint(depsOf: (principal: string) => AtlatlServerDeps): ModernEndpoint {
  const handler = createMcpHandler(
    (ctx) => createAtlatlServer(depsOf(ctx.authInfo?.clientId ?? "local")).server,
    { legacy: "reject", responseMode: "sse", keepAliveMs: 0 },
  );
  const exchange: ModernEndpoint["exchange"] = async (method, params, options = {}) => {
    const id = nextId++;
    const _meta: Record<string, unknown> = {
      ...options.meta,
      [PROTOCOL_VERSION_META_KEY]: MODERN,
      [CLIENT_CAPABILITIES_META_KEY]: options.capabilities ?? {},
      [CLIENT_INFO_META_KEY]: options.clientInfo ?? { name: "modern-test", version: "1.0.0" },
      ...(options.logLevel ? { "io.modelcontextprotocol/logLevel": options.logLevel } : {}),
    };
    const name = (params.name ?? params.uri ?? params.taskId) as string | undefined;
    const res = await handler.fetch(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": method,
          ...(name !== undefined ? { "mcp-name": name } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } }),
      }),
      {
        authInfo: {
          token: options.principal ?? "local",
          clientId: options.principal ?? "local",
          scopes: [],
        },
      },
    );
    const text = await res.text();
    const messages = (res.headers.get("content-type") ?? "").includes("text/event-stream")
      ? parseSse(text)
      : [JSON.parse(text) as Message];
    if (messages.at(-1)?.id !== id) throw new Error(`no answer to ${method}: ${text}`);
    return messages;
  };
  return {
    handler,
    exchange,
    async request<R>(
      method: string,
      params: Record<string, unknown>,
      options?: Envelope & { principal?: string },
    ) {
      const last = (await exchange(method, params, options)).at(-1) as Message;
      if (last.error) {
        throw Object.assign(new Error(last.error.message), { code: last.error.code });
      }
      return last.result as R;
    },
    close: () => handler.close(),
  };
}

/** The first text of a tool result. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}
