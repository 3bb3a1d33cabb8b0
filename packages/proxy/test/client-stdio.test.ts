/**
 * The proxy's stdio toward its client (issue 29, item 12): the SDK's stdio
 * transport behind `@atlatl/lro`'s bounded framer. A long request line reaches
 * the server whole in time linear in its length (counted as bytes copied by
 * concatenation, not timed); a line over the bound is answered with
 * MESSAGE_TOO_LARGE and the next message is served.
 */
import { PassThrough } from "node:stream";
import { MESSAGE_TOO_LARGE } from "@atlatl/lro/node";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clientStdioTransport } from "../src/cli/client-stdio.js";

afterEach(() => vi.restoreAllMocks());

/** The transport on fresh pipes, started; what it received and wrote. */
async function open(maxBytes: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: string[] = [];
  stdout.on("data", (b: Buffer) => written.push(b.toString()));
  const log: string[] = [];
  const transport = clientStdioTransport(stdin, stdout, maxBytes, (m) => log.push(m));
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (m) => received.push(m);
  await transport.start();
  return { stdin, transport, received, written, log };
}

/** Write `line` in pipe-sized chunks and let the streams run. */
async function feed(stdin: PassThrough, line: string): Promise<void> {
  const bytes = Buffer.from(line);
  for (let i = 0; i < bytes.length; i += 64 * 1024) {
    stdin.write(bytes.subarray(i, i + 64 * 1024));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
}

/** A tools/call request line with `size` bytes of argument text, id last (as SDK clients write it). */
function request(id: number, size: number): string {
  return `${JSON.stringify({ method: "tools/call", params: { name: "echo", arguments: { text: "x".repeat(size) } }, jsonrpc: "2.0", id })}\n`;
}

describe("the proxy's client-facing stdio", () => {
  it("reads an 8 MB request line copying its bytes a bounded number of times, not once per chunk", async () => {
    const { stdin, transport, received } = await open(16 * 1024 * 1024);
    const line = request(1, 8 * 1024 * 1024);
    let copied = 0;
    const concat = Buffer.concat.bind(Buffer);
    vi.spyOn(Buffer, "concat").mockImplementation((list, total) => {
      const out = concat(list, total);
      copied += out.length;
      return out;
    });
    await feed(stdin, line);
    vi.restoreAllMocks();
    expect(received).toHaveLength(1);
    const params = (received[0] as unknown as { params: { arguments: { text: string } } }).params;
    expect(params.arguments.text).toHaveLength(8 * 1024 * 1024);
    // The framer's one join and the SDK buffer's one copy of the whole line.
    expect(copied).toBeLessThanOrEqual(2 * line.length);
    await transport.close();
  });

  it("answers a request over the bound with MESSAGE_TOO_LARGE and serves the next one", async () => {
    const { stdin, transport, received, written, log } = await open(1024 * 1024);
    await feed(stdin, request(7, 2 * 1024 * 1024));
    await feed(stdin, request(8, 10));
    const answer = JSON.parse(written.join("")) as {
      id: number;
      error: { code: number; message: string; data: unknown };
    };
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(MESSAGE_TOO_LARGE);
    expect(answer.error.message).toMatch(
      /^atlatl-proxy: MESSAGE_TOO_LARGE: the request is \d+ bytes and exceeds 1048576 bytes/,
    );
    expect(answer.error.data).toEqual({ code: "MESSAGE_TOO_LARGE", max_message_bytes: 1048576 });
    expect(log.join("\n")).toMatch(/dropped a message from the client of \d+ bytes .*request 7/);
    expect(received.map((m) => (m as { id: number }).id)).toEqual([8]);
    await transport.close();
  });
});
