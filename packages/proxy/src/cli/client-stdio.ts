/**
 * The proxy's stdio toward its client: the SDK's `StdioServerTransport` reading
 * whole lines from `@atlatl/lro`'s bounded framer (linear in a line's length,
 * where the transport alone re-concatenates its buffer per chunk). A request
 * line over the bound is dropped as it streams by and answered with
 * `MESSAGE_TOO_LARGE`; the session goes on.
 */
import type { Readable, Writable } from "node:stream";
import { frameStdioLines, messageTooLargeResponse, type OversizedLine } from "@atlatl/lro/node";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

/** The client-facing transport on `stdin`/`stdout`, reading messages of at most `maxBytes`. */
export function clientStdioTransport(
  stdin: Readable,
  stdout: Writable,
  maxBytes: number,
  log: (message: string) => void,
): StdioServerTransport {
  const onOversized = (line: OversizedLine) => {
    log(
      `dropped a message from the client of ${line.bytes} bytes (limit ${maxBytes} bytes)${line.id !== undefined ? ` for request ${JSON.stringify(line.id)}` : ""}; still serving`,
    );
    if (line.id === undefined) return;
    const response = messageTooLargeResponse(line.id, {
      reader: "atlatl-proxy",
      subject: "the request",
      bytes: line.bytes,
      maxBytes,
      advice: "Send less per call.",
    });
    transport.send(response).catch(() => {});
  };
  // The framer hands over lines within the bound: the transport's own limit is never reached.
  const transport = new StdioServerTransport(
    stdin.pipe(frameStdioLines(maxBytes, onOversized)),
    stdout,
    {
      maxBufferSize: maxBytes,
    },
  );
  return transport;
}
