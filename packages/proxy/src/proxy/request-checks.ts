/**
 * What the SDK's stdio entry lets through on a 2026-07-28 connection and MCP
 * refuses, answered here (by `opening-gate.ts`, which holds the client's
 * messages): it checks the protocol revision of the opening message only, so
 * a later request claiming one the proxy does not serve gets -32022; and its
 * `subscriptions/listen` router acknowledges an empty filter where SEP-2663
 * requires -32021 for `taskIds` without the tasks extension declared.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  type ProtocolError,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";
import { MODERN_PROTOCOL } from "../upstream/upstream-protocol.js";
import { TASKS_EXTENSION } from "./no-tasks.js";

type Fields = Record<string, unknown>;

const objectAt = (value: unknown, key: string): Fields | undefined => {
  const member = typeof value === "object" && value !== null ? (value as Fields)[key] : undefined;
  return typeof member === "object" && member !== null && !Array.isArray(member)
    ? (member as Fields)
    : undefined;
};

/** Why `message` (after a 2026-07-28 opening) is refused, if it is. */
function refusal(message: JSONRPCMessage): ProtocolError | undefined {
  if (!("method" in message)) return undefined;
  const meta = objectAt(message.params, "_meta");
  const claim = meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof claim === "string" && claim !== MODERN_PROTOCOL) {
    return new UnsupportedProtocolVersionError({ supported: [MODERN_PROTOCOL], requested: claim });
  }
  if (message.method !== "subscriptions/listen") return undefined;
  const filter = objectAt(message.params, "notifications");
  if (filter?.taskIds === undefined) return undefined;
  const extensions = objectAt(meta?.[CLIENT_CAPABILITIES_META_KEY], "extensions");
  if (objectAt(extensions, TASKS_EXTENSION)) return undefined;
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `subscriptions/listen with taskIds needs the ${TASKS_EXTENSION} extension declared in the request's clientCapabilities`,
  );
}

/**
 * What to do with a message after a 2026-07-28 opening: pass it on
 * (undefined), answer it (a request), or drop it (a notification, which
 * cannot be answered).
 */
export function checkModernMessage(
  message: JSONRPCMessage,
): { answer: JSONRPCErrorResponse } | { drop: string } | undefined {
  const error = refusal(message);
  if (!error || !("method" in message)) return undefined;
  if (!("id" in message)) return { drop: `${message.method}: ${error.message}` };
  return {
    answer: {
      jsonrpc: "2.0",
      id: message.id,
      error: {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined ? { data: error.data } : {}),
      },
    } as JSONRPCErrorResponse,
  };
}
