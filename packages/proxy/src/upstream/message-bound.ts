/**
 * The one bound on a message read from an upstream (a stdio line, an SSE event,
 * a whole HTTP body), the error a call gets when its response was over it
 * (`@atlatl/lro`'s one `MESSAGE_TOO_LARGE`), and how the response's id is found
 * in what was kept of it.
 */
import { jsonRpcErrorResponse, messageTooLargeError } from "@atlatl/lro/node";
import { type JSONRPCMessage, ProtocolError, type RequestId } from "@modelcontextprotocol/client";

/**
 * Largest message read from an upstream, in bytes: 511 MiB. A message is decoded
 * into one JavaScript string, and V8's longest is 2^29 - 24 UTF-16 units (~512 MiB);
 * UTF-8 never decodes to more units than bytes, so every message up to this bound
 * decodes. The SDK's stdio default (10 MiB) would refuse the very results the proxy
 * is for.
 */
export const MAX_MESSAGE_BYTES = 511 * 1024 * 1024;

/** The error a call gets when its upstream's response was over the bound. */
function tooLarge(maxBytes: number) {
  return messageTooLargeError({
    reader: "atlatl-proxy",
    subject: "the upstream's response",
    maxBytes,
    goesOn: "the upstream and the session go on",
  });
}

/** The JSON-RPC error response answering request `id` in place of its dropped response. */
export function tooLargeResponse(id: RequestId, maxBytes: number): JSONRPCMessage {
  return jsonRpcErrorResponse(id, tooLarge(maxBytes));
}

/** The same as an error thrown where a response body is read. */
export function tooLargeError(maxBytes: number): ProtocolError {
  const { code, message, data } = tooLarge(maxBytes);
  return new ProtocolError(code, message, data);
}

/** The notice for a dropped message that was no response (or whose id was not found). */
export function droppedNotice(maxBytes: number): Error {
  const mib = Math.floor(maxBytes / 2 ** 20);
  return new Error(
    `a message from the upstream exceeds ${maxBytes} bytes (${mib} MiB) and was dropped`,
  );
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const MEMBER = String.raw`"(?:jsonrpc|id)"\s*:\s*(?:-?\d+|"(?:[^"\\]|\\.)*")\s*,\s*`;
/** A response: `result` or `error` is its first member, after `jsonrpc` and `id` at most. */
const RESPONSE_HEAD = new RegExp(String.raw`^\s*\{\s*(?:${MEMBER})*"(?:result|error)"\s*:`);
/** `id` among the members before `result`/`error` (Python's SDK writes it there). */
const ID_IN_HEAD = new RegExp(String.raw`^\s*\{\s*(?:${MEMBER})*?"id"\s*:\s*${ID}\s*,`);
/**
 * `id` as the top-level object's last member, or before a last `jsonrpc` (the
 * TypeScript SDK writes `{"result":…,"jsonrpc":"2.0","id":n}`). The closing brace
 * ends the line, so the member cannot be inside a nested value or a string.
 */
const ID_IN_TAIL = new RegExp(
  String.raw`[,{]\s*"id"\s*:\s*${ID}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`,
);

/**
 * The id of a dropped message from its first and last bytes, when it was a
 * response (a request of the upstream's own, with an id of its numbering, is not).
 */
export function droppedResponseId(head: string, tail: string): RequestId | undefined {
  if (!RESPONSE_HEAD.test(head)) return undefined;
  const found = ID_IN_HEAD.exec(head)?.[1] ?? ID_IN_TAIL.exec(tail)?.[1];
  return found === undefined ? undefined : (JSON.parse(found) as RequestId);
}
