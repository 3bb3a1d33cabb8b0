/**
 * Any CallToolResult through LRO: small ones untouched, errors never
 * offloaded, JSON arrays of objects as records (records profile, recipes in
 * bash + jq), other content as sections with text lines and attachment files;
 * every file reassembles to what the result held.
 */
import { readFileSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  estimateTokens,
  type GenericOffloadResponse,
  type RecordsOffloadResponse,
  sectionsProfile,
} from "../src/index.js";
import { estimateCallResultTokens, offloadCallToolResult, reassembleResult } from "../src/mcp.js";
import {
  LroExtractor,
  nodeOffloadFs,
  Offloader,
  offloaderReoffload,
  sweepOffloadDir,
} from "../src/node.js";
import { parseJsonStream, recipeBash, recordingEvents, tempDir } from "./fixtures/helpers.js";

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function setup(threshold = 200) {
  const t = tempDir("lro-call-");
  cleanups.push(t.cleanup);
  const { events, seen } = recordingEvents();
  const offloader = new Offloader({
    config: {
      enabled: true,
      thresholdTokens: threshold,
      ttlSeconds: 3600,
      outputDir: join(t.dir, "out"),
    },
    events,
  });
  const extractor = new LroExtractor({
    config: offloader.config,
    reoffload: offloaderReoffload(offloader),
  });
  cleanups.push(() => extractor.close());
  return { offloader, extractor, seen, dir: join(t.dir, "out") };
}

const textOf = (r: CallToolResult) => {
  const b = r.content[0];
  return b?.type === "text" ? b.text : "";
};

const rows = Array.from({ length: 120 }, (_, i) => ({
  name: `file-${i}.txt`,
  kind: i % 4 === 0 ? "directory" : "file",
  size: i * 100,
}));

