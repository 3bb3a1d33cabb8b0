/**
 * LRO as middleware for MCP SDK tool callbacks (1.x or 2.x). The wrapped
 * handler returns either a ready `CallToolResult` or the records of a result
 * set; the response boundary (`respond.ts`) turns either into the response.
 * Services stay unaware of LRO; only the boundary sees records and the
 * serialized result.
 */

import type { LroEventListener } from "../events/events.js";
import type { Offloader } from "../offload/offloader.js";
import type { AnyProfile } from "../profiles/profile.js";
import type { BuiltinProfileName } from "../profiles/registry.js";
import type { CallToolResult } from "./mcp-types.js";
import type { OffloadCallResultOptions } from "./offload-call-result.js";
import type { McpNames } from "./offload-resource-uri.js";
import { isOffloadableRecords, type OffloadHandlerResult } from "./offloadable.js";
import { AUTO_POLICY, type ResponsePolicy } from "./policy.js";
import { respond } from "./respond.js";

export { OFFLOAD_MIME_TYPE } from "./offload-resource-uri.js";

/** Options of {@link withOffload}. */
export interface WithOffloadOptions {
  offloader: Offloader;
  /** Profile of results that name none (default `"memory"`). */
  profile?: BuiltinProfileName | AnyProfile;
  /** Add a `resource_link` to the offloaded file (`atlatl://offload/{name}`). */
  resourceLinks?: boolean;
  /** Resource URI prefix of those links (default atlatl's). */
  names?: Partial<McpNames>;
  /**
   * Also offload `CallToolResult`s a handler returns when they are too large
   * (see `offloadCallToolResult`): `true`, or the options (e.g. the
   * `operation` naming the files, default `result`). Default: passed through.
   */
  callResults?:
    | boolean
    | Partial<Omit<OffloadCallResultOptions, "resourceLinks" | "names" | "onEvent">>;
  /**
   * The policy of each call (default `auto`), decided when the call runs: a
   * server gives `whole-set-inline` to a client that offloads locally (see
   * `offloadsLocally`), whose capabilities are known only after `initialize`.
   */
  policy?: ResponsePolicy | ((...args: unknown[]) => ResponsePolicy);
  /**
   * The listener of each call's LRO events, from the call's arguments (e.g.
   * its handler context's log), or undefined: the call's `OffloadCreated` and
   * `OffloadWriteFailed` go to it as well as to the offloader's hub, which
   * gets every call's. Default: the hub only.
   */
  eventListener?: (...args: unknown[]) => LroEventListener | undefined;
}

/** What {@link withOffload} returns: wraps a handler into a tool callback. */
export type OffloadMiddleware = <A extends unknown[]>(
  next: (...args: A) => OffloadHandlerResult | Promise<OffloadHandlerResult>,
) => (...args: A) => Promise<CallToolResult>;

/**
 * Middleware: `withOffload({ offloader })(handler)` is a tool callback for
 * `McpServer.registerTool`. The handler may return a `CallToolResult` (passed
 * through unless `callResults`) or {@link OffloadableRecords} (estimated, then
 * inline, offloaded or truncated). Works for callbacks with and without arguments.
 */
export function withOffload(options: WithOffloadOptions): OffloadMiddleware {
  const call = options.callResults;
  const callOptions = call === true || call === undefined || call === false ? {} : call;
  // A per-call-result threshold, force or inline keys apply to CallToolResults only.
  const callPolicy: ResponsePolicy = {
    mode: callOptions.force ? "always" : "auto",
    thresholdTokens: callOptions.thresholdTokens,
    inlineKeys: callOptions.inlineKeys,
  };
  return <A extends unknown[]>(
    next: (...args: A) => OffloadHandlerResult | Promise<OffloadHandlerResult>,
  ) =>
    async (...args: A): Promise<CallToolResult> => {
      const chosen =
        typeof options.policy === "function" ? options.policy(...args) : options.policy;
      const onEvent = options.eventListener?.(...args);
      const produced = await next(...args);
      const base = isOffloadableRecords(produced) ? AUTO_POLICY : callPolicy;
      return respond(produced, {
        offloader: options.offloader,
        policy: { ...base, ...chosen },
        profile: options.profile,
        resourceLinks: options.resourceLinks ?? false,
        names: options.names,
        callResults: Boolean(call),
        operation: callOptions.operation ?? "result",
        query: callOptions.query ?? null,
        onEvent,
      });
    };
}
