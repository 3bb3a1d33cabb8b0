/**
 * The MCP servers LRO's tool and resources mount on, described by shape: no
 * SDK class is imported at run time, so a host on any copy of
 * `@modelcontextprotocol/sdk` 1.x or on 2.x (`@modelcontextprotocol/server`)
 * is recognised by what it declares, never by `instanceof` (which a second
 * SDK copy silently fails).
 *
 * - {@link McpServerHost}: a high-level `McpServer` (`registerTool`,
 *   `registerResource`) of either line.
 * - {@link SchemaKeyedServer}: SDK 1.x's low-level `Server`, whose
 *   `setRequestHandler` takes a request schema (an object schema with a
 *   `method` literal).
 * - {@link MethodKeyedServer}: SDK 2.x's low-level `Server`, whose
 *   `setRequestHandler` takes the method name and which projects `tools/call`
 *   results for the negotiated protocol era (`projectCallToolResult`).
 */
import type { AnyCallToolResult } from "../../protocol/mcp-types.js";

/**
 * A callback or request handler as a host declares it. Each SDK types them
 * from its own schemas; ours are typed from LRO's, so they are handed over as
 * this (see `hostCallback`): the host calls them only with what it validated.
 */
export type HostCallback = (input: unknown, extra: unknown) => Promise<never>;

/** `callback` in the shape a host declares (its input validated by the host against our schema). */
export function hostCallback<I, R, E = unknown>(
  callback: (input: I, extra?: E) => Promise<R>,
): HostCallback {
  return callback as unknown as HostCallback;
}

/** A registration the host can withdraw (`RegisteredTool`, `RegisteredResourceTemplate`). */
export interface Removable {
  remove(): void;
}

/** The connection state both lines' low-level `Server` exposes. */
export interface ConnectionState {
  readonly transport: unknown;
  getClientVersion(): unknown;
  /** The revision the connection speaks (both lines have it; 2.x reports 2026-07-28 without an `initialize`). */
  getNegotiatedProtocolVersion?(): string | undefined;
  /** Called once the client has sent `notifications/initialized` (chained, never replaced). */
  oninitialized?: (() => void) | undefined;
  onclose?: (() => void) | undefined;
}

/** What `registerTool` is given: a zod object as `inputSchema` (both lines accept zod v4). */
export interface HostToolConfig {
  title?: string;
  description?: string;
  inputSchema?: object;
  annotations?: {
    readOnlyHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** What `registerResource` is given with a resource template. */
interface HostResourceConfig {
  title?: string;
  description?: string;
  mimeType?: string;
}

/**
 * A high-level `McpServer` of SDK 1.x or 2.x. `Template` is its SDK's
 * `ResourceTemplate` (the host's own class, passed to
 * `registerOffloadResources`), `Tool` and `Resource` what its registrations
 * return.
 */
export interface McpServerHost<Tool extends Removable = Removable, Template = never> {
  // Method syntax on purpose: each SDK declares these generic and overloaded,
  // and only method parameters are compared loosely enough to accept both.
  registerTool(name: string, config: HostToolConfig, callback: HostCallback): Tool;
  registerResource(
    name: string,
    template: Template,
    config: HostResourceConfig,
    read: HostCallback,
  ): Removable;
  isConnected(): boolean;
  sendResourceListChanged(): unknown;
  readonly server: ConnectionState;
}

/** The parts of a low-level `Server` both lines share. */
export interface LowLevelServerBase extends ConnectionState {
  registerCapabilities(capabilities: {
    tools?: Record<string, never>;
    resources?: { listChanged?: boolean };
  }): void;
  removeRequestHandler(method: string): void;
  sendResourceListChanged(): Promise<void>;
}

/** A request schema SDK 1.x dispatches by: an object schema whose `method` is a literal. */
type RequestSchema = object;

/** SDK 1.x's low-level `Server`: handlers keyed by request schema. */
interface SchemaKeyedServer extends LowLevelServerBase {
  setRequestHandler(schema: RequestSchema, handler: HostCallback): void;
}

/** SDK 2.x's low-level `Server`: handlers keyed by method name; results projected per era. */
interface MethodKeyedServer extends LowLevelServerBase {
  setRequestHandler(method: string, handler: HostCallback): void;
  projectCallToolResult(result: AnyCallToolResult, advertisedOutputSchema: undefined): unknown;
}

/** A low-level `Server` of either line. */
export type LowLevelServer = SchemaKeyedServer | MethodKeyedServer;

/** Any server LRO mounts on. */
export type McpHost<Tool extends Removable = Removable, Template = never> =
  | McpServerHost<Tool, Template>
  | LowLevelServer;

/** True for a high-level `McpServer` (it declares `registerTool` and `registerResource`). */
export function isMcpServerHost<Tool extends Removable, Template>(
  host: McpHost<Tool, Template>,
): host is McpServerHost<Tool, Template> {
  const h = host as Partial<McpServerHost<Tool, Template>>;
  return typeof h.registerTool === "function" && typeof h.registerResource === "function";
}

/** True for SDK 2.x's low-level `Server` (it declares `projectCallToolResult`). */
export function isMethodKeyed(server: LowLevelServer): server is MethodKeyedServer {
  return typeof (server as Partial<MethodKeyedServer>).projectCallToolResult === "function";
}

/**
 * An error a request handler throws for the SDK to send as a JSON-RPC error
 * (both lines read `code` and `data`).
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
}

/** JSON-RPC's "Invalid params". */
export const INVALID_PARAMS = -32602;

/** JSON-RPC's "Internal error". */
export const INTERNAL_ERROR = -32603;

/**
 * A resource that is not there, as SDK 2.x's `ResourceNotFoundError` says it
 * (MCP 2026-07-28: -32602 with `data.uri`); SDK 1.x answers an unknown
 * resource with -32602 too.
 */
export function resourceNotFound(uri: string, message: string): JsonRpcError {
  return new JsonRpcError(INVALID_PARAMS, message, { uri });
}
