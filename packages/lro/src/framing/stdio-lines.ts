/**
 * The reading side of an MCP stdio server (`atlatl serve`, `atlatl-proxy`) in
 * front of the SDK's `StdioServerTransport`. That transport concatenates each
 * chunk to what it holds (quadratic in a long line: 64 MB took 24 s) and, past its
 * limit, clears its buffer and reports an error, leaving the connection deaf to the
 * rest of that line's bytes. This stream hands it whole lines, each as one chunk
 * joined once ({@link MessageFramer}), and drops a line over the bound as it
 * streams by (holding at most the bound), reporting its size and request id so
 * the sender can be told why its request failed while every other message is
 * served.
 */
import { Transform, type TransformCallback } from "node:stream";
import { lineBoundary, MessageFramer } from "./message-framer.js";

/** A dropped line: its size and, when it was a request, its JSON-RPC id. */
export interface OversizedLine {
  bytes: number;
  id: string | number | undefined;
}

const ID_AT_START =
  /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The id of a JSON-RPC request from the start and end of its text: the SDK's
 * clients write `id` last, others often first. Undefined when neither edge shows
 * one (a notification, or a layout we do not guess at).
 */
function requestIdOf(head: string, tail: string): string | number | undefined {
  if (!head.includes('"method"') && !tail.includes('"method"')) return undefined;
  const match = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail.replace(/\r?\n?$/, ""));
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1]) as string | number;
  } catch {
    return undefined;
  }
}

/**
 * Lines of at most `maxBytes` (newline included) pass through, each as one chunk
 * (object mode, so the transport gets whole messages); longer ones are dropped and
 * reported to `onOversized` once their newline arrives.
 */
export function frameStdioLines(
  maxBytes: number,
  onOversized: (line: OversizedLine) => void,
): Transform {
  const framer = new MessageFramer(maxBytes, lineBoundary, {
    message: (parts) => lines.push(parts.length === 1 ? parts[0] : Buffer.concat(parts)),
    dropped: (head, tail, bytes) =>
      onOversized({ bytes, id: requestIdOf(head.toString("utf8"), tail.toString("utf8")) }),
  });
  const lines = new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      framer.push(chunk);
      done();
    },
    flush(done: TransformCallback) {
      framer.flush();
      done();
    },
  });
  return lines;
}
