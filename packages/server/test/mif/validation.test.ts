import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importPath } from "../../src/mif/import.js";
import { allMemories, memoryStore, mifDoc, tempDir, writeFiles } from "./helpers.js";

async function importDocs(files: Record<string, string | object>) {
  const dir = tempDir();
  writeFiles(dir, files);
  const store = await memoryStore();
  const report = await importPath(store, dir);
  return { dir, store, report };
}

describe("validation policy", () => {
  it.each([
    ["a missing memoryType", { memoryType: undefined }, "/memoryType", "is required"],
    ["an unknown memoryType", { memoryType: "factual" }, "/memoryType", "must be one of"],
    ["a missing content", { content: undefined }, "/content", "is required"],
    ["a non-string content", { content: 42 }, "/content", "must be string"],
    ["an empty content", { content: "" }, "/content", "fewer than 1"],
    ["a created that is no date-time", { created: "yesterday" }, "/created", "date-time"],
    ["a created without time zone", { created: "2026-01-15T10:30:00" }, "/created", "date-time"],
    ["a bad namespace", { namespace: "has spaces/x" }, "/namespace", "must match pattern"],
    ["an @id without urn:mif:", { "@id": "plain-id" }, "/@id", "must match pattern"],
    ["a confidence above 1", { provenance: { confidence: 1.5 } }, "/provenance/confidence", "<= 1"],
    [
      "an unknown status",
      { extensions: { "atlatl:status": "deleted" } },
      "/extensions/atlatl:status",
      "must be one of",
    ],
  ])(
    "rejects a document with %s, naming file and pointer",
    async (_what, change, pointer, message) => {
      const bad = mifDoc("bad", change);
      for (const key of Object.keys(change)) {
        if ((change as Record<string, unknown>)[key] === undefined) delete bad[key];
      }
      const { dir, store, report } = await importDocs({
        "good.json": mifDoc("good"),
        "bad.json": bad,
      });
      expect(report.imported).toBe(1);
      expect(report.rejected).toHaveLength(1);
      expect(report.rejected[0]).toMatchObject({ file: join(dir, "bad.json"), pointer });
      expect(report.rejected[0]?.message).toContain(message);
      expect(await store.get("bad")).toBeUndefined();
      expect(await store.get("good")).toBeDefined();
    },
  );

  it("points into arrays and wrapped documents by index", async () => {
    const { report, store } = await importDocs({
      "array.json": [mifDoc("a1"), mifDoc("a2", { memoryType: "nope" }), mifDoc("a3")],
      "wrapped.json": { memories: [mifDoc("w1", { created: "soon" }), mifDoc("w2")] },
    });
    expect(report.imported).toBe(3);
    expect(report.rejected.map((r) => [r.pointer, r.id])).toEqual([
      ["/1/memoryType", "a2"],
      ["/memories/0/created", "w1"],
    ]);
    expect((await allMemories(store)).map((m) => m.id).sort()).toEqual(["a1", "a3", "w2"]);
  });

  it("accepts and keeps properties the schema does not allow (additionalProperties only)", async () => {
    const doc = mifDoc("extra", {
      ontology: { id: "farm", version: "1.0.0" },
      compressedAt: "2026-01-16T00:00:00Z",
      "x-custom": [1, 2, 3],
      temporal: { validFrom: null, reinforcementHistory: [{ event: "seen" }] },
      embedding: { model: "m", quantization: "int8" },
      relationships: [
        {
          "@type": "Relationship",
          relationshipType: "RelatesTo",
          target: { "@id": "urn:mif:other", label: "x" },
          metadata: { why: "test" },
        },
      ],
      entities: [
        {
          "@type": "EntityReference",
          entity: { "@id": "urn:mif:entity:technology:sqlite", homepage: "https://sqlite.org" },
          entityType: "Technology",
          salience: 0.7,
        },
      ],
    });
    const { report, store } = await importDocs({ "extra.json": doc });
    expect(report.rejected).toEqual([]);
    const memory = await store.get("extra");
    expect(memory?.extensions["atlatl:mif"]).toEqual({
      ontology: { id: "farm", version: "1.0.0" },
      compressedAt: "2026-01-16T00:00:00Z",
      "x-custom": [1, 2, 3],
    });
    expect(memory?.temporal?.extra).toEqual({ reinforcementHistory: [{ event: "seen" }] });
    expect(memory?.embedding?.extra).toEqual({ quantization: "int8" });
    expect(memory?.relationships[0]?.extra).toEqual({
      metadata: { why: "test" },
      target: { label: "x" },
    });
    expect(memory?.entities[0]).toEqual({
      id: "technology:sqlite",
      name: null,
      entity_type: "Technology",
      role: null,
      extra: { salience: 0.7, entity: { homepage: "https://sqlite.org" } },
    });
  });

  it("fills defaults for missing optional fields", async () => {
    const { store } = await importDocs({
      "min.json": mifDoc("min", {
        memoryType: "procedural",
        content: "\n## Deploy **the** API\n\nRun the script.",
      }),
    });
    expect(await store.get("min")).toMatchObject({
      title: "Deploy the API",
      namespace: "_procedural/general",
      status: "active",
      modified: "2026-01-15T10:30:00Z",
      tags: [],
      temporal: null,
      provenance: { confidence: null, trust_level: null, source_type: null, agent: null },
    });
  });

  it("Markdown rejections point at the front-matter keys that were written", async () => {
    const { report, dir } = await importDocs({
      "no-type.memory.md": "---\nid: m1\ncreated: 2026-01-15T10:30:00Z\n---\n\nBody.\n",
      "bad-trust.memory.md":
        "---\nid: m2\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\nprovenance:\n  trust_level: absolute\n---\nBody.\n",
      "empty-body.memory.md": "---\nid: m3\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n---\n\n",
      "status.memory.md":
        "---\nid: m4\ntype: episodic\ncreated: 2026-01-15T10:30:00Z\nstatus: archived\n---\nOld.\n",
    });
    const byFile = Object.fromEntries(
      report.rejected.map((r) => [r.file.slice(dir.length + 1), r.pointer]),
    );
    expect(byFile).toEqual({
      "no-type.memory.md": "/type",
      "bad-trust.memory.md": "/provenance/trust_level",
      "empty-body.memory.md": "/content",
    });
    expect(report.imported).toBe(1);
  });

  it("keeps a Markdown status and rejects nothing for an Obsidian-style status it does not know", async () => {
    const { store, report } = await importDocs({
      "a.memory.md":
        "---\nid: s1\ntype: episodic\ncreated: 2026-01-15T10:30:00Z\nstatus: archived\n---\nOld.\n",
      "b.memory.md":
        "---\nid: s2\ntype: episodic\ncreated: 2026-01-15T10:30:00Z\nstatus: draft\n---\nNew.\n",
    });
    expect(report.rejected).toEqual([]);
    expect((await store.get("s1"))?.status).toBe("archived");
    const s2 = await store.get("s2");
    expect(s2?.status).toBe("active");
    expect(s2?.extensions["atlatl:mif"]).toEqual({ status: "draft" });
  });
});
