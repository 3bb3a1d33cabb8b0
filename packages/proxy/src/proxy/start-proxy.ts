/**
 * The proxy: a low-level SDK `Server` facing the client and an SDK `Client`
 * facing the upstream. It waits for the client's `initialize`, connects the
 * upstream with the client's capabilities (and `clientInfo.proxy: true`), then
 * serves with the upstream's `serverInfo`, instructions and capabilities. Every
 * request is forwarded as it came (see `forward.ts`); the proxy itself only
 * touches `tools/list` and `tools/call` (LRO, `lro_extract`) and the resource
 * lists and reads of its offload files.
 */
import { declareOffloadsLocally } from "@atlatl/lro/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  type ClientCapabilities,
  ErrorCode,
  type Implementation,
  type InitializeRequest,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type Notification,
  type ReadResourceResult,
  type Request,
  type Result,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { type ProxyConfig, policyFor } from "../config/proxy-config.js";
import { connectUpstream, type UpstreamTransportKind } from "../upstream/connect.js";
import { describeTarget, type UpstreamTarget } from "../upstream/target.js";
import { type ForwardExtra, forwardRequest, rpcError, unwrapError } from "./forward.js";
import { InitGate } from "./init-gate.js";
import { createProxyEngine, type ProxyEngine } from "./local-lro.js";
import { extractToolName, resourcePrefix } from "./names.js";
import { withoutOutputSchema } from "./output-schema.js";

/** Options of {@link startProxy}. */
export interface StartProxyOptions {
  target: UpstreamTarget;
  config: ProxyConfig;
  /** The client-facing transport (the CLI gives stdio). */
  transport: Transport;
  /** Diagnostics (the CLI: stderr). */
  log?: (message: string) => void;
}

/** A running proxy. */
export interface RunningProxy {
  upstreamKind: UpstreamTransportKind;
  /** serverInfo of the upstream. */
  upstreamInfo: Implementation | undefined;
  /** Resolves when the client side closed. */
  closed: Promise<void>;
  /** End the proxy and the upstream (the child process of a stdio upstream). */
  close(): Promise<void>;
}

/** Capabilities we pass on: all but tasks, which the proxy does not relay. */
function withoutTasks<T extends { tasks?: unknown }>(caps: T | undefined): Omit<T, "tasks"> {
  const { tasks: _tasks, ...rest } = caps ?? ({} as T);
  return rest;
}

/** Walk every page of a list request. */
async function listAll<T>(
  fetchPage: (
    cursor: string | undefined,
  ) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
  maxPages = 100,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const r = await fetchPage(cursor);
    all.push(...r.items);
    if (!r.nextCursor) break;
    cursor = r.nextCursor;
  }
  return all;
}

/**
 * Start the proxy on `transport`. Resolves once the client's `initialize` has
 * been answered with the upstream's; undefined when the client left first.
 * Throws (after answering `initialize` with an error) when the upstream cannot
 * be reached.
 */
