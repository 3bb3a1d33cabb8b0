/**
 * The one error for a message over a reader's bound, whoever reads it (the
 * server or the proxy reading a client's request, the proxy reading an
 * upstream's response): one JSON-RPC code, a message saying what was dropped
 * and the bound, and `data.code: "MESSAGE_TOO_LARGE"` with the bound in bytes.
 */

import { type JsonRpcErrorResponse, jsonRpcErrorResponse } from "../protocol/json-rpc-error.js";

/**
 * JSON-RPC code of {@link messageTooLargeError}: application-defined, outside the
 * range JSON-RPC reserves (-32768 to -32000; MCP 2026-07-28 takes -32020 to -32099
 * and allows no new codes in -32000 to -32019).
 */
export const MESSAGE_TOO_LARGE = -31010;

/** The JSON-RPC error object (`error` of a response) for a dropped message. */
export interface MessageTooLargeError {
  code: typeof MESSAGE_TOO_LARGE;
  message: string;
  data: { code: "MESSAGE_TOO_LARGE"; max_message_bytes: number };
}

/** What {@link messageTooLargeError} says. */
export interface MessageTooLargeOptions {
  /** Who dropped it, and reads at most `maxBytes` (`atlatl`, `atlatl-proxy`). */
  reader: string;
  /** What was dropped (`the request`, `the upstream's response`). */
  subject: string;
  maxBytes: number;
  /** Its size, when it is known (a message read to its end). */
  bytes?: number | undefined;
  /** What goes on (the default: the session). */
  goesOn?: string;
  /** What the sender can do instead. */
  advice?: string;
}

/** The bound as text: bytes and MiB. */
function boundText(maxBytes: number): string {
  return `${maxBytes} bytes (${Math.floor(maxBytes / 2 ** 20)} MiB)`;
}

/** The error for a message over the bound (see the file's comment). */
export function messageTooLargeError(options: MessageTooLargeOptions): MessageTooLargeError {
  const { reader, subject, maxBytes, bytes } = options;
  const size = bytes === undefined ? "" : ` is ${bytes} bytes and`;
  const advice = options.advice ? ` ${options.advice}` : "";
  return {
    code: MESSAGE_TOO_LARGE,
    message: `${reader}: MESSAGE_TOO_LARGE: ${subject}${size} exceeds ${boundText(maxBytes)}, the most ${reader} reads in one message; it was dropped (${options.goesOn ?? "the session goes on"}).${advice}`,
    data: { code: "MESSAGE_TOO_LARGE", max_message_bytes: maxBytes },
  };
}

/** The JSON-RPC error response answering request `id` in place of its dropped message. */
export function messageTooLargeResponse(
  id: string | number,
  options: MessageTooLargeOptions,
): JsonRpcErrorResponse<string | number, MessageTooLargeError> {
  return jsonRpcErrorResponse(id, messageTooLargeError(options));
}
