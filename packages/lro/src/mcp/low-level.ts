/**
 * Mounting LRO's tool and resources on a low-level `Server` (SDK 1.x's or
 * 2.x's), for servers (proxies) that declare tools and resources as JSON
 * Schema at run time instead of through `McpServer`. Our handlers take over
 * the methods and serve the `upstream`'s entries beside ours: ours are
 * appended to the last page of a list; calls and reads not ours go to the
 * upstream.
 */
import { z } from "zod";
import {
  hostCallback,
  INVALID_PARAMS,
  isMethodKeyed,
  JsonRpcError,
  type LowLevelServer,
  type LowLevelServerBase,
} from "./host.js";
import type {
  AnyCallToolResult,
  CallToolRequest,
  ListResourcesRequest,
  ListResourcesResultLike,
  ListResourceTemplatesRequest,
  ListResourceTemplatesResultLike,
  ListToolsRequest,
  ListToolsResultLike,
  ReadResourceRequest,
  ReadResourceResult,
  ReadResourceResultLike,
  Resource,
  ResourceTemplate,
  ToolLike,
} from "./mcp-types.js";

/**
 * The `extra` argument of low-level request handlers, passed to the upstream
 * as the host's SDK gave it (SDK 1.x's `RequestHandlerExtra`, SDK 2.x's
 * `ServerContext`), untouched and so untyped here: an upstream declares its
 * own (`callTool(request, ctx: ServerContext)` fits `ToolsUpstream`).
 */
export type HandlerExtra = unknown;

/**
 * The tools a low-level server serves besides ours. Results are passed on
 * untouched, so any SDK line's types fit.
 */
export interface ToolsUpstream<Extra = HandlerExtra> {
  listTools?(request: ListToolsRequest, extra: Extra): Promise<ListToolsResultLike>;
  callTool?(request: CallToolRequest, extra: Extra): Promise<AnyCallToolResult>;
}

/** The resources a low-level server serves besides ours. */
export interface ResourcesUpstream<Extra = HandlerExtra> {
  listResources?(request: ListResourcesRequest, extra: Extra): Promise<ListResourcesResultLike>;
  listResourceTemplates?(
    request: ListResourceTemplatesRequest,
    extra: Extra,
  ): Promise<ListResourceTemplatesResultLike>;
  readResource?(request: ReadResourceRequest, extra: Extra): Promise<ReadResourceResultLike>;
}

/**
 * The requests we handle, as SDK 1.x dispatches them (by the `method`
 * literal) and as they reach the handler: unknown keys kept, so an upstream
 * receives the request as the client sent it. SDK 2.x validates requests
 * itself and dispatches by method name.
 */