export async function startProxy(options: StartProxyOptions): Promise<RunningProxy | undefined> {
  const { config, target } = options;
  const log = options.log ?? ((m: string) => process.stderr.write(`atlatl-proxy: ${m}\n`));
  const timeoutMs = config.timeoutSeconds * 1000;
  const gate = new InitGate(options.transport);
  const init = await gate.waitForInitialize();
  if (!init) return undefined;
  const params = (init as unknown as InitializeRequest).params;

  // Toward the upstream: the client's own capabilities and identity, marked as a proxy.
  const clientInfo = { ...params.clientInfo, proxy: true } as Implementation;
  // `clientInfo.proxy` is the specification's flag, but the SDK's server-side schema
  // strips unknown clientInfo keys; the capability survives parsing, and an
  // upstream that knows it returns whole sets for us to judge (`whole-set.ts`).
  const clientCaps = declareOffloadsLocally(
    withoutTasks(params.capabilities) as ClientCapabilities,
  );
  const upstream = new Client(clientInfo, { capabilities: clientCaps });
  // The upstream may ask (roots/list) or tell as soon as it is initialized, before
  // our client is: its messages wait until our client has sent `initialized`.
  let server: Server | undefined;
  let clientReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    clientReady = resolve;
  });
  upstream.fallbackRequestHandler = async (request, extra) => {
    await ready;
    try {
      return await forwardRequest(
        server as Server,
        request,
        extra as unknown as ForwardExtra,
        timeoutMs,
      );
    } catch (err) {
      throw unwrapError(err);
    }
  };
  upstream.fallbackNotificationHandler = async (notification: Notification) => {
    await ready;
    await (server as Server).notification(notification).catch((err: Error) => {
      log(`dropped ${notification.method} from the upstream: ${err.message}`);
    });
  };
  let upstreamKind: UpstreamTransportKind;
  try {
    ({ kind: upstreamKind } = await connectUpstream(upstream, target, log));
  } catch (err) {
    const message = `cannot connect to the upstream MCP server ${describeTarget(target)}: ${(err as Error).message}`;
    log(message);
    await options.transport
      .send({ jsonrpc: "2.0", id: init.id, error: { code: ErrorCode.InternalError, message } })
      .catch(() => {});
    await upstream.close().catch(() => {});
    throw new Error(message);
  }

  let upstreamGone: string | undefined;
  const upstreamCaps = (upstream.getServerCapabilities() ?? {}) as ServerCapabilities;
  const upstreamInfo = upstream.getServerVersion();

  // Our names must not shadow the upstream's.
  const toolNames = upstreamCaps.tools
    ? await listAll(async (cursor) => {
        const r = await upstream.listTools(cursor ? { cursor } : {});
        return { items: r.tools.map((t) => t.name), nextCursor: r.nextCursor };
      }).catch(() => [])
    : [];
  const uris: string[] = [];
  if (upstreamCaps.resources) {
    uris.push(
      ...(await listAll(async (cursor) => {
        const r = await upstream.listResourceTemplates(cursor ? { cursor } : {});
        return { items: r.resourceTemplates.map((t) => t.uriTemplate), nextCursor: r.nextCursor };
      }).catch(() => [])),
    );
  }

  const capabilities: ServerCapabilities = {
    ...withoutTasks(upstreamCaps),
    tools: { ...(upstreamCaps.tools ?? {}) },
    resources: { ...(upstreamCaps.resources ?? {}), listChanged: true },
  };
  const srv = new Server(upstreamInfo ?? { name: "atlatl-proxy", version: "0.1.0" }, {
    capabilities,
    ...(upstream.getInstructions() ? { instructions: upstream.getInstructions() } : {}),
  });
  server = srv;
  // The upstream keeps the log level, not us: setLevel is forwarded like any request.
  srv.removeRequestHandler("logging/setLevel");

  const goneError = () =>
    rpcError(
      ErrorCode.ConnectionClosed,
      `atlatl-proxy: the upstream MCP server ${describeTarget(target)} is gone (${upstreamGone}); restart the MCP client's session to start it again`,
    );
  const toUpstream = async (request: Request, extra: ForwardExtra): Promise<Result> => {
    if (upstreamGone) throw goneError();
    try {
      return await forwardRequest(upstream, request, extra, timeoutMs);
    } catch (err) {
      if (upstreamGone) throw goneError();
      const e = unwrapError(err) as { code?: number; message?: string };
      if (e?.code === ErrorCode.RequestTimeout) {
        throw rpcError(
          ErrorCode.RequestTimeout,
          `atlatl-proxy: the upstream MCP server did not answer ${request.method} within ${config.timeoutSeconds} s (proxy.timeout_seconds)`,
        );
      }
      throw e;
    }
  };

  const mayOffload = (tool: string) =>
    config.offload.enabled && policyFor(config, tool).mode !== "never";

  // Set before the engine mounts: its resources chain these to track the client.
  srv.oninitialized = () => clientReady();
  srv.onclose = () => {
    void close();
  };

  // lro_extract and the offload resources are the engine's, mounted on `srv`;
  // their handlers serve the upstream's tools and resources beside them.
  const engine: ProxyEngine = await createProxyEngine({
    config: config.offload,
    extractToolName: extractToolName(new Set(toolNames)),
    resourcePrefix: resourcePrefix(uris),
    server: srv,
    upstream: {
      tools: {
        listTools: async (request, extra) => {
          const r = (
            upstreamCaps.tools
              ? await toUpstream(request, extra as unknown as ForwardExtra)
              : { tools: [] }
          ) as ListToolsResult;
          return {
            ...r,
            tools: r.tools.map((t) => (mayOffload(t.name) ? withoutOutputSchema(t) : t)),
          };
        },
        callTool: async (request, extra) => {
          const x = extra as unknown as ForwardExtra;
          const r = (await toUpstream(request, x)) as CallToolResult;
          if (x.signal.aborted) return r;
          return engine.offloadCallResult(r, {
            name: request.params.name,
            policy: policyFor(config, request.params.name),
          });
        },
      },
      resources: {
        listResources: async (request, extra) =>
          (upstreamCaps.resources
            ? await toUpstream(request, extra as unknown as ForwardExtra)
            : { resources: [] }) as ListResourcesResult,
        listResourceTemplates: async (request, extra) =>
          (upstreamCaps.resources
            ? await toUpstream(request, extra as unknown as ForwardExtra)
            : { resourceTemplates: [] }) as ListResourceTemplatesResult,
        readResource: async (request, extra) =>
          (await toUpstream(request, extra as unknown as ForwardExtra)) as ReadResourceResult,
      },
    },
  });

  srv.fallbackRequestHandler = async (request, extra) => {
    const x = extra as unknown as ForwardExtra;
    switch (request.method) {
      case "resources/subscribe":
      case "resources/unsubscribe": {
        const uri = String((request.params as { uri?: unknown } | undefined)?.uri ?? "");
        // Offload files never change: a subscription has nothing to report.
        if (engine.ownsUri(uri)) return {};
        return toUpstream(request, x);
      }
      default:
        return toUpstream(request, x);
    }
  };
  srv.fallbackNotificationHandler = async (notification: Notification) => {
    if (!upstreamGone) await upstream.notification(notification);
  };

  let closing = false;
  upstream.onclose = () => {
    if (closing) return;
    upstreamGone = "its connection closed; a stdio server's process exited";
    log(
      `the upstream MCP server ${describeTarget(target)} closed its connection; its tools fail with an error from now on (${engine.extractToolName} and offload files still work)`,
    );
  };
  upstream.onerror = (err) => log(`upstream: ${err.message}`);

  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const close = async () => {
    if (closing) return;
    closing = true;
    await upstream.close().catch(() => {});
    await engine.close().catch(() => {});
    await srv.close().catch(() => {});
    resolveClosed();
  };
  await srv.connect(gate);
  return { upstreamKind, upstreamInfo, closed, close };
}
