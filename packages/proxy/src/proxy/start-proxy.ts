/**
 * The proxy: the SDK's `serveStdio` facing the client (either protocol
 * generation: a 2025 `initialize` or a 2026-07-28 enveloped request) and an
 * SDK `Client` facing the upstream (either generation too, see
 * `upstream-protocol.ts`). It waits for the client's opening message,
 * connects the upstream with the client's capabilities and identity (and
 * `clientInfo.proxy: true`), then serves with the upstream's `serverInfo`,
 * instructions and capabilities. Requests are forwarded as they came
 * (`upstream-calls.ts`, `forward.ts`); the proxy itself only touches `tools/list` and `tools/call`
 * (LRO, `lro_extract`), the resource lists and reads of its offload files,
 * and the client input that crosses generations (`input-bridge.ts`).
 */
import { jsonRpcErrorResponse } from "@atlatl/lro/node";
import type {
  Client,
  ClientCapabilities,
  Implementation,
  JSONRPCRequest,
  ServerCapabilities,
} from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { listsExtractTool, servesOffloadResources } from "../config/client-economy.js";
import { jqOnPath } from "../config/jq-on-path.js";
import type { ProxyConfig } from "../config/proxy-config.js";
import { connectUpstream, type UpstreamTransportKind } from "../upstream/connect.js";
import { describeTarget, type UpstreamTarget } from "../upstream/target.js";
import { buildDownstreamServer, type DownstreamDeps, type Era } from "./downstream-server.js";
import { INTERNAL_ERROR } from "./forward.js";
import { InputBridge } from "./input-bridge.js";
import { createProxyEngine } from "./local-lro.js";
import { extractToolName, resourcePrefix } from "./names.js";
import { OpeningGate } from "./opening-gate.js";
import { upstreamCalls } from "./upstream-calls.js";
import { Downstream, relayToClient, upstreamClient } from "./upstream-client.js";

/** How long the first call waits after the client's roots reached the upstream. */
const ROOTS_SETTLE_MS = 250;

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
  /** The protocol era negotiated with the upstream. */
  upstreamEra: Era;
  /** serverInfo of the upstream. */
  upstreamInfo: Implementation | undefined;
  /** Resolves when the client side closed. */
  closed: Promise<void>;
  /** End the proxy and the upstream (the child process of a stdio upstream). */
  close(): Promise<void>;
}

/**
 * Start the proxy on `transport`. Resolves once the upstream is connected and
 * the client's opening message is being served; undefined when the client
 * left first. Throws (after answering the opening request with an error) when
 * the upstream cannot be reached.
 */
export async function startProxy(options: StartProxyOptions): Promise<RunningProxy | undefined> {
  const { config, target } = options;
  const log = options.log ?? ((m: string) => process.stderr.write(`atlatl-proxy: ${m}\n`));
  const timeoutMs = config.timeoutSeconds * 1000;
  const gate = new OpeningGate(options.transport);
  const facts = await gate.waitForOpening();
  if (!facts) return undefined;
  const downstream = new Downstream(facts);
  const upstream = upstreamClient(facts, config);
  const bridge = rootsAwareBridge(upstream, facts.capabilities, timeoutMs);

  relayToClient(upstream, { downstream, bridge, capabilities: facts.capabilities, timeoutMs, log });

  const upstreamKind = await connectOrRefuse(options, upstream, facts.opening.id, log);
  const upstreamEra: Era = upstream.getProtocolEra() ?? "legacy";
  const upstreamCaps = (upstream.getServerCapabilities() ?? {}) as ServerCapabilities;
  const upstreamInfo = upstream.getServerVersion();

  const engine = await engineBeside(upstream, upstreamCaps, config, facts.clientInfo?.name);

  const calls = upstreamCalls({ upstream, upstreamEra, target, config, downstream, bridge, log });
  const deps: DownstreamDeps = {
    config,
    engine,
    upstreamInfo,
    upstreamCaps,
    upstreamEra,
    instructions: upstream.getInstructions(),
    offloadResources: servesOffloadResources(config.offloadResources, facts.clientInfo?.name),
    toUpstream: calls.toUpstream,
    notifyUpstream: calls.notifyUpstream,
    setLogLevel: calls.setLogLevel,
  };

  // Name only what this client has: the extraction tool when it is listed.
  const stillWorks = engine.extractToolListed
    ? `${engine.extractToolName} and offload files still work`
    : "offload files still work";
  let closing = false;
  upstream.onclose = () => {
    if (closing) return;
    calls.markGone("its connection closed; a stdio server's process exited");
    log(
      `the upstream MCP server ${describeTarget(target)} closed its connection; its tools fail with an error from now on (${stillWorks})`,
    );
  };
  upstream.onerror = (err) => log(`upstream: ${err.message}`);

  const handle = serveStdio(
    ({ era }) => {
      const srv = buildDownstreamServer(era, deps, () => downstream.markReady());
      downstream.serve(srv, era);
      return srv;
    },
    { transport: gate, onerror: (err) => log(`client: ${err.message}`) },
  );
  if (upstreamEra === "modern") await listenUpstream(upstream, upstreamCaps, log);

  const close = async () => {
    if (closing) return;
    closing = true;
    await upstream.close().catch(() => {});
    await engine.close().catch(() => {});
    await handle.close().catch(() => {});
  };
  const closed = gate.whenClosed().then(close);
  return { upstreamKind, upstreamEra, upstreamInfo, closed, close };
}

