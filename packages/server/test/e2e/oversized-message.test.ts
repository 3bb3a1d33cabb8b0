import { frameStdioLines, MESSAGE_TOO_LARGE, type OversizedLine } from "@atlatl/lro/node";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, jsonOf, type RunningServer, startServer } from "./spawn-server.js";

describe("atlatl serve and a stdio message over 10 MiB", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it("answers that request with an error, logs why, and keeps serving", async () => {
    const huge = "x".repeat(11 * 1024 * 1024);
    const err = await s.client
      .callTool({ name: "capture_memory", arguments: { content: huge } }, undefined, {
        timeout: 20_000,
      })
      .then(
        () => undefined,
        (e: { code: number; message: string; data: unknown }) => e,
      );
    expect(err?.message).toMatch(/MESSAGE_TOO_LARGE: the request is \d+ bytes/);
    // One code and data for every reader (the proxy's too): outside the range MCP reserves.
    expect(err?.code).toBe(MESSAGE_TOO_LARGE);
    expect(err?.data).toEqual({
      code: "MESSAGE_TOO_LARGE",
      max_message_bytes: STDIO_DEFAULT_MAX_BUFFER_SIZE,
    });
    expect(s.stderr()).toMatch(/dropped a stdio message of \d+ bytes .*; still serving/);

    const after = await call(s.client, "capture_memory", { content: "Still listening" });
    expect(after.isError).toBeFalsy();
    expect(jsonOf<{ title: string }>(after).title).toBe("Still listening");
  }, 60_000);
});

describe("frameStdioLines", () => {
  async function run(chunks: string[], max: number) {
    const dropped: OversizedLine[] = [];
    const guard = frameStdioLines(max, (line) => dropped.push(line));
    const lines: string[] = [];
    guard.on("data", (b: Buffer) => lines.push(b.toString()));
    for (const c of chunks) guard.write(Buffer.from(c));
    guard.end();
    await new Promise((resolve) => guard.on("end", resolve));
    return { lines, dropped };
  }

  it("passes whole lines split across chunks and drops only the long one", async () => {
    const long = `{"id":7,"method":"tools/call","params":{"a":"${"y".repeat(100)}"}}\n`;
    const { lines, dropped } = await run(
      ['{"a":', '1}\n{"b"', ":2}\n", long.slice(0, 50), long.slice(50), '{"c":3}\n'],
      64,
    );
    expect(lines).toEqual(['{"a":1}\n', '{"b":2}\n', '{"c":3}\n']);
    expect(dropped).toEqual([{ bytes: long.length, id: 7 }]);
  });
});