describe("offloadCallToolResult", () => {
  it("estimates a result by its texts when they alone are above the threshold, else by its JSON", async () => {
    const big: CallToolResult = { content: [{ type: "text", text: "x".repeat(4000) }] };
    expect(await estimateCallResultTokens(big, 100)).toBe(1000);
    const small: CallToolResult = {
      content: [{ type: "text", text: "hello" }],
      structuredContent: { greeting: "hello" },
    };
    expect(await estimateCallResultTokens(small, 100)).toBe(
      await estimateTokens(JSON.stringify(small)),
    );
  });

  it("returns small results untouched and never offloads isError results", async () => {
    const { offloader, dir } = setup();
    const small: CallToolResult = { content: [{ type: "text", text: "hello" }], _meta: { x: 1 } };
    expect(await offloadCallToolResult(offloader, small, { operation: "t" })).toBe(small);
    const error: CallToolResult = {
      isError: true,
      content: [{ type: "text", text: "boom ".repeat(5000) }],
    };
    expect(await offloadCallToolResult(offloader, error, { operation: "t" })).toBe(error);
    expect(() => readFileSync(dir)).toThrow();
  });

  it("offloads a JSON text array of objects as records with recipes that run in bash + jq", async () => {
    const { offloader, extractor } = setup();
    const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(rows) }] };
    const out = await offloadCallToolResult(offloader, result, { operation: "list_dir" });
    const d = JSON.parse(textOf(out)) as RecordsOffloadResponse;
    expect(d.offloaded).toBe(true);
    expect(d.summary).toMatchObject({ count: 120 });
    expect(Object.keys(d.line_schema as object)).toEqual(["name", "kind", "size"]);
    expect(basename(d.file_path).startsWith("atlatl-list_dir-")).toBe(true);
    const lines = readFileSync(d.file_path, "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({ profile: "records", count: 120 });
    // Reassembled, the file is exactly what the result held.
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(rows);
    expect(await reassembleResult(d as unknown as Parameters<typeof reassembleResult>[0])).toEqual({
      content: result.content,
    });
    const byKind = d.jq_recipes.find((r) => r.description === "Count by kind");
    expect(byKind).toBeDefined();
    const run = recipeBash(d, byKind?.command as string);
    expect(run.code, run.stderr).toBe(0);
    expect(parseJsonStream(run.stdout)).toEqual([
      [
        { kind: "directory", count: 30 },
        { kind: "file", count: 90 },
      ],
    ]);
    const n = d.jq_recipes.findIndex((r) => r.description === "Count by kind") + 1;
    const native = await extractor.extract({ file_path: d.file_path, recipe: n });
    expect(native.ok && native.text).toBe(
      '[{"kind":"directory","count":30},{"kind":"file","count":90}]\n',
    );
  });

  it("takes records from structuredContent under one key, other keys inline", async () => {
    const { offloader } = setup();
    const structured = { total: 120, entries: rows };
    const result: CallToolResult = {
      content: [{ type: "text", text: JSON.stringify(structured) }],
      structuredContent: structured,
      _meta: { trace: "abc" },
    };
    const out = await offloadCallToolResult(offloader, result, { operation: "list_dir" });
    expect(out._meta).toEqual({ trace: "abc" });
    const d = JSON.parse(textOf(out)) as RecordsOffloadResponse & {
      total: number;
      records_key: string;
    };
    expect(d.total).toBe(120);
    expect(d.records_key).toBe("entries");
    const lines = readFileSync(d.file_path, "utf8").trimEnd().split("\n");
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(rows);
    expect(await reassembleResult(d as unknown as Parameters<typeof reassembleResult>[0])).toEqual({
      content: result.content,
      structuredContent: structured,
    });
  });

  it("offloads long text and an image as sections: text lines reassemble, the image gets its own file", async () => {
    const { offloader, extractor, dir } = setup();
    const text = Array.from(
      { length: 400 },
      (_, i) => `line ${i + 1}: ${i % 50 === 0 ? "ERROR disk" : "ok"}`,
    ).join("\n");
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const result: CallToolResult = {
      content: [
        { type: "text", text },
        { type: "image", data: png.toString("base64"), mimeType: "image/png" },
        { type: "text", text: "tail\n" },
      ],
    };
    const out = await offloadCallToolResult(offloader, result, {
      operation: "long",
      resourceLinks: true,
    });
    const d = JSON.parse(textOf(out)) as GenericOffloadResponse;
    expect(Object.keys(d.files)).toEqual(["text", "image"]);
    const textLines = readFileSync(d.files.text as string, "utf8")
      .trimEnd()
      .split("\n");
    expect(JSON.parse(textLines[0] as string)).toMatchObject({
      profile: "sections",
      section: "text",
    });
    const records = textLines
      .slice(1)
      .map((l) => JSON.parse(l) as { block: number; line: number; text: string });
    const block = (n: number) =>
      records
        .filter((r) => r.block === n)
        .map((r) => r.text)
        .join("\n");
    expect(block(0)).toBe(text);
    expect(block(2)).toBe("tail\n");
    const image = JSON.parse(
      readFileSync(d.files.image as string, "utf8")
        .trimEnd()
        .split("\n")[1] as string,
    );
    expect(image).toMatchObject({
      block: 1,
      type: "image",
      mimeType: "image/png",
      bytes: png.length,
    });
    expect(basename(image.file)).toMatch(/^atlatl-long-[0-9A-Z]{26}\.png$/);
    expect(readFileSync(image.file)).toEqual(png);
    expect(out.content.filter((c) => c.type === "resource_link")).toHaveLength(2);

    // Lossless: the descriptor's files give the result back.
    expect(await reassembleResult(d)).toEqual({ content: result.content });
    // The text recipes run in bash + jq; read_text gives the blocks back.
    const full = recipeBash(d, d.jq_recipes.read_text as string);
    expect(full.stdout).toBe(`${text}\ntail\n\n`);
    const hits = recipeBash(d, (d.jq_recipes.grep_text as string).replace("PATTERN", "error"));
    expect(hits.stdout.trimEnd().split("\n")).toHaveLength(8);
    // lro_extract: no numbered recipes on section files, jq queries work.
    const byNumber = await extractor.extract({ file_path: d.files.text as string, recipe: 1 });
    expect(byNumber.ok).toBe(false);
    if (!byNumber.ok)
      expect(byNumber.error.message).toMatch(/sections file, which has no numbered recipes/);
    const q = await extractor.extract({
      file_path: d.files.text as string,
      query: 'select(.text | test("ERROR")) | .line',
    });
    expect(q.ok && q.text).toBe("1\n51\n101\n151\n201\n251\n301\n351\n");

    // The attachment is swept with the files after the TTL.
    const swept = await sweepOffloadDir({ dir, ttlSeconds: 1, now: () => Date.now() + 5000 });
    expect(swept.expired.map((p) => basename(p)).sort()).toContain(basename(image.file));
  });

  it("runs the sections profile through the one records pipeline: one section, header names it", async () => {
    const { offloader, extractor } = setup(10);
    const values = Array.from({ length: 30 }, (_, i) => (i % 2 ? { n: i } : `text ${i}`));
    const r = await offloader.offloadRecords({
      operation: "values",
      profile: sectionsProfile,
      records: values as object[],
    });
    if (r.kind !== "offloaded") throw new Error(`expected offload, got ${r.kind}`);
    const path = r.response.files.results as string;
    expect(r.response.summary).toEqual({ results: { count: 30 } });
    expect(r.response.schemas.results?.line_schema).toEqual({
      n: "integer",
      "(type)": "string|object",
    });
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      schema_version: "generic",
      detail: "raw",
      profile: "sections",
      section: "results",
    });
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(values);
    const count = recipeBash(r.response, r.response.jq_recipes.count_results as string);
    expect(count.stdout.trim()).toBe("30");
    const q2 = await extractor.extract({ file_path: path, query: ".n? // empty", limit: 2 });
    expect(q2.ok && q2.text).toBe("1\n3\n");
  });
});

