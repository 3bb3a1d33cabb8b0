/**
 * What atlatl reads of a client's raw JSON-RPC message, where its transport
 * layer holds it before the SDK does (stdio: `cli/request-gate.ts`; HTTP:
 * the parsed `/mcp` body):
 *
 * - a 2025-11-25 `initialize`'s `clientInfo` as sent: the SDK 2.x server
 *   validates it against its `Implementation` schema and drops unknown keys,
 *   so the LRO specification's `clientInfo.proxy: true` is read here;
 * - the protocol revision a request claims in its `_meta` envelope, which
 *   every 2026-07-28 request must name and the SDK's stdio entry checks on a
 *   connection's opening message only;
 * - `subscriptions/listen` asking for `taskIds` without the tasks extension
 *   declared, which the SDK's listen routers acknowledge with an empty filter
 *   where SEP-2663 requires -32021.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type JSONRPCErrorResponse,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  type ProtocolError,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";
import { TASKS_EXTENSION } from "./tasks/task-wire.js";

/**
 * The 2026-07-28-era revisions atlatl serves: those of the SDK's serving
 * entries (`serveStdio`, `createMcpHandler`), whose own list is internal.
 */
export const MODERN_REVISIONS: readonly string[] = ["2026-07-28"];

/** A request or notification as it came: a method, maybe an id and params. */
export interface RawMessage {
  id?: string | number;
  method: string;
  params?: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `value` (a parsed JSON-RPC message) when it is a request or notification, else undefined. */
export function rawMessage(value: unknown): RawMessage | undefined {
  if (!isObject(value) || typeof value.method !== "string") return undefined;
  return value as unknown as RawMessage;
}

/** A request (it has an id to answer), not a notification. */
export const isRequest = (message: RawMessage): boolean =>
  typeof message.id === "string" || typeof message.id === "number";

function metaOf(message: RawMessage): Record<string, unknown> | undefined {
  const meta = message.params?._meta;
  return isObject(meta) ? meta : undefined;
}

/**
 * The protocol revision the message's envelope claims: a string, `null` for a
 * claim that is not one, undefined without a claim (a 2025-era message).
 */
export function claimedRevision(message: RawMessage): string | null | undefined {
  const meta = metaOf(message);
  if (!meta || !(PROTOCOL_VERSION_META_KEY in meta)) return undefined;
  const claim = meta[PROTOCOL_VERSION_META_KEY];
  return typeof claim === "string" ? claim : null;
}

/** The `clientInfo` of a 2025-era `initialize` (no envelope claim), every key kept. */
export function initializeClientInfo(message: RawMessage): Record<string, unknown> | undefined {
  if (message.method !== "initialize" || claimedRevision(message) !== undefined) return undefined;
  const info = message.params?.clientInfo;
  return isObject(info) ? info : undefined;
}

/** -32022 for a request claiming a revision atlatl does not serve (as the SDK's entries answer). */
export function unsupportedRevision(message: RawMessage): ProtocolError | undefined {
  const claim = claimedRevision(message);
  if (typeof claim !== "string" || MODERN_REVISIONS.includes(claim)) return undefined;
  return new UnsupportedProtocolVersionError({
    supported: [...MODERN_REVISIONS],
    requested: claim,
  });
}

/**
 * -32021 for a 2026-07-28 `subscriptions/listen` whose filter asks for
 * `taskIds` while its envelope's client capabilities do not declare the tasks
 * extension (SEP-2663: a server MUST refuse such a request).
 */
export function listenTasksUndeclared(message: RawMessage): ProtocolError | undefined {
  if (message.method !== "subscriptions/listen" || typeof claimedRevision(message) !== "string") {
    return undefined;
  }
  const filter = message.params?.notifications;
  if (!isObject(filter) || filter.taskIds === undefined) return undefined;
  const capabilities = metaOf(message)?.[CLIENT_CAPABILITIES_META_KEY];
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
  if (isObject(extensions) && isObject(extensions[TASKS_EXTENSION])) return undefined;
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `subscriptions/listen with taskIds needs the ${TASKS_EXTENSION} extension declared in the request's clientCapabilities`,
  );
}

/** `error` as the JSON-RPC answer to `message`. */
export function errorResponse(message: RawMessage, error: ProtocolError): JSONRPCErrorResponse {
  return {
    jsonrpc: "2.0",
    id: message.id ?? null,
    error: {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined ? { data: error.data } : {}),
    },
  } as JSONRPCErrorResponse;
}
