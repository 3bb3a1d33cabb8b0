/**
 * The memory descriptor's parts: projection per detail level, summary, recipe
 * parameters drawn from the data (or the defaults), the shell and the native
 * guidance templates.
 */
import { describe, expect, it } from "vitest";
import {
  buildMemoryDescriptor,
  DEFAULT_RECIPE_PARAMS,
  memoryRecipes,
  projectRecord,
  recordStats,
  renderRecipeCommand,
  scoreRange,
} from "../src/index.js";
import { Offloader } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";
import { makeMemories } from "./fixtures/memory-records.js";

const full = makeMemories(1)[0] as NonNullable<ReturnType<typeof makeMemories>[0]>;

describe("projectRecord", () => {
  it("light keeps identity and classification only, in line order", () => {
    const light = projectRecord(full, "light");
    expect(Object.keys(light)).toEqual([
      "id",
      "title",
      "namespace",
      "memory_type",
      "tags",
      "created",
      "modified",
      "status",
    ]);
  });

  it("medium adds content, summary and the flattened confidence, no provenance", () => {
    const medium = projectRecord(
      { ...full, provenance: { ...full.provenance, confidence: 0.42 } },
      "medium",
    );
    expect(medium).toMatchObject({
      content: full.content,
      summary: full.summary,
      confidence: 0.42,
    });
    expect(medium).not.toHaveProperty("provenance");
    // Idempotent: a medium record projects to itself.
    expect(projectRecord(medium, "medium")).toEqual(medium);
    expect(
      projectRecord({ ...full, provenance: { confidence: null } }, "medium").confidence,
    ).toBeNull();
  });

  it("full is the record unchanged", () => {
    expect(projectRecord(full, "full")).toBe(full);
  });
});

describe("summary and parameters", () => {
  it("ranks namespaces by frequency (ties by name) and takes the top 5", () => {
    const recs = [..."aabbbcdddefg"].map((c) => ({
      namespace: `ns-${c}`,
      memory_type: "semantic",
      tags: [],
    }));
    const d = buildMemoryDescriptor({
      filePath: "/tmp/x.jsonl",
      operation: "list",
      detail: "light",
      count: recs.length,
      estimatedTokens: 9999,
      stats: recordStats(recs),
    });
    expect(d.summary.top_namespaces).toEqual(["ns-b", "ns-d", "ns-a", "ns-c", "ns-e"]);
    expect(d.summary.score_range).toBeNull();
  });

  it("score_range spans the finite scores", () => {
    expect(scoreRange([0.5, 0.1, Number.NaN, 0.9])).toEqual([0.1, 0.9]);
    expect(scoreRange([])).toBeNull();
    expect(scoreRange(undefined)).toBeNull();
  });

  it("score_range keeps three significant digits (the rest is noise at ~10 o200k tokens)", () => {
    expect(scoreRange([0.28644311129158445, 0.6208559233579466, 0.5])).toEqual([0.286, 0.621]);
    expect(scoreRange([0.0012345, 12.3456])).toEqual([0.00123, 12.3]);
  });

  it("falls back to the default parameters when the data has none", () => {
    const d = buildMemoryDescriptor({
      filePath: "/tmp/x.jsonl",
      operation: "recall",
      detail: "light",
      count: 1,
      estimatedTokens: 2000,
      stats: recordStats([{ id: "x" }]),
    });
    const specs = memoryRecipes("light");
    expect(d.jq_recipes.map((r) => r.command)).toEqual(
      specs.map((s) => renderRecipeCommand(s, "/tmp/x.jsonl", DEFAULT_RECIPE_PARAMS)),
    );
    expect(d.jq_recipes[1]?.command).toContain('startswith("_semantic")');
  });

  it("quotes a path with shell-special characters, leaves a plain one bare", () => {
    const stats = recordStats([]);
    const plain = buildMemoryDescriptor({
      filePath: "/tmp/atlatl-recall-01K81SVW81013R3AKBRKR4NRAV.jsonl",
      operation: "recall",
      detail: "light",
      count: 0,
      estimatedTokens: 0,
      stats,
    });
    expect(plain.jq_recipes[0]?.command).toBe(
      "tail -n +2 /tmp/atlatl-recall-01K81SVW81013R3AKBRKR4NRAV.jsonl | jq -r '[.title,.namespace]|@tsv'",
    );
    const odd = buildMemoryDescriptor({
      filePath: "/tmp/it's $x/a.jsonl",
      operation: "recall",
      detail: "light",
      count: 0,
      estimatedTokens: 0,
      stats,
    });
    expect(
      odd.jq_recipes[0]?.command.startsWith("tail -n +2 '/tmp/it'\\''s $x/a.jsonl' | jq"),
    ).toBe(true);
  });
});

describe("guidance", () => {
  it("follows the specification's shell template", () => {
    const d = buildMemoryDescriptor({
      filePath: "/tmp/f.jsonl",
      operation: "recall",
      detail: "medium",
      count: 500,
      estimatedTokens: 77500,
      stats: recordStats([]),
    });
    expect(d.guidance).toBe(
      // The template's content; the path is file_path's (and every recipe's), not repeated.
      [
        "Results offloaded to JSONL. Detail level: medium. Line 1 is a header.",
        "Use the jq recipes above on file_path: browse #1, filter #2 or #3, count #6.",
      ].join("\n"),
    );
  });

  it("uses the native template with lro_extract when native extraction is on; recipes stay", async () => {
    const t = tempDir();
    try {
      const { events } = recordingEvents();
      const o = new Offloader({
        config: { enabled: true, thresholdTokens: 100, ttlSeconds: 60, outputDir: t.dir },
        events,
      });
      o.nativeExtraction = "lro_extract";
      const records = makeMemories(30);
      for (const detail of ["light", "medium", "full"] as const) {
        const r = await o.offloadRecords({ operation: "recall", detail, records });
        if (r.kind !== "offloaded") throw new Error("expected offload");
        // The template's examples by recipe number, on this file_path (named once, in its field).
        expect(r.response.guidance).toBe(
          [
            `Results offloaded to JSONL. Detail level: ${detail}. Line 1 is a header.`,
            "Use the jq recipes above, or `lro_extract` with file_path and recipe=N or query.",
          ].join("\n"),
        );
        expect(r.response.jq_recipes).toHaveLength(10);
      }
    } finally {
      t.cleanup();
    }
  });
});