describe("offloadCallToolResult when the write fails", () => {
  it("returns the text truncated to the threshold with a warning, and emits OffloadWriteFailed", async () => {
    const t = tempDir("lro-call-fail-");
    cleanups.push(t.cleanup);
    const link = join(t.dir, "link");
    symlinkSync(t.dir, link);
    const { events, seen } = recordingEvents();
    const offloader = new Offloader({
      config: { enabled: true, thresholdTokens: 200, ttlSeconds: 3600, outputDir: link },
      events,
    });
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} of a long log`).join("\n");
    const out = await offloadCallToolResult(
      offloader,
      { content: [{ type: "text", text }], _meta: { k: 1 } },
      { operation: "log" },
    );
    expect(out._meta).toEqual({ k: 1 });
    expect(out.content).toHaveLength(1);
    const [kept, warning] = textOf(out).split("\n\n> Warning: ") as [string, string];
    // The specification's fallback: inline, truncated to the threshold, never the whole result.
    expect(text.startsWith(kept)).toBe(true);
    expect(kept.length).toBeLessThan(text.length);
    expect(Math.ceil(textOf(out).length / 4)).toBeLessThanOrEqual(200);
    expect(warning).toContain(`${kept.length} of ${text.length} characters`);
    expect(seen.map((e) => e.type)).toEqual(["OffloadWriteFailed"]);
  });
});

describe("lro_extract output when its re-offload fails", () => {
  it("keeps the leading values whose estimated tokens fit the threshold, CJK text included", async () => {
    const t = tempDir("lro-extract-fail-");
    cleanups.push(t.cleanup);
    const config = { enabled: true, thresholdTokens: 200, ttlSeconds: 3600, outputDir: t.dir };
    const sentence = "東京都の天気は晴れです。明日は雨が降るでしょう。";
    const records = Array.from({ length: 100 }, (_, i) => ({ n: i, text: `${i} ${sentence}` }));
    const written = await offloadCallToolResult(
      new Offloader({ config }),
      { content: [{ type: "text", text: JSON.stringify(records) }] },
      { operation: "notes" },
    );
    const filePath = (JSON.parse(textOf(written)) as { file_path: string }).file_path;
    // Writing the derived file fails, small or large: no space left.
    const noSpace = () =>
      Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    const full = new Offloader({
      config,
      fs: {
        ...nodeOffloadFs,
        async open() {
          throw noSpace();
        },
        writeNewFileSync() {
          throw noSpace();
        },
      },
    });
    const extractor = new LroExtractor({ config, reoffload: offloaderReoffload(full) });
    cleanups.push(() => extractor.close());
    const r = await extractor.extract({ file_path: filePath, query: ".text" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [body, warning] = r.text.split("\n> Warning: ") as [string, string];
    const kept = body.split("\n").filter((l) => l !== "");
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(records.slice(0, kept.length).map((x) => JSON.stringify(x.text)));
    expect(warning).toContain(`${kept.length} of 100 records`);
    // The fallback fits the threshold as the estimator counts it (CJK at its tokens, not chars / 4).
    expect(await estimateTokens(r.text)).toBeLessThanOrEqual(200);
  });
});
