/**
 * What a request says about its client, read per request: on 2026-07-28 the
 * request's own `_meta` envelope (`ctx.mcpReq.envelope`: client capabilities
 * and client info), on a 2025-11-25 connection what the client declared at
 * `initialize` (`Server.getClientCapabilities()` / `getClientVersion()`, which
 * the SDK keeps for that era, and the `clientInfo` as sent, which the
 * transport layer read: {@link InitializeFacts}). Both are read, so a 2025
 * client that also sends per-request capabilities in `_meta` is heard too.
 */
import { offloadsLocally, requestOffloadsLocally } from "@atlatl/lro/mcp";
import { envelopeFacts } from "@atlatl/lro/node";
import {
  type ClientCapabilities,
  type Implementation,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";

/** One request's client, as far as it said. */
interface RequestClient {
  /** The request envelope's, else `initialize`'s. */
  capabilities: ClientCapabilities | undefined;
  /** The request envelope's, else `initialize`'s (unknown keys such as `proxy` kept). */
  clientInfo: (Implementation & Record<string, unknown>) | undefined;
}

/**
 * A 2025-11-25 connection's `initialize` as the client sent it, filled in by
 * the transport layer that read the raw message (stdio's request gate, an
 * HTTP session's opening body): the SDK 2.x server validates `clientInfo`
 * against its `Implementation` schema and keeps no unknown key, so
 * `clientInfo.proxy: true` (the LRO specification's proxy signal) is read
 * from here.
 */
export interface InitializeFacts {
  clientInfo?: Record<string, unknown> | undefined;
}

/** The handler context fields client facts are read from. */
export type FactsContext = Pick<ServerContext, "mcpReq">;

function objectAt(record: Record<string, unknown> | undefined, key: string) {
  const value = record?.[key];
  return typeof value === "object" && value !== null ? value : undefined;
}

/**
 * True for a 2026-07-28 request: it carries its protocol version in its
 * `_meta` envelope (a 2025-11-25 request never does; its version was
 * negotiated at `initialize`).
 */
export function isModernRequest(ctx: FactsContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return typeof envelope?.[PROTOCOL_VERSION_META_KEY] === "string";
}

/** True when the request's envelope declares the client extension `id` (2026-07-28). */
export function requestDeclaresExtension(ctx: FactsContext, id: string): boolean {
  const { capabilities } = envelopeFacts(
    ctx.mcpReq.envelope as Record<string, unknown> | undefined,
  );
  return objectAt(objectAt(capabilities, "extensions") as never, id) !== undefined;
}

/** The `clientInfo` sent at `initialize`: as sent when the transport read it, else the SDK's. */
function sentClientInfo(server: Server, initialize: InitializeFacts | undefined) {
  return (initialize?.clientInfo ?? server.getClientVersion()) as RequestClient["clientInfo"];
}

/**
 * The client of the request `ctx` is the context of, on `server`
 * (`McpServer.server`), whose connection's `initialize` was `initialize`.
 */
function requestClient(
  ctx: FactsContext,
  server: Server,
  initialize?: InitializeFacts,
): RequestClient {
  const envelope = envelopeFacts(ctx.mcpReq.envelope as Record<string, unknown> | undefined);
  return {
    capabilities:
      (envelope.capabilities as ClientCapabilities | undefined) ?? server.getClientCapabilities(),
    clientInfo:
      (envelope.clientInfo as RequestClient["clientInfo"]) ?? sentClientInfo(server, initialize),
  };
}

/**
 * True when the request's client offloads locally (an LRO proxy): it said so
 * in its capabilities or client info (`offloadsLocally`), at `initialize` or in
 * this request's envelope, or in this request's own `_meta`.
 */
function clientOffloadsLocally(
  ctx: FactsContext,
  server: Server,
  initialize?: InitializeFacts,
): boolean {
  const facts = requestClient(ctx, server, initialize);
  return (
    offloadsLocally(facts.capabilities, facts.clientInfo) ||
    offloadsLocally(server.getClientCapabilities(), sentClientInfo(server, initialize)) ||
    requestOffloadsLocally(ctx.mcpReq._meta)
  );
}

/** The `clientInfo.name` of the request's client (its envelope's, else `initialize`'s), if it sent one. */
export function clientName(
  ctx: FactsContext,
  server: Server,
  initialize?: InitializeFacts,
): string | undefined {
  const name = requestClient(ctx, server, initialize).clientInfo?.name;
  return typeof name === "string" ? name : undefined;
}

/** A tool call's context: the SDK's handler context and what its client said of itself. */
export type ToolCallContext = ServerContext & {
  /** Read once per call, from the request and its connection (`clientOffloadsLocally`). */
  readonly offloadsLocally: boolean;
  /** The client's `clientInfo.name` ({@link clientName}). */
  readonly clientName: string | undefined;
};

/** `ctx` of a `tools/call` on `server` with its client's facts. */
export function toolCallContext(
  ctx: ServerContext,
  server: Server,
  initialize?: InitializeFacts,
): ToolCallContext {
  return {
    ...ctx,
    offloadsLocally: clientOffloadsLocally(ctx, server, initialize),
    clientName: clientName(ctx, server, initialize),
  };
}
