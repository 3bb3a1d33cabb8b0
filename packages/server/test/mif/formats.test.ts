import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MifError } from "../../src/mif/errors.js";
import { formatRejection, importPath } from "../../src/mif/import.js";
import type { ImportRejection } from "../../src/mif/sources.js";
import type { Memory } from "../../src/model/memory.js";
import { allMemories, memoryStore, mifDoc, tempDir, writeFiles } from "./helpers.js";

const record: Memory = {
  id: "rec-1",
  memory_type: "episodic",
  title: "Session: profiling the search API",
  content: "Found a missing index on created_ms.",
  namespace: "_episodic/sessions/atlas",
  tags: ["session", "performance"],
  status: "archived",
  created: "2025-05-01T08:00:00Z",
  modified: "2025-05-02T08:00:00Z",
  aliases: [],
  entities: [
    { id: "technology:sqlite", name: "SQLite", entity_type: "Technology", role: "subject" },
  ],
  relationships: [{ relationship_type: "RelatesTo", target: "rec-0", strength: 0.8 }],
  provenance: {
    confidence: 0.9,
    trust_level: "high_confidence",
    source_type: "agent_inferred",
    agent: "claude-code",
  },
  temporal: null,
  embedding: null,
  summary: "Missing index.",
  blocks: null,
  citations: [],
  extensions: { "acme:ticket": "OPS-12" },
};

describe("JSONL", () => {
  it("imports MIF documents and atlatl record lines, skips an offload header, reports bad lines by number", async () => {
    const dir = tempDir();
    const lines = [
      JSON.stringify({ type: "lro_header", operation: "recall", count: 3 }),
      JSON.stringify(mifDoc("j1")),
      "",
      "{ this is not json",
      JSON.stringify(record),
      JSON.stringify({ id: "rec-2", memory_type: "semantic", content: "No creation time." }),
      JSON.stringify(mifDoc("j2", { memoryType: "sometimes" })),
      "[1, 2]",
    ];
    writeFiles(dir, { "mixed.jsonl": `${lines.join("\n")}\n` });
    const store = await memoryStore();
    const report = await importPath(store, join(dir, "mixed.jsonl"));
    const file = join(dir, "mixed.jsonl");
    expect(report.imported).toBe(2);
    expect(report.rejected.map((r) => [r.file, r.line, r.pointer])).toEqual([
      [file, 4, ""],
      [file, 6, "/created"],
      [file, 7, "/memoryType"],
      [file, 8, ""],
    ]);
    expect(report.rejected[0]?.message).toMatch(/malformed JSON on line 4/);
    expect(formatRejection(report.rejected[2] as ImportRejection)).toBe(
      `${file}:7: /memoryType must be one of "semantic", "episodic", "procedural" (id j2)`,
    );
    // A record line is a complete memory: it comes back exactly as written.
    expect(await store.get("rec-1")).toEqual(record);
    expect((await store.get("j1"))?.content).toContain("PostgreSQL");
  });

  it("numbers lines across read chunks, with CRLF endings and no final newline", async () => {
    const dir = tempDir();
    // ~2.5 MiB: the bad lines sit in different read chunks of the streaming reader.
    const padding = "ü".repeat(400); // multi-byte characters straddle chunk boundaries
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify(mifDoc(`c${i}`, { content: `Memory ${i} ${padding}` })),
    );
    lines[1500] = "{broken";
    lines[2999] = "{also broken";
    writeFiles(dir, { "big.jsonl": lines.join("\r\n") });
    const store = await memoryStore();
    const report = await importPath(store, dir);
    expect(report.imported).toBe(2998);
    expect(report.rejected.map((r) => r.line)).toEqual([1501, 3000]);
    expect((await store.get("c2998"))?.content).toBe(`Memory 2998 ${padding}`);
  });

  it("accepts a medium record's flattened confidence and fills defaults for a sparse record", async () => {
    const dir = tempDir();
    writeFiles(dir, {
      "m.jsonl": `${JSON.stringify({ id: "med", memory_type: "semantic", content: "# Use SQLite\n\nBody.", created: "2025-01-01T00:00:00Z", confidence: 0.7 })}\n`,
    });
    const store = await memoryStore();
    await importPath(store, dir);
    expect(await store.get("med")).toMatchObject({
      title: "Use SQLite",
      namespace: "_semantic/general",
      modified: "2025-01-01T00:00:00Z",
      provenance: { confidence: 0.7 },
    });
  });
});

