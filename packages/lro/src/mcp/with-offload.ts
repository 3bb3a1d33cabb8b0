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
import type { HostCallback, HostToolConfig } from "./host.js";
import type { CallToolResult, McpMeta } from "./mcp-types.js";
import type { OffloadCallResultOptions } from "./offload-call-result.js";
import type { McpNames } from "./offload-resource-uri.js";
import { isOffloadableRecords, type OffloadHandlerResult } from "./offloadable.js";
import { moveOutputSchema, outputSchemaMetaKey } from "./output-schema.js";
import { AUTO_POLICY, judged, type ResponsePolicy } from "./policy.js";
import { respond } from "./respond.js";
import { toolErrorResult } from "./tool-error.js";

export { OFFLOAD_MIME_TYPE } from "./offload-resource-uri.js";

/** Options of {@link withOffload}. */
export interface WithOffloadOptions {
  offloader: Offloader;
  /** Profile of results that name none (default `"memory"`). */
  profile?: BuiltinProfileName | AnyProfile;
  /**
   * Add a `resource_link` to the offloaded file (`atlatl://offload/{name}`):
   * fixed, or decided when the call runs (e.g. only for a client that reads
   * resources rather than files: the link costs its tokens in every descriptor).
   */
  resourceLinks?: boolean | ((...args: unknown[]) => boolean);
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

/** The `McpServer` (of either SDK line) {@link OffloadMiddleware.registerTool} registers on. */
export interface ToolRegistrar<Registered> {
  registerTool(name: string, config: HostToolConfig, callback: HostCallback): Registered;
}

/**
 * What `registerTool` is given, as `McpServer.registerTool` takes it: an
 * `outputSchema` is a zod object, a raw shape of zod schemas or any Standard
 * Schema; other keys (`icons`, …) are passed on.
 */
export interface OffloadToolConfig extends HostToolConfig {
  outputSchema?: unknown;
  _meta?: McpMeta;
  [key: string]: unknown;
}

/** A handler {@link withOffload} wraps. */
export type OffloadHandler<A extends unknown[]> = (
  ...args: A
) => OffloadHandlerResult | Promise<OffloadHandlerResult>;

/** What {@link withOffload} returns: wraps a handler into a tool callback. */
export type OffloadMiddleware = <A extends unknown[]>(
  next: OffloadHandler<A>,
) => (...args: A) => Promise<CallToolResult>;

/** {@link withOffload}'s registration of a whole tool. */
export interface OffloadToolRegistration {
  /**
   * `server.registerTool(name, config, offload(handler))`, for a tool that
   * may declare an `outputSchema`: when its results may be offloaded (policy
   * other than `never`, offloading enabled), the tool is listed without it,
   * the schema kept in `_meta["atlatl/outputSchema"]` (see `output-schema.ts`),
   * and the handler's `structuredContent` is checked against it first (an
   * `isError` result when it does not conform, nothing written).
   */
  registerTool<Registered, A extends unknown[]>(
    server: ToolRegistrar<Registered>,
    name: string,
    config: OffloadToolConfig,
    handler: OffloadHandler<A>,
  ): Registered;
}

/**
 * Middleware: `withOffload({ offloader })(handler)` is a tool callback for
 * `McpServer.registerTool` (or `withOffload(…).registerTool(server, …)`, for
 * a tool with an `outputSchema`). The handler may return a `CallToolResult`
 * (passed through unless `callResults`) or {@link OffloadableRecords}
 * (estimated, then inline, offloaded or truncated). Works for callbacks with
 * and without arguments.
 */
export function withOffload(
  options: WithOffloadOptions,
): OffloadMiddleware & OffloadToolRegistration {
  const call = options.callResults;
  const callOptions = call === true || call === undefined || call === false ? {} : call;
  // A per-call-result threshold, force or inline keys apply to CallToolResults only.
  const callPolicy: ResponsePolicy = {
    mode: callOptions.force ? "always" : "auto",
    thresholdTokens: callOptions.thresholdTokens,
    inlineKeys: callOptions.inlineKeys,
  };
  const middleware: OffloadMiddleware =
    <A extends unknown[]>(next: OffloadHandler<A>) =>
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
        resourceLinks:
          typeof options.resourceLinks === "function"
            ? options.resourceLinks(...args)
            : (options.resourceLinks ?? false),
        names: options.names,
        callResults: Boolean(call),
        operation: callOptions.operation ?? "result",
        query: callOptions.query ?? null,
        onEvent,
      });
    };
  // A policy decided per call may offload; a fixed one is judged as each call would be.
  const mayOffload =
    typeof options.policy === "function" ||
    [AUTO_POLICY, callPolicy].some(
      (base) => !judged({ ...base, ...options.policy }, options.offloader.config).off,
    );
  // The host calls a callback with what it validated (see `hostCallback`).
  const callback = <A extends unknown[]>(next: OffloadHandler<A>) =>
    middleware(next) as unknown as HostCallback;
  const registerOffloaded = <Registered, A extends unknown[]>(
    server: ToolRegistrar<Registered>,
    name: string,
    config: OffloadToolConfig,
    handler: OffloadHandler<A>,
  ): Registered => {
    if (!mayOffload || config.outputSchema === undefined) {
      return server.registerTool(name, config, callback(handler));
    }
    const { outputSchema, ...rest } = config;
    const moved = moveOutputSchema(outputSchema);
    const checked = async (...args: A): Promise<OffloadHandlerResult> => {
      const produced = await handler(...args);
      if (isOffloadableRecords(produced) || produced.isError === true) return produced;
      const mismatch = await moved.mismatch(name, produced.structuredContent);
      return mismatch === undefined
        ? produced
        : toolErrorResult({ code: "INTERNAL", message: `Output validation error: ${mismatch}` });
    };
    const meta = moved.json
      ? { ...(config._meta ?? {}), [outputSchemaMetaKey(options.names)]: moved.json }
      : config._meta;
    return server.registerTool(
      name,
      { ...rest, ...(meta ? { _meta: meta } : {}) },
      callback(checked),
    );
  };
  return Object.assign(middleware, { registerTool: registerOffloaded });
}
