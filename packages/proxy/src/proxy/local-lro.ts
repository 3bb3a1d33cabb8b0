/**
 * The proxy's local LRO: one `Offloader` (its write pipeline, ULIDs,
 * attachments and sweeper) and one `lro_extract`, mounted with the offload
 * resources on each client-facing low-level `Server` (`serveStdio` may build
 * two: a discarded `server/discover` probe, then the one it keeps), and every
 * upstream result handed to `@atlatl/lro`'s response boundary (`respond`)
 * with the tool's policy. The proxy has no offload code of its own: a
 * negotiated whole set (an upstream that saw our `LRO_PROXY_CAPABILITY`) and
 * any other result are judged there.
 */
import { LroEvents } from "@atlatl/lro";
import {
  mountTools,
  type ResourcesUpstream,
  type ResponsePolicy,
  registerLroExtract,
  registerOffloadResources,
  respond,
  type ToolsUpstream,
  toolErrorResult,
} from "@atlatl/lro/mcp";
import { type OffloadConfig, Offloader } from "@atlatl/lro/node";
import {
  type CallToolRequest,
  type CallToolResult,
  type ListResourcesRequest,
  type ListResourcesResult,
  type ListResourceTemplatesRequest,
  type ListResourceTemplatesResult,
  type ListToolsRequest,
  type ListToolsResult,
  type ReadResourceRequest,
  type ReadResourceResult,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";

/** What the engine needs to know about one tool call. */
export interface ToolCallInfo {
  name: string;
  policy: ResponsePolicy;
  /** What the proxy cut of the result and why: the descriptor's `warning` if it is offloaded. */
  warning?: string;
}

/** Options of {@link createProxyEngine}. */
interface ProxyEngineOptions {
  config: OffloadConfig;
  /** Name the extraction tool is listed under (`lro_extract` unless it clashes). */
  extractToolName: string;
  /** URI prefix of offload resources (`atlatl://offload/` unless it clashes). */
  resourcePrefix: string;
  /**
   * List the extraction tool (default true; `listsExtractTool`). Without it
   * the descriptors' guidance is the shell's (the offloader is never told of a
   * tool), and the tool is not served.
   */
  extractTool?: boolean;
  events?: LroEvents;
}

/** The upstream's tools and resources, served beside ours on a mounted server. */
interface EngineUpstream {
  tools?: {
    listTools(request: ListToolsRequest, ctx: ServerContext): Promise<ListToolsResult>;
    callTool(request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult>;
  };
  resources?: {
    listResources(request: ListResourcesRequest, ctx: ServerContext): Promise<ListResourcesResult>;
    listResourceTemplates(
      request: ListResourceTemplatesRequest,
      ctx: ServerContext,
    ): Promise<ListResourceTemplatesResult>;
    readResource(request: ReadResourceRequest, ctx: ServerContext): Promise<ReadResourceResult>;
  };
}

/**
 * `@atlatl/lro/mcp` serves any SDK line by shape but types its hooks with SDK
 * 1.x's types; ours are 2.x's, the same wire shapes, and the 2.x server hands
 * the hooks its `ServerContext`.
 */
function asLroHooks(upstream: EngineUpstream): {
  tools?: ToolsUpstream;
  resources?: ResourcesUpstream;
} {
  return upstream as unknown as { tools?: ToolsUpstream; resources?: ResourcesUpstream };
}

/** The engine as the proxy sees it. */
export interface ProxyEngine {
  readonly config: OffloadConfig;
  readonly extractToolName: string;
  /** Whether the extraction tool is listed (`ProxyEngineOptions.extractTool`). */
  readonly extractToolListed: boolean;
  /**
   * Serve `lro_extract` and, unless `options.resources` is false, the offload
   * resources on `server` (before it is connected), beside `upstream`'s;
   * `server` notifies `resources/list_changed` when files appear or expire.
   * Returns the unmount function.
   */
  mount(server: Server, upstream?: EngineUpstream, options?: { resources?: boolean }): () => void;
  /** `result` itself when it stays inline, else the descriptor result. Never throws. */
  offloadCallResult(result: CallToolResult, call: ToolCallInfo): Promise<CallToolResult>;
  /** Run the extraction tool (as a `tools/call` of it would). */
  callExtract(args: Record<string, unknown> | undefined): Promise<CallToolResult>;
  /** True for URIs of offload resources. */
  ownsUri(uri: string): boolean;
  close(): Promise<void>;
}

/** Create the engine: one offloader and its sweeper, one `lro_extract`. */
export async function createProxyEngine(options: ProxyEngineOptions): Promise<ProxyEngine> {
  const events = options.events ?? new LroEvents();
  const offloader = new Offloader({ config: options.config, events, sweep: false });
  const config = offloader.config;
  const names = { resourcePrefix: options.resourcePrefix };
  // The tool's one registration, on a server of its own that is never
  // connected; `mount` serves its definition and call on the real ones.
  const extract =
    options.extractTool !== false
      ? registerLroExtract(
          new Server({ name: "atlatl-proxy", version: "0.1.0" }, { capabilities: {} }),
          { offloader, names, toolName: options.extractToolName },
        )
      : undefined;
  const tool = extract && { definition: extract.definition, call: extract.call };
  // Attachments (images, blobs) are offload files too: the one sweeper deletes
  // them. Started now, not at the first offload: files of an earlier run go too.
  const sweeper = offloader.startSweeper();
  const mounted = new Set<() => void>();

  return {
    config,
    extractToolName: options.extractToolName,
    extractToolListed: extract !== undefined,

    mount(server, upstream = {}, mountOptions = {}) {
      const hooks = asLroHooks(upstream);
      const unmountTools = mountTools(server, tool, hooks.tools);
      const resources =
        mountOptions.resources === false
          ? undefined
          : registerOffloadResources(server, {
              config,
              events,
              names,
              ...(hooks.resources ? { upstream: hooks.resources } : {}),
            });
      const unmount = () => {
        if (!mounted.delete(unmount)) return;
        unmountTools();
        resources?.close();
      };
      mounted.add(unmount);
      return unmount;
    },

    async offloadCallResult(result, call) {
      return (await respond(asLroResult(result), {
        offloader,
        policy: call.policy,
        callResults: true,
        operation: call.name,
        descriptorFields: { tool: call.name, ...(call.warning ? { warning: call.warning } : {}) },
      })) as CallToolResult;
    },

    async callExtract(args) {
      if (!extract) {
        return toolErrorResult({
          code: "NOT_FOUND",
          message: `${options.extractToolName} is not listed to this client (prompt.offload.extract_tool); run the descriptor's jq recipes in a shell`,
        }) as CallToolResult;
      }
      return (await extract.call(args ?? {})) as CallToolResult;
    },

    ownsUri(uri) {
      return uri.startsWith(options.resourcePrefix);
    },

    async close() {
      sweeper.stop();
      for (const unmount of [...mounted]) unmount();
      await extract?.close();
    },
  };
}

/** A 2.x result for `respond`, typed (like all of `@atlatl/lro/mcp`) with SDK 1.x's types. */
function asLroResult(result: CallToolResult): Parameters<typeof respond>[0] {
  return result as Parameters<typeof respond>[0];
}