describe("malformed files", () => {
  it("reports malformed JSON with file and line, and imports nothing from that file", async () => {
    const dir = tempDir();
    const text = JSON.stringify([mifDoc("ok1"), mifDoc("ok2")], null, 2).replace(
      '"urn:mif:ok2",',
      '"urn:mif:ok2",,',
    );
    writeFiles(dir, { "broken.json": text, "fine.json": mifDoc("fine") });
    const store = await memoryStore();
    const report = await importPath(store, dir);
    expect(report.imported).toBe(1);
    expect(report.rejected).toHaveLength(1);
    const [rejection] = report.rejected;
    expect(rejection?.file).toBe(join(dir, "broken.json"));
    const badLine = text.split("\n").findIndex((l) => l.includes('"urn:mif:ok2",,')) + 1;
    expect(rejection?.line).toBeGreaterThanOrEqual(badLine);
    expect(rejection?.line).toBeLessThanOrEqual(badLine + 1);
    expect(rejection?.message).toMatch(/malformed JSON at line \d+ column \d+/);
    expect(await store.get("ok1")).toBeUndefined();
  });

  it("reports malformed YAML front matter with the file's line", async () => {
    const dir = tempDir();
    writeFiles(dir, {
      "bad.memory.md":
        "---\nid: y1\ntype: semantic\ntags: [a, b\ncreated: 2026-01-15T10:30:00Z\n---\nBody\n",
      "dup.memory.md": "---\nid: y2\ntype: semantic\nid: y3\n---\nBody\n",
      "open.memory.md": "---\nid: y4\ntype: semantic\n",
    });
    const store = await memoryStore();
    const report = await importPath(store, dir);
    expect(report.imported).toBe(0);
    const byFile = Object.fromEntries(
      report.rejected.map((r) => [r.file.slice(dir.length + 1), r]),
    );
    expect(byFile["bad.memory.md"]?.message).toMatch(/invalid YAML front matter/);
    expect(byFile["bad.memory.md"]?.line).toBeGreaterThanOrEqual(4);
    expect(byFile["dup.memory.md"]).toMatchObject({ line: 4 });
    expect(byFile["dup.memory.md"]?.message).toMatch(/unique/);
    expect(byFile["open.memory.md"]?.message).toMatch(/not closed/);
  });

  it("reads Markdown with a byte-order mark and CRLF line endings", async () => {
    const dir = tempDir();
    const text =
      "\uFEFF---\r\nid: crlf\r\ntype: semantic\r\ncreated: 2026-01-15T10:30:00Z\r\n---\r\n\r\n# Windows note\r\nBody.\r\n";
    writeFiles(dir, { "w.memory.md": text });
    const store = await memoryStore();
    expect((await importPath(store, dir)).rejected).toEqual([]);
    expect(await store.get("crlf")).toMatchObject({
      title: "Windows note",
      content: "# Windows note\r\nBody.",
    });
  });

  it("fails with PATH_NOT_FOUND for a path that does not exist", async () => {
    const store = await memoryStore();
    await expect(importPath(store, join(tempDir(), "nope"))).rejects.toMatchObject({
      code: "PATH_NOT_FOUND",
    });
    await expect(importPath(store, join(tempDir(), "nope"))).rejects.toBeInstanceOf(MifError);
  });
});

describe("directories and re-imports", () => {
  it("walks a directory recursively, skipping hidden folders and plain Markdown notes", async () => {
    const dir = tempDir();
    writeFiles(dir, {
      "a.json": mifDoc("d1"),
      "nested/deeper/b.memory.md":
        "---\nid: d2\ntype: procedural\ncreated: 2026-01-15T10:30:00Z\n---\n# Rotate keys\n",
      "nested/c.jsonl": `${JSON.stringify(mifDoc("d3"))}\n${JSON.stringify(mifDoc("d4"))}\n`,
      "nested/note.md": "# Just a note\n\nNo front matter here.\n",
      "nested/with-front.md":
        "---\nid: d5\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n---\nA note that is a memory.\n",
      ".obsidian/config.json": mifDoc("hidden"),
      "readme.txt": "ignored",
    });
    const store = await memoryStore();
    const report = await importPath(store, dir);
    expect(report).toEqual({ files: 4, imported: 5, updated: 0, rejected: [], rejectedCount: 0 });
    expect((await allMemories(store)).map((m) => m.id).sort()).toEqual([
      "d1",
      "d2",
      "d3",
      "d4",
      "d5",
    ]);
    expect((await store.get("d2"))?.title).toBe("Rotate keys");
  });

  it("re-importing the same ids updates instead of duplicating", async () => {
    const dir = tempDir();
    writeFiles(dir, { "x.json": [mifDoc("r1"), mifDoc("r2")] });
    const store = await memoryStore();
    expect(await importPath(store, dir)).toMatchObject({ imported: 2, updated: 0 });
    writeFiles(dir, {
      "x.json": [
        mifDoc("r1", { title: "Changed" }),
        mifDoc("r2"),
        mifDoc("r1", { title: "Changed twice" }),
      ],
    });
    expect(await importPath(store, dir)).toMatchObject({ imported: 0, updated: 3 });
    expect(await store.count({ status: "any" })).toBe(2);
    expect((await store.get("r1"))?.title).toBe("Changed twice");
  });

  it("commits in batches and acknowledges each batch only once it is stored", async () => {
    const dir = tempDir();
    const docs = Array.from({ length: 23 }, (_, i) => JSON.stringify(mifDoc(`b${i}`)));
    writeFiles(dir, { "many.jsonl": `${docs.join("\n")}\n` });
    const store = await memoryStore();
    const acknowledged: string[][] = [];
    const stored: boolean[] = [];
    const progress: number[] = [];
    const report = await importPath(store, dir, {
      batchSize: 10,
      onCommitted: (ids) => {
        acknowledged.push([...ids]);
        stored.push(ids.length > 0);
      },
      onProgress: (p) => progress.push(p.committed),
    });
    expect(report.imported).toBe(23);
    expect(acknowledged.map((ids) => ids.length)).toEqual([10, 10, 3]);
    expect(acknowledged.flat()).toEqual(Array.from({ length: 23 }, (_, i) => `b${i}`));
    for (const ids of acknowledged) {
      for (const id of ids) expect(await store.get(id)).toBeDefined();
    }
    expect(progress).toContain(10);
    expect(progress[progress.length - 1]).toBe(23);
  });

  it("rejects a non-positive batch size", async () => {
    const store = await memoryStore();
    await expect(importPath(store, tempDir(), { batchSize: 0 })).rejects.toMatchObject({
      code: "BAD_OPTIONS",
    });
  });
});
