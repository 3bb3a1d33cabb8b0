/**
 * The client-facing low-level `Server` that `serveStdio`'s factory returns,
 * one per connection era (a discarded `server/discover` probe may come
 * first). It answers with the upstream's `serverInfo`, instructions and
 * capabilities; the proxy's own handlers are LRO's (`tools/*`, `resources/*`
 * through the engine) and `prompts/get` (so its input requests take the
 * multi-round-trip path); everything else goes to the upstream through the
 * documented fallback handlers. Spec methods the connection's era lacks are
 * refused by the SDK before they get here.
 */
import {
  type CallToolResult,
  type Implementation,
  isInputRequiredResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type Notification,
  type ProtocolEra,
  type ReadResourceResult,
  type Request,
  ResourceNotFoundError,
  type Result,
  Server,
  type ServerCapabilities,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { type ProxyConfig, policyFor } from "../config/proxy-config.js";
import { METHOD_NOT_FOUND, rpcError } from "./forward.js";
import type { ProxyEngine } from "./local-lro.js";
import { withoutTasks } from "./no-tasks.js";
import { withoutOutputSchema } from "./output-schema.js";
import { cutDeepToolResult } from "./result-depth.js";

/** A connection's protocol era: `legacy` (2025-11-25 and before) or `modern` (2026-07-28). */
export type Era = ProtocolEra;

/** What a downstream server needs from the rest of the proxy. */
export interface DownstreamDeps {
  config: ProxyConfig;
  engine: ProxyEngine;
  upstreamInfo: Implementation | undefined;
  upstreamCaps: ServerCapabilities;
  upstreamEra: Era;
  instructions: string | undefined;
  /** Serve offload files as resources to this client (`servesOffloadResources`). */
  offloadResources: boolean;
  /**
   * Send `request` to the upstream for the handler with context `ctx`;
   * `inputCapable` for the methods whose 2026 result may ask for input.
   */
  toUpstream(request: Request, ctx: ServerContext, inputCapable?: boolean): Promise<Result>;
  /** Pass a client notification on to the upstream. */
  notifyUpstream(notification: Notification): Promise<void>;
  /** The 2025 client's `logging/setLevel`, when the upstream has no such method. */
  setLogLevel(level: string): void;
}

/**
 * The capabilities we serve: the upstream's, without what the proxy does not
 * relay (tasks; resource subscriptions unless both sides speak 2025),
 * plus our tool and, when `offloadResources`, our resources (whose list
 * changes). Without them `resources` is the upstream's, or absent.
 */
export function servedCapabilities(
  caps: ServerCapabilities,
  era: Era,
  upstreamEra: Era,
  offloadResources = true,
): ServerCapabilities {
  const { resources: upstreamResources, ...rest } = withoutTasks(caps);
  const { subscribe, ...resources } = upstreamResources ?? {};
  const subscribable = era === "legacy" && upstreamEra === "legacy" && subscribe !== undefined;
  const served = { ...resources, ...(subscribable ? { subscribe } : {}) };
  return {
    ...rest,
    tools: { ...(caps.tools ?? {}) },
    ...(offloadResources
      ? { resources: { ...served, listChanged: true } }
      : upstreamResources
        ? { resources: served }
        : {}),
  };
}

/** A new downstream server for a connection of `era`; `onInitialized` fires on a 2025 client's `initialized`. */
export function buildDownstreamServer(
  era: Era,
  deps: DownstreamDeps,
  onInitialized: () => void,
): Server {
  const { config, engine, upstreamCaps, toUpstream } = deps;
  const capabilities = servedCapabilities(
    upstreamCaps,
    era,
    deps.upstreamEra,
    deps.offloadResources,
  );
  const srv = new Server(deps.upstreamInfo ?? { name: "atlatl-proxy", version: "0.1.0" }, {
    capabilities,
    ...(deps.instructions ? { instructions: deps.instructions } : {}),
  });
  // The upstream keeps the log level, not us: setLevel goes to the fallback below.
  srv.removeRequestHandler("logging/setLevel");
  // Set before the engine mounts: its resources chain them to track the client.
  srv.oninitialized = onInitialized;
  // A discarded `server/discover` probe instance lets go of the engine.
  let unmount = () => {};
  srv.onclose = () => unmount();

  const mayOffload = (tool: string) =>
    config.offload.enabled && policyFor(config, tool).mode !== "never";
  const ctxOf = (extra: unknown) => extra as ServerContext;

  // Without offload resources the upstream's lists go through the fallback
  // handler; its reads are ours for the input requests they may carry.
  if (!deps.offloadResources && upstreamCaps.resources) {
    srv.setRequestHandler(
      "resources/read",
      async (request, ctx) => (await toUpstream(request, ctx, true)) as never,
    );
  }
  unmount = engine.mount(
    srv,
    {
      tools: {
        listTools: async (request, extra) => {
          const r = (
            upstreamCaps.tools ? await toUpstream(request, ctxOf(extra)) : { tools: [] }
          ) as ListToolsResult;
          return {
            ...r,
            tools: r.tools.map((t) => (mayOffload(t.name) ? withoutOutputSchema(t) : t)),
          };
        },
        callTool: async (request, extra) => {
          const ctx = ctxOf(extra);
          const { result, warning } = cutDeepToolResult(
            (await toUpstream(request, ctx, true)) as CallToolResult,
          );
          if (ctx.mcpReq.signal.aborted || isInputRequiredResult(result)) return result;
          return engine.offloadCallResult(result, {
            name: request.params.name,
            policy: policyFor(config, request.params.name),
            ...(warning ? { warning } : {}),
          });
        },
      },
      resources: {
        listResources: async (request, extra) =>
          (upstreamCaps.resources
            ? await toUpstream(request, ctxOf(extra))
            : { resources: [] }) as ListResourcesResult,
        listResourceTemplates: async (request, extra) =>
          (upstreamCaps.resources
            ? await toUpstream(request, ctxOf(extra))
            : { resourceTemplates: [] }) as ListResourceTemplatesResult,
        readResource: async (request, extra) => {
          // An upstream without resources has none to find: not found (-32602), as a
          // server answers an unknown URI, rather than its -32601 for the method.
          if (!upstreamCaps.resources) throw new ResourceNotFoundError(request.params.uri);
          return (await toUpstream(request, ctxOf(extra), true)) as ReadResourceResult;
        },
      },
    },
    { resources: deps.offloadResources },
  );
  if (upstreamCaps.prompts) {
    srv.setRequestHandler(
      "prompts/get",
      async (request, ctx) => (await toUpstream(request, ctx, true)) as never,
    );
  }

  srv.fallbackRequestHandler = async (request, ctx) => {
    switch (request.method) {
      case "resources/subscribe":
      case "resources/unsubscribe": {
        const uri = String((request.params as { uri?: unknown } | undefined)?.uri ?? "");
        // Offload files never change: a subscription has nothing to report.
        if (deps.offloadResources && engine.ownsUri(uri)) return {};
        if (!capabilities.resources) {
          throw rpcError(
            METHOD_NOT_FOUND,
            `atlatl-proxy: ${request.method}: this server has no resources (offload files are read with a shell${engine.extractToolListed ? ` or ${engine.extractToolName}` : ""})`,
          );
        }
        if (!capabilities.resources.subscribe) {
          throw rpcError(
            METHOD_NOT_FOUND,
            `atlatl-proxy: ${request.method} is not relayed: the upstream speaks MCP 2026-07-28, which has no resource subscriptions of this kind`,
          );
        }
        return toUpstream(request, ctx);
      }
      case "logging/setLevel":
        if (deps.upstreamEra === "modern") {
          // 2026 has no setLevel: the level goes with each request instead.
          deps.setLogLevel(String((request.params as { level?: unknown } | undefined)?.level));
          return {};
        }
        return toUpstream(request, ctx);
      default:
        if (request.method.startsWith("tasks/")) {
          // Task results would bypass LRO, and 2026 tasks are another protocol.
          throw rpcError(
            METHOD_NOT_FOUND,
            `atlatl-proxy: ${request.method}: the proxy relays no tasks (it declares no tasks capability); call the tool without a task`,
          );
        }
        return toUpstream(request, ctx);
    }
  };
  srv.fallbackNotificationHandler = (notification) => deps.notifyUpstream(notification);
  return srv;
}
