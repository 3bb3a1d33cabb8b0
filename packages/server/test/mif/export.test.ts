import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { exportMemories } from "../../src/mif/export.js";
import { importPath } from "../../src/mif/import.js";
import { validateMifDocument } from "../../src/mif/validate.js";
import { generateCorpus } from "../../src/seed/generate.js";
import { allMemories, exportToString, memoryStore, tempDir, writeFiles } from "./helpers.js";

async function seeded(count: number) {
  const store = await memoryStore();
  await store.upsertMany([...generateCorpus({ count, seed: 7 })]);
  return store;
}

describe("exportMemories", () => {
  it("writes JSONL: one valid MIF JSON-LD document per line, every status included", async () => {
    const store = await seeded(300);
    const text = await exportToString(store, { format: "jsonl" });
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(300);
    const docs = lines.map((l) => JSON.parse(l));
    for (const doc of docs) {
      expect(doc["@context"]).toBe("https://mif-spec.dev/schema/context.jsonld");
      expect(doc["@type"]).toBe("Memory");
      expect(doc["@id"]).toMatch(/^urn:mif:[0-9a-f-]{36}$/);
      expect(validateMifDocument(doc)).toEqual({ ok: true });
    }
    const statuses = new Set(docs.map((d) => d.extensions["atlatl:status"]));
    expect(statuses).toContain("archived");
  });

  it("round-trips a seeded corpus (statuses, entities, relationships) deep-equal", async () => {
    const store = await seeded(300);
    const dir = tempDir();
    writeFiles(dir, { "all.json": await exportToString(store, { format: "mif-json" }) });
    const again = await memoryStore();
    const report = await importPath(again, dir);
    expect(report).toMatchObject({ imported: 300, rejected: [] });
    expect(await allMemories(again)).toEqual(await allMemories(store));
  });

  it("applies a filter", async () => {
    const store = await seeded(200);
    const text = await exportToString(store, {
      format: "jsonl",
      filter: { namespace: "_procedural", status: "active" },
    });
    const docs = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(docs.length).toBe(await store.count({ namespace: "_procedural", status: "active" }));
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) {
      expect(doc.namespace.startsWith("_procedural")).toBe(true);
      expect(doc.extensions["atlatl:status"]).toBe("active");
    }
  });

  it("writes an empty array for an empty store", async () => {
    const store = await memoryStore();
    expect(JSON.parse(await exportToString(store, { format: "mif-json" }))).toEqual([]);
  });

  it("respects back-pressure of a slow stream and delivers every byte", async () => {
    const store = await seeded(400);
    const chunks: string[] = [];
    let waits = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        waits++;
        setTimeout(done, 1);
      },
    });
    const report = await exportMemories(store, { format: "mif-json" }, slow);
    expect(report.count).toBe(400);
    expect(waits).toBeGreaterThan(1);
    expect(JSON.parse(chunks.join(""))).toHaveLength(400);
  });
});