const listParams = z.looseObject({ cursor: z.string().optional() }).optional();
const requests = {
  "tools/list": z.looseObject({ method: z.literal("tools/list"), params: listParams }),
  "tools/call": z.looseObject({
    method: z.literal("tools/call"),
    params: z.looseObject({
      name: z.string(),
      arguments: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
  "resources/list": z.looseObject({ method: z.literal("resources/list"), params: listParams }),
  "resources/templates/list": z.looseObject({
    method: z.literal("resources/templates/list"),
    params: listParams,
  }),
  "resources/read": z.looseObject({
    method: z.literal("resources/read"),
    params: z.looseObject({ uri: z.string() }),
  }),
};
type Method = keyof typeof requests;

/** Set the handler of `method` in the host's SDK's way. */
function handle<M extends Method, R>(
  server: LowLevelServer,
  method: M,
  handler: (request: z.infer<(typeof requests)[M]>, extra: HandlerExtra) => Promise<R>,
): void {
  const callback = hostCallback((request: z.infer<(typeof requests)[M]>, extra?: HandlerExtra) =>
    handler(request, extra as HandlerExtra),
  );
  if (isMethodKeyed(server)) server.setRequestHandler(method, callback);
  else server.setRequestHandler(requests[method], callback);
}

/** Declare a capability while that is still allowed (before connecting). */
function declare(
  server: LowLevelServerBase,
  capabilities: Parameters<LowLevelServerBase["registerCapabilities"]>[0],
) {
  try {
    server.registerCapabilities(capabilities);
  } catch {
    // Connected already: the server must have declared it itself.
  }
}

/**
 * Serve `tool` (and the upstream's tools) on `server`; returns the unmount
 * function. Without `tool` (a client that is not given `lro_extract`), the
 * upstream's alone, through the same handlers.
 */
export function mountTools(
  server: LowLevelServer,
  tool:
    | { definition: ToolLike; call(args: unknown, extra?: unknown): Promise<AnyCallToolResult> }
    | undefined,
  upstream: ToolsUpstream = {},
): () => void {
  declare(server, { tools: {} });
  // SDK 2.x asks low-level `tools/call` handlers to project results for the client's era.
  const project = isMethodKeyed(server)
    ? (result: AnyCallToolResult) => server.projectCallToolResult(result, undefined)
    : (result: AnyCallToolResult): unknown => result;
  handle(server, "tools/list", async (request, extra) => {
    const page = upstream.listTools
      ? await upstream.listTools(request as ListToolsRequest, extra)
      : { tools: [] };
    if (page.nextCursor || !tool) return page;
    return { ...page, tools: [...page.tools, tool.definition] };
  });
  handle(server, "tools/call", async (request, extra) => {
    if (tool && request.params.name === tool.definition.name) {
      return project(await tool.call(request.params.arguments, extra));
    }
    if (upstream.callTool) return project(await upstream.callTool(request, extra));
    throw new JsonRpcError(INVALID_PARAMS, `Tool ${request.params.name} not found`);
  });
  return () => {
    server.removeRequestHandler("tools/list");
    server.removeRequestHandler("tools/call");
  };
}

/** Our resources, as the low-level handlers serve them. */
export interface OwnResources {
  list(): Promise<Resource[]>;
  template: ResourceTemplate;
  /** True for a URI of ours. */
  owns(uri: string): boolean;
  /**
   * MCP 2026-07-28 cache fields of the last list page (the one ours join),
   * overriding the upstream's: our entries change on their own.
   */
  listCache?: { cacheScope: "private" | "public"; ttlMs: number };
  read(uri: URL): Promise<ReadResourceResult>;
}

/** Serve `own` (and the upstream's resources) on `server`; returns the unmount function. */
export function mountResources(
  server: LowLevelServer,
  own: OwnResources,
  upstream: ResourcesUpstream = {},
): () => void {
  declare(server, { resources: { listChanged: true } });
  handle(server, "resources/list", async (request, extra) => {
    const page = upstream.listResources
      ? await upstream.listResources(request as ListResourcesRequest, extra)
      : { resources: [] };
    if (page.nextCursor) return page;
    return { ...page, resources: [...page.resources, ...(await own.list())], ...own.listCache };
  });
  handle(server, "resources/templates/list", async (request, extra) => {
    const page = upstream.listResourceTemplates
      ? await upstream.listResourceTemplates(request as ListResourceTemplatesRequest, extra)
      : { resourceTemplates: [] };
    if (page.nextCursor) return page;
    return {
      ...page,
      resourceTemplates: [...page.resourceTemplates, own.template],
      ...own.listCache,
    };
  });
  handle(server, "resources/read", async (request, extra) => {
    const uri = request.params.uri;
    if (own.owns(uri)) {
      let url: URL;
      try {
        url = new URL(uri);
      } catch {
        throw new JsonRpcError(INVALID_PARAMS, `malformed resource URI ${uri}`);
      }
      return own.read(url);
    }
    if (upstream.readResource) return upstream.readResource(request, extra);
    throw new JsonRpcError(INVALID_PARAMS, `Resource ${uri} not found`);
  });
  return () => {
    server.removeRequestHandler("resources/list");
    server.removeRequestHandler("resources/templates/list");
    server.removeRequestHandler("resources/read");
  };
}
