/**
 * The proxy's upstream side: the SDK client that speaks to the upstream for
 * the client it serves (its capabilities and identity, marked a proxy), and
 * what the upstream sends the client: its requests (forwarded to a 2025
 * client; for a 2026 client, elicitation, sampling and roots go through the
 * input bridge and the rest is refused) and its notifications (as
 * `upstream-notifications.ts` decides).
 */
import { declareOffloadsLocally } from "@atlatl/lro/mcp";
import {
  Client,
  type ClientCapabilities,
  type Implementation,
  type Notification,
  type Request,
  type Result,
} from "@modelcontextprotocol/client";
import type { Server } from "@modelcontextprotocol/server";
import type { ProxyConfig } from "../config/proxy-config.js";
import { versionNegotiation } from "../upstream/upstream-protocol.js";
import type { Era } from "./downstream-server.js";
import {
  type ForwardContext,
  forwardRequest,
  METHOD_NOT_FOUND,
  rpcError,
  unwrapError,
} from "./forward.js";
import { INPUT_CAPABILITY, INPUT_METHODS, type InputBridge } from "./input-bridge.js";
import { withoutTasks } from "./no-tasks.js";
import type { OpeningFacts } from "./opening-gate.js";
import { upstreamNotificationFor } from "./upstream-notifications.js";

/** The client connection: its current server (serveStdio's pinned instance) and era. */
export class Downstream {
  server: Server | undefined;
  era: Era;
  /** Resolves once a 2025 client has sent `initialized` (at once for a 2026 client). */
  ready: Promise<void> = Promise.resolve();
  markReady: () => void = () => {};
  /** `ready` is waiting for `initialized`. */
  private waiting = false;

  constructor(facts: OpeningFacts) {
    this.era = facts.era;
    if (facts.era === "legacy") this.waitForInitialized();
  }

  /** `server` now serves the client (a discarded `server/discover` probe may precede it). */
  serve(server: Server, era: Era): void {
    this.server = server;
    this.era = era;
    if (era === "legacy") this.waitForInitialized();
    else this.markReady();
  }

  /** From now on `ready` waits for `initialized` (still the same wait when one is pending). */
  private waitForInitialized(): void {
    if (this.waiting) return;
    this.waiting = true;
    this.ready = new Promise((resolve) => {
      this.markReady = () => {
        this.waiting = false;
        resolve();
      };
    });
  }
}

/** The upstream client, announcing the client it serves (and that it is a proxy). */
export function upstreamClient(facts: OpeningFacts, config: ProxyConfig): Client {
  const clientInfo = {
    ...(facts.clientInfo ?? { name: "atlatl-proxy", version: "0.1.0" }),
    proxy: true,
  } as Implementation;
  // `clientInfo.proxy` is the specification's flag, but the SDK's server-side schema
  // strips unknown clientInfo keys; the capability survives parsing, and an
  // upstream that knows it returns whole sets for us to judge (`whole-set.ts`).
  // @atlatl/lro types capabilities with SDK 1.x's types: the same wire shape.
  const capabilities = declareOffloadsLocally(
    withoutTasks(facts.capabilities) as Parameters<typeof declareOffloadsLocally>[0],
  ) as ClientCapabilities;
  return new Client(clientInfo, {
    capabilities,
    versionNegotiation: versionNegotiation(config.upstreamProtocol),
  });
}

/** What {@link relayToClient} needs. */
interface RelayOptions {
  downstream: Downstream;
  bridge: InputBridge;
  /** The client's capabilities from its opening message. */
  capabilities: ClientCapabilities;
  timeoutMs: number;
  log: (message: string) => void;
}

/** Pass what `upstream` sends to the client (see the file's comment). */
export function relayToClient(upstream: Client, options: RelayOptions): void {
  const { downstream, bridge, timeoutMs, log } = options;
  // The upstream asks the client (sampling, elicitation, roots, anything else).
  const fromUpstream = async (request: Request, ctx: ForwardContext): Promise<Result> => {
    await downstream.ready;
    const method = request.method as (typeof INPUT_METHODS)[number];
    if (downstream.era === "modern" && INPUT_METHODS.includes(method)) {
      return bridge.question(method, request.params, ctx.mcpReq.signal);
    }
    if (downstream.era === "modern") {
      throw rpcError(
        METHOD_NOT_FOUND,
        `atlatl-proxy: the client speaks MCP 2026-07-28, which has no ${request.method} from a server`,
      );
    }
    try {
      return await forwardRequest(downstream.server as Server, request, ctx, timeoutMs);
    } catch (err) {
      throw unwrapError(err);
    }
  };
  for (const method of INPUT_METHODS) {
    // The SDK accepts a handler only for a capability the client declares.
    const declared = options.capabilities as Record<string, unknown>;
    if (declared[INPUT_CAPABILITY[method]] === undefined) continue;
    upstream.setRequestHandler(
      method,
      (request, ctx) => fromUpstream(request as Request, ctx as ForwardContext) as never,
    );
  }
  upstream.fallbackRequestHandler = (request, ctx) =>
    fromUpstream(request as Request, ctx as ForwardContext);
  upstream.fallbackNotificationHandler = async (notification: Notification) => {
    await downstream.ready;
    const relayed = upstreamNotificationFor(notification, downstream.era);
    if (!relayed) return;
    await downstream.server?.notification(relayed).catch((err: Error) => {
      log(`dropped ${notification.method} from the upstream: ${err.message}`);
    });
  };
}
