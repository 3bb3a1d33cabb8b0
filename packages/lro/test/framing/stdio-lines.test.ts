/**
 * The one bounded stdio framer (`frameStdioLines`, on `MessageFramer`): lines
 * pass whole, in time linear in their length (counted as the bytes copied by
 * concatenation, not timed); a line over the bound is dropped as it streams by
 * and reported with its size and request id.
 */
import { frameStdioLines, type OversizedLine } from "@atlatl/lro/node";
import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => vi.restoreAllMocks());

/** Feed `chunks` through a framer bounded at `max`; the lines out and the lines dropped. */
async function run(chunks: Buffer[], max: number) {
  const dropped: OversizedLine[] = [];
  const framer = frameStdioLines(max, (line) => dropped.push(line));
  const lines: Buffer[] = [];
  framer.on("data", (b: Buffer) => lines.push(b));
  for (const c of chunks) framer.write(c);
  framer.end();
  await new Promise((resolve) => framer.on("end", resolve));
  return { lines, dropped };
}

/** `text` as chunks of `size` bytes, as a pipe delivers them. */
function chunked(text: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.subarray(i, i + size));
  return out;
}

/** Bytes copied by `Buffer.concat` while `fn` runs. */
async function concatBytes(fn: () => Promise<unknown>): Promise<number> {
  let copied = 0;
  const concat = Buffer.concat.bind(Buffer);
  vi.spyOn(Buffer, "concat").mockImplementation((list, total) => {
    const out = concat(list, total);
    copied += out.length;
    return out;
  });
  await fn();
  return copied;
}

describe("frameStdioLines", () => {
  it("joins a 64 MB line in 64 KiB chunks once: bytes copied equal the line's length", async () => {
    const line = Buffer.alloc(64 * 1024 * 1024, "x");
    line[line.length - 1] = 10;
    let out: Buffer[] = [];
    const copied = await concatBytes(async () => {
      out = (await run(chunked(line, 64 * 1024), 128 * 1024 * 1024)).lines;
    });
    expect(out).toHaveLength(1);
    expect(out[0]?.length).toBe(line.length);
    expect(copied).toBeLessThanOrEqual(line.length);
  });

  it("drops a line over the bound holding at most its ends, and reports its size and id", async () => {
    const big = Buffer.from(
      `{"method":"tools/call","params":{"a":"${"y".repeat(8 * 1024 * 1024)}"},"jsonrpc":"2.0","id":7}\n`,
    );
    let result: Awaited<ReturnType<typeof run>> | undefined;
    const copied = await concatBytes(async () => {
      result = await run([...chunked(big, 64 * 1024), Buffer.from('{"c":3}\n')], 1024 * 1024);
    });
    expect(result?.dropped).toEqual([{ bytes: big.length, id: 7 }]);
    expect(result?.lines.map(String)).toEqual(['{"c":3}\n']);
    // Up to the bound once (when it is passed), then only the kept ends per chunk.
    expect(copied).toBeLessThan(2 * 1024 * 1024);
  });

  it("passes whole lines split across chunks and reads the id at the start or the end", async () => {
    const first = `{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"a":"${"y".repeat(100)}"}}\n`;
    const { lines, dropped } = await run(
      ['{"a":', '1}\n{"b"', ":2}\n", first.slice(0, 50), first.slice(50), '{"c":3}'].map((s) =>
        Buffer.from(s),
      ),
      64,
    );
    expect(lines.map(String)).toEqual(['{"a":1}\n', '{"b":2}\n', '{"c":3}']);
    expect(dropped).toEqual([{ bytes: first.length, id: "a-1" }]);
  });
});
