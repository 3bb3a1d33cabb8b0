/**
 * A guard in front of the SDK's `StdioServerTransport`. That transport buffers
 * stdin up to 10 MiB; one longer message makes it clear its buffer, close, and
 * leave `atlatl serve` alive but deaf. This stream passes complete lines through
 * one at a time and drops a line longer than the limit as it streams by (holding
 * at most the limit), reporting it, so the server keeps serving every other
 * message and the sender can be told why its request failed.
 */
import { Transform, type TransformCallback } from "node:stream";

/** A dropped line: its size and, when it was a request, its JSON-RPC id. */
export interface OversizedLine {
  bytes: number;
  id: string | number | undefined;
}

const NEWLINE = 0x0a;
/** Bytes kept of a dropped line's start and end, to find its id. */
const EDGE_BYTES = 512;

const ID_AT_START =
  /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The id of a JSON-RPC request from the start and end of its text: the SDK's
 * clients write `id` last, others often first. Undefined when neither edge shows
 * one (a notification, or a layout we do not guess at).
 */
export function requestIdOf(head: string, tail: string): string | number | undefined {
  if (!head.includes('"method"') && !tail.includes('"method"')) return undefined;
  const match = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail.replace(/\r$/, ""));
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
export function limitLineLength(
  maxBytes: number,
  onOversized: (line: OversizedLine) => void,
): Transform {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let dropping = false;
  let droppedBytes = 0;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);

  const startDropping = () => {
    const pending = Buffer.concat(held);
    dropping = true;
    droppedBytes = pending.length;
    head = pending.subarray(0, EDGE_BYTES);
    tail = pending.subarray(Math.max(0, pending.length - EDGE_BYTES));
    held = [];
    heldBytes = 0;
  };
  const drop = (part: Buffer) => {
    droppedBytes += part.length;
    if (head.length < EDGE_BYTES) head = Buffer.concat([head, part.subarray(0, EDGE_BYTES)]);
    tail = Buffer.concat([tail, part]).subarray(-EDGE_BYTES);
  };
  const finishDropped = () => {
    onOversized({
      bytes: droppedBytes,
      id: requestIdOf(head.toString("utf8"), tail.toString("utf8").replace(/\n$/, "")),
    });
    dropping = false;
    droppedBytes = 0;
    head = Buffer.alloc(0);
    tail = Buffer.alloc(0);
  };

  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        const part = chunk.subarray(start, end);
        if (!dropping) {
          held.push(part);
          heldBytes += part.length;
          if (heldBytes > maxBytes) startDropping();
        } else {
          drop(part);
        }
        if (newline !== -1) {
          if (dropping) finishDropped();
          else {
            this.push(held.length === 1 ? held[0] : Buffer.concat(held));
            held = [];
            heldBytes = 0;
          }
        }
        start = end;
      }
      done();
    },
    flush(done: TransformCallback) {
      if (dropping) finishDropped();
      else if (heldBytes > 0) this.push(Buffer.concat(held));
      done();
    },
  });
}
