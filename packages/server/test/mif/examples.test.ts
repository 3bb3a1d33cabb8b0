import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importPath } from "../../src/mif/import.js";
import { validateMifDocument } from "../../src/mif/validate.js";
import {
  allMemories,
  EXAMPLES_DIR,
  exportToString,
  memoryStore,
  tempDir,
  writeFiles,
} from "./helpers.js";

const exampleFiles = readdirSync(EXAMPLES_DIR).filter(
  (f) => f.endsWith(".json") || f.endsWith(".md"),
);

describe("the official MIF examples", () => {
  it("are all there (4 JSON-LD, 4 Markdown)", () => {
    expect(exampleFiles.filter((f) => f.endsWith(".json"))).toHaveLength(4);
    expect(exampleFiles.filter((f) => f.endsWith(".memory.md"))).toHaveLength(4);
  });

  it.each(exampleFiles)(
    "%s imports, and export → re-import gives the same memory",
    async (file) => {
      const store = await memoryStore();
      const report = await importPath(store, join(EXAMPLES_DIR, file));
      expect(report).toEqual({ files: 1, imported: 1, updated: 0, rejected: [], rejectedCount: 0 });
      const imported = await allMemories(store);

      for (const format of ["mif-json", "jsonl"] as const) {
        const dir = tempDir();
        const exported = await exportToString(store, { format });
        writeFiles(dir, { [format === "jsonl" ? "out.jsonl" : "out.json"]: exported });
        const again = await memoryStore();
        const second = await importPath(again, dir);
        expect(second.rejected).toEqual([]);
        expect(await allMemories(again)).toEqual(imported);
      }
    },
  );

  it("level-3-full.memory.json round-trips losslessly, unknown properties included", async () => {
    const original = JSON.parse(
      readFileSync(join(EXAMPLES_DIR, "level-3-full.memory.json"), "utf8"),
    );
    // The official example breaks its own schema's additionalProperties...
    expect(original.temporal.reinforcementHistory).toHaveLength(4);
    const store = await memoryStore();
    const report = await importPath(store, join(EXAMPLES_DIR, "level-3-full.memory.json"));
    expect(report.rejected).toEqual([]);

    const [memory] = await allMemories(store);
    expect(memory?.id).toBe("7f3a8b2c-1d4e-5f6a-9b0c-2d3e4f5a6b7c");
    expect(memory?.provenance).toMatchObject({
      confidence: 0.98,
      trust_level: "user_stated",
      source_type: "user_explicit",
      agent: "claude-3-opus",
    });
    expect(memory?.temporal?.extra?.reinforcementHistory).toEqual(
      original.temporal.reinforcementHistory,
    );
    expect(memory?.temporal?.decay?.extra).toEqual({ lastReinforced: "2026-01-20T14:22:00Z" });

    const [exported] = JSON.parse(await exportToString(store, { format: "mif-json" }));
    // ...and the export is exactly the original document, plus our status extension.
    expect(exported.extensions["atlatl:status"]).toBe("active");
    delete exported.extensions["atlatl:status"];
    expect(exported).toEqual(original);
  });

  it("exports of every example are valid MIF (additionalProperties aside)", async () => {
    const store = await memoryStore();
    const dir = tempDir();
    for (const f of exampleFiles.filter((x) => x.endsWith(".json"))) {
      copyFileSync(join(EXAMPLES_DIR, f), join(dir, f));
    }
    await importPath(store, dir);
    const docs = JSON.parse(await exportToString(store, { format: "mif-json" })) as unknown[];
    expect(docs).toHaveLength(4);
    for (const doc of docs) expect(validateMifDocument(doc)).toEqual({ ok: true });
  });

  it("Markdown: front matter maps to fields, the body is the content", async () => {
    const store = await memoryStore();
    await importPath(store, join(EXAMPLES_DIR, "level-2-standard.memory.md"));
    const [memory] = await allMemories(store);
    expect(memory).toMatchObject({
      id: "decision-react-frontend",
      memory_type: "semantic",
      title: "Use React for Dashboard Frontend",
      namespace: "_semantic/decisions",
      tags: ["frontend", "architecture", "technology-choice"],
      aliases: ["React Decision", "Frontend Framework Choice"],
      created: "2026-01-10T09:00:00Z",
      modified: "2026-01-12T14:30:00Z",
      status: "active",
    });
    const body = readFileSync(join(EXAMPLES_DIR, "level-2-standard.memory.md"), "utf8")
      .split(/^---$/m)
      .slice(2)
      .join("---")
      .trim();
    expect(memory?.content).toBe(body);
    // Relationships and entities are read from the body's sections, as MIF Markdown encodes them.
    expect(memory?.relationships).toEqual([
      { relationship_type: "Supersedes", target: "vue-exploration-2025", strength: null },
      { relationship_type: "RelatesTo", target: "frontend-architecture-standards", strength: null },
      { relationship_type: "PartOf", target: "project-x-technical-decisions", strength: null },
    ]);
    expect(memory?.entities.map((e) => [e.name, e.entity_type])).toEqual([
      ["React", "Technology"],
      ["TypeScript", "Technology"],
      ["Vue.js", "Technology"],
      ["Project X Dashboard", "Concept"],
    ]);
  });

  it("Markdown: snake_case temporal, provenance, embedding, citations and extensions are kept", async () => {
    const store = await memoryStore();
    await importPath(store, EXAMPLES_DIR);
    const full = await store.get("7f3a8b2c-1d4e-5f6a-9b0c-2d3e4f5a6b7c");
    // The directory holds both forms of each example; the Markdown one (read last) wins.
    expect(full?.temporal).toMatchObject({
      valid_from: "2026-01-15T00:00:00Z",
      valid_until: null,
      ttl: "P365D",
      access_count: 8,
      decay: { model: "exponential", half_life: "P30D", current_strength: 0.92 },
    });
    expect(full?.temporal?.decay?.extra).toEqual({ last_reinforced: "2026-01-20T14:22:00Z" });
    expect(full?.provenance).toEqual({
      confidence: 0.98,
      trust_level: "user_stated",
      source_type: "user_explicit",
      agent: "claude-3-opus",
      extra: { source_ref: "conversation:conv-2026-01-15-001", agent_version: "20240229" },
    });
    expect(full?.embedding?.model_version).toBe("2024-01");
    expect(full?.blocks).toEqual({
      "main-preference": "User strongly prefers dark mode for all applications.",
      details: "This preference applies to:",
    });
    expect(full?.extensions).toEqual({
      subcog: { domain: "user", hash: "sha256:4c04b32ddc2053b5a8f9e2d1c0b7a6e5d4c3b2a1" },
    });

    const cited = await store.get("a1b2c3d4-5e6f-7a8b-9c0d-1e2f3a4b5c6d");
    expect(cited?.citations).toHaveLength(5);
    expect(cited?.citations[0]).toMatchObject({
      citation_type: "specification",
      citation_role: "source",
      title: "Memory Interchange Format (MIF) Specification",
      author: "@[[Robert Allen|Person]]",
      date: "2026-01-23",
    });
    expect(await store.count({ status: "any" })).toBe(4);
  });
});
