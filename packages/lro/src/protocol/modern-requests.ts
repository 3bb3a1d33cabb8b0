/**
 * The per-request checks of MCP 2026-07-28 that the SDK's serving entries
 * leave to whoever holds a client's raw messages (the server's stdio gate and
 * `/mcp` endpoint, the proxy's opening gate): plain JSON reads of one message.
 *
 * - The protocol revision a request claims in its `_meta` envelope must be one
 *   served: the SDK's stdio entry checks a connection's opening message only
 *   (-32022, with the revisions served and the one requested).
 * - `subscriptions/listen` asking for `taskIds` must come from a client that
 *   declares the tasks extension in that envelope: the SDK's listen routers
 *   acknowledge an empty filter where SEP-2663 requires -32021.
 *
 * The error codes and messages are the SDK's (`UnsupportedProtocolVersionError`,
 * `MissingRequiredClientCapabilityError`), written here as plain objects.
 */
import { REQUEST_CAPABILITIES_META, REQUEST_PROTOCOL_VERSION_META } from "./envelope.js";
import type { JsonRpcErrorObject } from "./json-rpc-error.js";

/** MCP's -32022: the request claims a protocol revision the receiver does not serve. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** MCP's -32021: the request needs a client capability its client did not declare. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/**
 * The 2026-07-28-era revisions served: those of the SDK's serving entries
 * (`serveStdio`, `createMcpHandler`), whose own list is internal.
 */
export const MODERN_REVISIONS: readonly string[] = ["2026-07-28"];

/** The 2026-07-28 tasks extension's id (in capabilities' `extensions`). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

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
export const isRequest = (message: RawMessage): message is RawMessage & { id: string | number } =>
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
  if (!meta || !(REQUEST_PROTOCOL_VERSION_META in meta)) return undefined;
  const claim = meta[REQUEST_PROTOCOL_VERSION_META];
  return typeof claim === "string" ? claim : null;
}

/** -32022 for a message claiming a revision not served (as the SDK's entries answer). */
function unsupportedRevision(message: RawMessage): JsonRpcErrorObject | undefined {
  const claim = claimedRevision(message);
  if (typeof claim !== "string" || MODERN_REVISIONS.includes(claim)) return undefined;
  return {
    code: UNSUPPORTED_PROTOCOL_VERSION,
    message: `Unsupported protocol version: ${claim}`,
    data: { supported: [...MODERN_REVISIONS], requested: claim },
  };
}

/**
 * -32021 for a 2026-07-28 `subscriptions/listen` whose filter asks for
 * `taskIds` while its envelope's client capabilities do not declare the tasks
 * extension (SEP-2663: a server MUST refuse such a request).
 */
export function listenTasksUndeclared(message: RawMessage): JsonRpcErrorObject | undefined {
  if (message.method !== "subscriptions/listen" || typeof claimedRevision(message) !== "string") {
    return undefined;
  }
  const filter = message.params?.notifications;
  if (!isObject(filter) || filter.taskIds === undefined) return undefined;
  const capabilities = metaOf(message)?.[REQUEST_CAPABILITIES_META];
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
  if (isObject(extensions) && isObject(extensions[TASKS_EXTENSION])) return undefined;
  return {
    code: MISSING_REQUIRED_CLIENT_CAPABILITY,
    message: `subscriptions/listen with taskIds needs the ${TASKS_EXTENSION} extension declared in the request's clientCapabilities`,
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  };
}

/** Why a message on a 2026-07-28 connection is refused (either check above), if it is. */
export function modernMessageRefusal(message: RawMessage): JsonRpcErrorObject | undefined {
  return unsupportedRevision(message) ?? listenTasksUndeclared(message);
}
