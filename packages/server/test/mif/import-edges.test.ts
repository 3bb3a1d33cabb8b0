import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importPath, MAX_REPORTED_REJECTIONS } from "../../src/mif/import.js";
import { type ArrayChunk, readJsonArray } from "../../src/mif/json-array-stream.js";
import { memoryStore, mifDoc, tempDir, writeFiles } from "./helpers.js";

describe("import rejection reports are bounded", () => {
  it("a .json array of 200,000 numbers lists the first rejections and counts them all", async () => {
    const dir = tempDir();
    const file = join(dir, "numbers.json");
    writeFileSync(file, `[${Array.from({ length: 200_000 }, (_, i) => i % 10).join(",")}]`);
    const store = await memoryStore();
    const report = await importPath(store, file);
    expect(report.imported).toBe(0);
    expect(report.rejectedCount).toBe(200_000);
    expect(report.rejected).toHaveLength(MAX_REPORTED_REJECTIONS);
    expect(report.rejected[0]).toMatchObject({ file, pointer: "/0" });
    expect(report.rejected[0]?.message).toMatch(/must be a JSON object/);
    expect(report.rejected.at(-1)?.pointer).toBe(`/${MAX_REPORTED_REJECTIONS - 1}`);
  });

  it("still imports the good documents among many bad ones", async () => {
    const dir = tempDir();
    const docs: unknown[] = Array.from({ length: 5000 }, (_, i) =>
      i % 1000 === 0 ? mifDoc(`ok-${i}`) : i,
    );
    writeFiles(dir, { "mixed.json": JSON.stringify(docs) });
    const store = await memoryStore();
    const report = await importPath(store, dir, { batchSize: 2 });
    expect(report.imported).toBe(5);
    expect(report.rejectedCount).toBe(4995);
    expect(await store.get("ok-4000")).toBeDefined();
  });
});

describe("a UTF-8 byte-order mark", () => {
  it("is accepted at the start of a .json and a .jsonl file", async () => {
    const dir = tempDir();
    writeFiles(dir, {
      "bom.json": `\uFEFF${JSON.stringify(mifDoc("bom-json"))}`,
      "bom.jsonl": `\uFEFF${JSON.stringify(mifDoc("bom-jsonl-1"))}\n${JSON.stringify(mifDoc("bom-jsonl-2"))}\n`,
    });
    const store = await memoryStore();
    const report = await importPath(store, dir);
    expect(report.rejected).toEqual([]);
    expect(report.imported).toBe(3);
    expect(await store.get("bom-jsonl-1")).toBeDefined();
  });
});

describe("rejections name fields as the document spells them, whatever the file type", () => {
  const camel = {
    id: "c1",
    memoryType: "semantic",
    content: "camel",
    created: "2026-01-01T00:00:00Z",
  };
  const snake = {
    id: "s1",
    memory_type: "bogus",
    content: "snake",
    created: "2026-01-01T00:00:00Z",
    confidence: 3,
  };

  it("reports the same document alike in .json, a .json array and .jsonl", async () => {
    for (const [doc, expected] of [
      [camel, { pointer: "/@context", words: ["/@id is required", "/@type is required"] }],
      [
        snake,
        {
          pointer: "/memory_type",
          words: ["/memory_type must be one of", "/confidence must be <= 1"],
        },
      ],
    ] as const) {
      const dir = tempDir();
      writeFiles(dir, {
        "one.json": JSON.stringify(doc),
        "many.json": JSON.stringify([doc]),
        "lines.jsonl": `${JSON.stringify(doc)}\n`,
      });
      const report = await importPath(await memoryStore(), dir);
      expect(report.rejected).toHaveLength(3);
      for (const r of report.rejected) {
        expect(r.pointer.replace(/^\/0/, "")).toBe(expected.pointer);
        for (const w of expected.words) expect(r.message).toContain(w);
        expect(r.message).not.toMatch(doc === camel ? /memory_type/ : /memoryType|provenance/);
      }
    }
  });
});

describe("streamed .json arrays (files above JSON_STREAM_BYTES)", () => {
  async function chunks(text: string): Promise<ArrayChunk[]> {
    const file = join(tempDir(), "a.json");
    writeFileSync(file, text);
    const out: ArrayChunk[] = [];
    for await (const chunk of readJsonArray(file)) out.push(chunk);
    return out;
  }

  it("yields every element with its index, after a BOM, without building the array", async () => {
    const out = await chunks(`\uFEFF[\n  {"a": 1},\n  2,\n  "three"\n]\n`);
    const elements = out.flatMap((c) => (c.kind === "elements" ? c.elements : []));
    expect(elements).toEqual([
      { index: 0, value: { a: 1 } },
      { index: 1, value: 2 },
      { index: 2, value: "three" },
    ]);
    expect(out.some((c) => c.kind === "problem")).toBe(false);
  });

  it("yields only the problem, with its line and column, for a malformed file", async () => {
    for (const [text, line] of [
      ['[\n  {"a": 1},\n  {"b": 2},,\n  3\n]', 3],
      ["[\n  1,\n  2\n", 3],
      ["[1, 2] 3", 1],
    ] as const) {
      const out = await chunks(text);
      expect(out).toHaveLength(1);
      const [only] = out;
      expect(only?.kind).toBe("problem");
      if (only?.kind === "problem") {
        expect(only.problem.line).toBeGreaterThanOrEqual(line);
        expect(only.problem.line).toBeLessThanOrEqual(line + 1);
        expect(only.problem.column).toBeGreaterThan(0);
      }
    }
  });
});