/**
 * Connect `upstream` to the target; when it cannot be reached, answer the
 * client's opening request (`openingId`) with the reason, close, and throw.
 */
async function connectOrRefuse(
  options: StartProxyOptions,
  upstream: Client,
  openingId: JSONRPCRequest["id"],
  log: (message: string) => void,
): Promise<UpstreamTransportKind> {
  const { target, config } = options;
  try {
    return (await connectUpstream(upstream, target, log, config.upstreamProtocol)).kind;
  } catch (err) {
    const message = `cannot connect to the upstream MCP server ${describeTarget(target)}: ${(err as Error).message}`;
    log(message);
    await options.transport
      .send(jsonRpcErrorResponse(openingId, { code: INTERNAL_ERROR, message }))
      .catch(() => {});
    await upstream.close().catch(() => {});
    throw new Error(message);
  }
}

/**
 * The bridge of client input for this session: once the client's roots reach
 * the upstream, the call that waited for them goes on after the upstream had
 * a moment to apply them.
 */
function rootsAwareBridge(
  upstream: Client,
  capabilities: ClientCapabilities,
  timeoutMs: number,
): InputBridge {
  return new InputBridge({
    parkMs: timeoutMs,
    capabilities: capabilities as Record<string, unknown>,
    async rootsKnown(answered) {
      // An upstream that gave up waiting asks again on this notification.
      if (!answered) {
        await upstream.notification({ method: "notifications/roots/list_changed" }).catch(() => {});
      }
      // The upstream applies roots after its own file checks (server-filesystem
      // resolves each directory), and says nothing when done: a round trip and a
      // moment, once per session, let it finish before the call that waited.
      if (upstream.getProtocolEra() !== "modern") await upstream.ping().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, ROOTS_SETTLE_MS));
    },
  });
}

/** The proxy's LRO engine, its tool and resource names chosen beside the upstream's. */
async function engineBeside(
  upstream: Client,
  upstreamCaps: ServerCapabilities,
  config: ProxyConfig,
  clientName: string | undefined,
) {
  // Our names must not shadow the upstream's.
  const toolNames = upstreamCaps.tools
    ? await upstream.listTools().then(
        (r) => r.tools.map((t) => t.name),
        () => [],
      )
    : [];
  const uris = upstreamCaps.resources
    ? await upstream.listResourceTemplates().then(
        (r) => r.resourceTemplates.map((t) => t.uriTemplate),
        () => [],
      )
    : [];
  return createProxyEngine({
    config: config.offload,
    extractToolName: extractToolName(new Set(toolNames)),
    resourcePrefix: resourcePrefix(uris),
    // The proxy runs on the client's machine (stdio): its files are the client's to read.
    extractTool: listsExtractTool(config.offload.extractTool ?? "auto", clientName, {
      filesLocal: true,
      jq: jqOnPath(),
    }),
  });
}

/** A 2026 upstream tells list changes only on a subscription: open one for what it can tell. */
async function listenUpstream(
  upstream: Client,
  caps: ServerCapabilities,
  log: (message: string) => void,
): Promise<void> {
  const filter = {
    ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
    ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
  };
  if (Object.keys(filter).length === 0) return;
  await upstream.listen(filter).catch((err: Error) => {
    log(
      `the upstream refused subscriptions/listen (${err.message}); its list changes are not relayed`,
    );
  });
}
