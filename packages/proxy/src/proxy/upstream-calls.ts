/**
 * The proxy's calls to its upstream, as the downstream servers make them
 * (`DownstreamDeps`' `toUpstream`, `notifyUpstream`, `setLogLevel`): each
 * request forwarded with the timeout and the depth bound, its result in the
 * client's generation; a 2025 client's log level carried to a 2026 upstream;
 * input requests passed through (2026 on both sides) or bridged
 * (`input-bridge.ts`); and, once the upstream is gone, an error that says so.
 */
import {
  type Client,
  LOG_LEVEL_META_KEY,
  type Request,
  type RequestOptions,
} from "@modelcontextprotocol/client";
import type { ProxyConfig } from "../config/proxy-config.js";
import { describeTarget, type UpstreamTarget } from "../upstream/target.js";
import type { DownstreamDeps, Era } from "./downstream-server.js";
import {
  CONNECTION_CLOSED,
  type ForwardContext,
  forwardRequest,
  REQUEST_TIMEOUT,
  rpcError,
  unwrapError,
} from "./forward.js";
import type { InputBridge } from "./input-bridge.js";
import { checkResultDepth } from "./result-depth.js";
import type { Downstream } from "./upstream-client.js";
import { upstreamResultFor } from "./upstream-results.js";

/** What {@link upstreamCalls} needs: the connected upstream and the client side's state. */
interface UpstreamCallsOptions {
  upstream: Client;
  upstreamEra: Era;
  target: UpstreamTarget;
  config: ProxyConfig;
  downstream: Downstream;
  bridge: InputBridge;
  log: (message: string) => void;
}

/** The upstream side of the downstream servers' deps, and how to mark the upstream gone. */
interface UpstreamCalls
  extends Pick<DownstreamDeps, "toUpstream" | "notifyUpstream" | "setLogLevel"> {
  /** From now on every call fails with `CONNECTION_CLOSED`, saying `why`. */
  markGone(why: string): void;
}

export function upstreamCalls(options: UpstreamCallsOptions): UpstreamCalls {
  const { upstream, upstreamEra, target, config, downstream, bridge, log } = options;
  const timeoutMs = config.timeoutSeconds * 1000;
  let upstreamGone: string | undefined;
  /** A 2025 client's log level, sent with each request to a 2026 upstream. */
  let logLevel: string | undefined;
  const goneError = () =>
    rpcError(
      CONNECTION_CLOSED,
      `atlatl-proxy: the upstream MCP server ${describeTarget(target)} is gone (${upstreamGone}); restart the MCP client's session to start it again`,
    );
  const send = async (request: Request, ctx: ForwardContext, extra?: RequestOptions) => {
    if (upstreamGone) throw goneError();
    try {
      const result = await forwardRequest(upstream, request, ctx, timeoutMs, extra);
      // A tool result is cut to the bound where it is answered (`buildDownstreamServer`).
      if (request.method !== "tools/call") checkResultDepth(request.method, result);
      return upstreamEra === "modern" ? upstreamResultFor(result, downstream.era) : result;
    } catch (err) {
      if (upstreamGone) throw goneError();
      const e = unwrapError(err) as { code?: number; message?: string };
      if (e?.code === REQUEST_TIMEOUT) {
        throw rpcError(
          REQUEST_TIMEOUT,
          `atlatl-proxy: the upstream MCP server did not answer ${request.method} within ${config.timeoutSeconds} s (proxy.timeout_seconds)`,
        );
      }
      throw e;
    }
  };
  return {
    async toUpstream(request, ctx, inputCapable = false) {
      let params = request.params;
      if (upstreamEra === "modern" && logLevel !== undefined) {
        params = { ...params, _meta: { ...(params?._meta ?? {}), [LOG_LEVEL_META_KEY]: logLevel } };
      }
      if (!inputCapable || downstream.era === "legacy") {
        return send({ ...request, params }, ctx);
      }
      if (upstreamEra === "modern") {
        // 2026 on both sides: the upstream's input requests pass through, and so
        // do the client's answers and the upstream's own requestState.
        const state = ctx.mcpReq.requestState<string>();
        const answers = ctx.mcpReq.inputResponses;
        params = {
          ...params,
          ...(answers ? { inputResponses: answers } : {}),
          ...(typeof state === "string" ? { requestState: state } : {}),
        };
        return send({ ...request, params }, ctx, { allowInputRequired: true });
      }
      return bridge.leg(ctx, request, (call) => send({ ...request, params }, call));
    },
    async notifyUpstream(notification) {
      if (upstreamGone) return;
      await upstream.notification(notification).catch((err: Error) => {
        log(`dropped ${notification.method} from the client: ${err.message}`);
      });
    },
    setLogLevel(level) {
      logLevel = level;
    },
    markGone(why) {
      upstreamGone = why;
    },
  };
}
