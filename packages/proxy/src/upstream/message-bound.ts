/**
 * The one bound on a message read from an upstream (a stdio line, an SSE event,
 * a whole HTTP body), the error a call gets when its response was over it, and
 * how the response's id is found in what was kept of it.
 */
import { type JSONRPCMessage, ProtocolError, type RequestId } from "@modelcontextprotocol/client";

/**
 * Largest message read from an upstream, in bytes: 511 MiB. A message is decoded
 * into one JavaScript string, and V8's longest is 2^29 - 24 UTF-16 units (~512 MiB);
 * UTF-8 never decodes to more units than bytes, so every message up to this bound
 * decodes. The SDK's stdio default (10 MiB) would refuse the very results the proxy
 * is for.
 */
export const MAX_MESSAGE_BYTES = 511 * 1024 * 1024;

/** JSON-RPC error code (implementation-defined server error) of a response over the bound. */
export const MESSAGE_TOO_LARGE = -32010;

/** The bound as text for messages: bytes and MiB. */
function boundText(maxBytes: number): string {
  return `${maxBytes} bytes (${Math.floor(maxBytes / 2 ** 20)} MiB)`;
}

/** What a call gets when its response was over the bound. */
export function tooLargeMessage(maxBytes: number): string {
  return `atlatl-proxy: MESSAGE_TOO_LARGE: the upstream's response exceeds ${boundText(maxBytes)}, the most the proxy reads in one message; it was dropped (the upstream and the session go on)`;
}

/** The error data beside {@link tooLargeMessage}. */
function tooLargeData(maxBytes: number) {
  return { code: "MESSAGE_TOO_LARGE", max_message_bytes: maxBytes };
}

/** The JSON-RPC error response answering request `id` in place of its dropped response. */
export function tooLargeResponse(id: RequestId, maxBytes: number): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: MESSAGE_TOO_LARGE,
      message: tooLargeMessage(maxBytes),
      data: tooLargeData(maxBytes),
    },
  };
}

/** The same as an error thrown where a response body is read. */
export function tooLargeError(maxBytes: number): ProtocolError {
  return new ProtocolError(MESSAGE_TOO_LARGE, tooLargeMessage(maxBytes), tooLargeData(maxBytes));
}

/** The notice for a dropped message that was no response (or whose id was not found). */
export function droppedNotice(maxBytes: number): Error {
  return new Error(`a message from the upstream exceeds ${boundText(maxBytes)} and was dropped`);
}

/** Bytes kept from each end of a dropped message: enough for its id. */
export const KEPT_BYTES = 256;

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
