/**
 * The proxy's local LRO: one `Offloader` (its write pipeline, ULIDs,
 * attachments and sweeper), `lro_extract` and the offload resources mounted on
 * the client-facing low-level `Server`, and every upstream result handed to
 * `@atlatl/lro`'s response boundary (`respond`) with the tool's policy. The
 * proxy has no offload code of its own: a negotiated whole set (an upstream
 * that saw our `LRO_PROXY_CAPABILITY`) and any other result are judged there.
 */
import { LroEvents } from "@atlatl/lro";
import {
  type ResourcesUpstream,
  type ResponsePolicy,
  registerLroExtract,
  registerOffloadResources,
  respond,
  type ToolsUpstream,
} from "@atlatl/lro/mcp";
import { type OffloadConfig, Offloader } from "@atlatl/lro/node";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** What the engine needs to know about one tool call. */
export interface ToolCallInfo {
  name: string;
  policy: ResponsePolicy;
}

/** Options of {@link createProxyEngine}. */
export interface ProxyEngineOptions {
  config: OffloadConfig;
  /** Name the extraction tool is listed under (`lro_extract` unless it clashes). */
  extractToolName: string;
  /** URI prefix of offload resources (`atlatl://offload/` unless it clashes). */
  resourcePrefix: string;
  events?: LroEvents;
  /**
   * The client-facing low-level server: `lro_extract` and the offload resources
   * are mounted on it (it notifies `resources/list_changed` when files appear
   * or expire). Default: a server of the engine's own, unconnected (the
   * extraction tool is still reachable through `callExtract`).
   */
  server?: Server;
  /** The upstream's tools and resources, served beside ours. */
  upstream?: { tools?: ToolsUpstream; resources?: ResourcesUpstream };
}

/** The engine as the proxy sees it. */
export interface ProxyEngine {
  readonly config: OffloadConfig;
  readonly extractToolName: string;
  /** `result` itself when it stays inline, else the descriptor result. Never throws. */
  offloadCallResult(result: CallToolResult, call: ToolCallInfo): Promise<CallToolResult>;
  /** Run the extraction tool (as a `tools/call` of it would). */
  callExtract(args: Record<string, unknown> | undefined): Promise<CallToolResult>;
  /** True for URIs of offload resources. */
  ownsUri(uri: string): boolean;
  close(): Promise<void>;
}

/** Create the engine: one offloader and its sweeper, `lro_extract` and the resources on `server`. */
export async function createProxyEngine(options: ProxyEngineOptions): Promise<ProxyEngine> {
  const events = options.events ?? new LroEvents();
  const offloader = new Offloader({ config: options.config, events });
  const config = offloader.config;
  const names = { resourcePrefix: options.resourcePrefix };
  const server =
    options.server ?? new Server({ name: "atlatl-proxy", version: "0.1.0" }, { capabilities: {} });
  const extract = registerLroExtract(server, {
    offloader,
    names,
    toolName: options.extractToolName,
    ...(options.upstream?.tools ? { upstream: options.upstream.tools } : {}),
  });
  const resources = registerOffloadResources(server, {
    config,
    events,
    names,
    ...(options.upstream?.resources ? { upstream: options.upstream.resources } : {}),
  });
  // Attachments (images, blobs) are offload files too: the one sweeper deletes them.
  const sweeper = offloader.startSweeper();

  return {
    config,
    extractToolName: options.extractToolName,

    offloadCallResult(result, call) {
      return respond(result, {
        offloader,
        policy: call.policy,
        callResults: true,
        operation: call.name,
        descriptorFields: { tool: call.name },
      });
    },

    callExtract(args) {
      return extract.call(args ?? {});
    },

    ownsUri(uri) {
      return uri.startsWith(options.resourcePrefix);
    },

    async close() {
      sweeper.stop();
      resources.close();
      await extract.close();
    },
  };
}
