/**
 * Mounting LRO's tool and resources on the SDK's low-level `Server`, for
 * servers (proxies) that declare tools and resources as JSON Schema at run
 * time instead of through `McpServer`. Our handlers take over the methods and
 * serve the `upstream`'s entries beside ours: ours are appended to the last
 * page of a list; calls and reads not ours go to the upstream.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type ListResourcesRequest,
  ListResourcesRequestSchema,
  type ListResourcesResult,
  type ListResourceTemplatesRequest,
  ListResourceTemplatesRequestSchema,
  type ListResourceTemplatesResult,
  type ListToolsRequest,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
  type ReadResourceRequest,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

/** The `extra` argument of low-level request handlers. */
export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The tools a low-level server serves besides ours. */
export interface ToolsUpstream {
  listTools?(request: ListToolsRequest, extra: HandlerExtra): Promise<ListToolsResult>;
  callTool?(request: CallToolRequest, extra: HandlerExtra): Promise<CallToolResult>;
}

/** The resources a low-level server serves besides ours. */
export interface ResourcesUpstream {
  listResources?(request: ListResourcesRequest, extra: HandlerExtra): Promise<ListResourcesResult>;
  listResourceTemplates?(
    request: ListResourceTemplatesRequest,
    extra: HandlerExtra,
  ): Promise<ListResourceTemplatesResult>;
  readResource?(request: ReadResourceRequest, extra: HandlerExtra): Promise<ReadResourceResult>;
}

/** Declare a capability while that is still allowed (before connecting). */
function declare(server: Server, capabilities: Parameters<Server["registerCapabilities"]>[0]) {
  try {
    server.registerCapabilities(capabilities);
  } catch {
    // Connected already: the server must have declared it itself.
  }
}

/** Serve `tool` (and the upstream's tools) on `server`; returns the unmount function. */
export function mountTools(
  server: Server,
  tool: { definition: Tool; call(args: unknown): Promise<CallToolResult> },
  upstream: ToolsUpstream = {},
): () => void {
  declare(server, { tools: {} });
  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const page = upstream.listTools ? await upstream.listTools(request, extra) : { tools: [] };
    if (page.nextCursor) return page;
    return { ...page, tools: [...page.tools, tool.definition] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name === tool.definition.name) return tool.call(request.params.arguments);
    if (upstream.callTool) return upstream.callTool(request, extra);
    throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
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
  read(uri: URL): Promise<ReadResourceResult>;
}

/** Serve `own` (and the upstream's resources) on `server`; returns the unmount function. */
export function mountResources(
  server: Server,
  own: OwnResources,
  upstream: ResourcesUpstream = {},
): () => void {
  declare(server, { resources: { listChanged: true } });
  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const page = upstream.listResources
      ? await upstream.listResources(request, extra)
      : { resources: [] };
    if (page.nextCursor) return page;
    return { ...page, resources: [...page.resources, ...(await own.list())] };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request, extra) => {
    const page = upstream.listResourceTemplates
      ? await upstream.listResourceTemplates(request, extra)
      : { resourceTemplates: [] };
    if (page.nextCursor) return page;
    return { ...page, resourceTemplates: [...page.resourceTemplates, own.template] };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    if (own.owns(uri)) {
      let url: URL;
      try {
        url = new URL(uri);
      } catch {
        throw new McpError(ErrorCode.InvalidParams, `malformed resource URI ${uri}`);
      }
      return own.read(url);
    }
    if (upstream.readResource) return upstream.readResource(request, extra);
    throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
  });
  return () => {
    server.removeRequestHandler("resources/list");
    server.removeRequestHandler("resources/templates/list");
    server.removeRequestHandler("resources/read");
  };
}
