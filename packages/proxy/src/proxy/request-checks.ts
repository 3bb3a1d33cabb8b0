/**
 * What the SDK's stdio entry lets through on a 2026-07-28 connection and MCP
 * refuses, answered here (by `opening-gate.ts`, which holds the client's
 * messages): `@atlatl/lro/node`'s per-request checks (a later request claiming
 * a revision the proxy does not serve, -32022; `subscriptions/listen` for
 * `taskIds` without the tasks extension declared, -32021).
 */
import {
  isRequest,
  type JsonRpcErrorResponse,
  jsonRpcErrorResponse,
  modernMessageRefusal,
  rawMessage,
} from "@atlatl/lro/node";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";

/**
 * What to do with a message after a 2026-07-28 opening: pass it on
 * (undefined), answer it (a request), or drop it (a notification, which
 * cannot be answered).
 */
export function checkModernMessage(
  message: JSONRPCMessage,
): { answer: JsonRpcErrorResponse<string | number> } | { drop: string } | undefined {
  const raw = rawMessage(message);
  const error = raw && modernMessageRefusal(raw);
  if (!raw || !error) return undefined;
  if (!isRequest(raw)) return { drop: `${raw.method}: ${error.message}` };
  return { answer: jsonRpcErrorResponse(raw.id, error) };
}
