/**
 * Results larger than `STREAM_AFTER_CHARS` are streamed to disk as they are
 * serialized; their header line goes into a reserved slot, padded with trailing
 * spaces. The file must still be a valid offload file, byte-for-byte the same
 * records, with the right totals.
 */
import { readFileSync, statSync } from "node:fs";
import { afterAll, expect, it } from "vitest";
import { estimateLines, type OffloadHeader } from "../src/index.js";
import { Offloader } from "../src/node.js";
import { STREAM_AFTER_CHARS } from "../src/offload/offloader.js";
import { bash, recordingEvents, tempDir } from "./fixtures/helpers.js";
import { makeMemories } from "./fixtures/memory-records.js";

const t = tempDir("lro-stream-");
afterAll(() => t.cleanup());

it("streams a result larger than STREAM_AFTER_CHARS into a valid file", async () => {
  const records = makeMemories(16_000);
  const lines = records.map((r) => JSON.stringify(r));
  const chars = lines.reduce((n, l) => n + l.length + 1, 0);
  expect(chars).toBeGreaterThan(STREAM_AFTER_CHARS);
  const { events, seen } = recordingEvents();
  const o = new Offloader({
    config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: t.dir },
    events,
    now: () => Date.UTC(2025, 0, 2),
  });
  const r = await o.offloadRecords({ operation: "list", query: null, detail: "full", records });
  if (r.kind !== "offloaded") throw new Error(`expected offload, got ${r.kind}`);
  const expectedTokens = (await estimateLines(lines)).tokens;
  expect(r.estimatedTokens).toBe(expectedTokens);

  const text = readFileSync(r.file.path, "utf8");
  expect(statSync(r.file.path).size).toBe(r.file.bytes);
  const nl = text.indexOf("\n");
  const first = text.slice(0, nl);
  // The header slot was sized for the widest total, so trailing spaces pad it.
  expect(first).toMatch(/} +$/);
  const header = JSON.parse(first) as OffloadHeader;
  expect(header).toEqual({
    type: "lro_header",
    operation: "list",
    query: null,
    count: 16_000,
    schema_version: "0.1.0",
    timestamp: "2025-01-02T00:00:00.000Z",
    estimated_tokens: expectedTokens,
    detail: "full",
  });
  expect(r.file.header).toEqual(header);
  // The records, exactly the serialized lines.
  expect(text.slice(nl + 1)).toBe(`${lines.join("\n")}\n`);
  // Shell tools see a normal JSONL file.
  const count = bash(`tail -n +2 '${r.file.path}' | jq -s length`);
  expect(count.stdout.trim()).toBe("16000");
  const head = bash(`head -1 '${r.file.path}' | jq -c .estimated_tokens`);
  expect(head.stdout.trim()).toBe(String(expectedTokens));
  expect(seen.map((e) => e.type)).toEqual(["OffloadCreated"]);
  expect(r.response.summary.count).toBe(16_000);
}, 60_000);

it("a streamed write that fails falls back with the full totals and leaves no file", async () => {
  const d = tempDir("lro-stream-fail-");
  try {
    let writes = 0;
    const { events, seen } = recordingEvents();
    const { nodeOffloadFs } = await import("../src/node.js");
    const o = new Offloader({
      config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: d.dir },
      events,
      fs: {
        ...nodeOffloadFs,
        async open(path, flags, mode) {
          const handle = await nodeOffloadFs.open(path, flags, mode);
          return {
            async write(data, position) {
              if (++writes === 80) {
                throw Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" });
              }
              return handle.write(data, position);
            },
            close: () => handle.close(),
          };
        },
      },
    });
    const records = makeMemories(16_000);
    const r = await o.offloadRecords({ operation: "list", detail: "full", records });
    expect(writes).toBe(80);
    if (r.kind !== "truncated") throw new Error(`expected truncated, got ${r.kind}`);
    expect(r.total).toBe(16_000);
    const tokens = (await estimateLines(records.map((m) => JSON.stringify(m)))).tokens;
    expect(r.estimatedTokens).toBe(tokens);
    expect(r.lines.map((l) => JSON.parse(l))).toEqual(records.slice(0, r.lines.length));
    expect(seen).toEqual([
      expect.objectContaining({
        type: "OffloadWriteFailed",
        code: "EIO",
        estimated_tokens: tokens,
      }),
    ]);
    expect(bash(`ls -A '${d.dir}'`).stdout).toBe("");
  } finally {
    d.cleanup();
  }
}, 60_000);
