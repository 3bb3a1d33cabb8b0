/**
 * The generic (multi-section) profile: arbitrary items, the Python library's
 * descriptor shape, inferred line schemas, `{key_file}` placeholders replaced by
 * the real quoted path, recipes that run in bash + jq.
 */

import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inferLineSchema, OFFLOAD_FILE_PATTERN } from "../src/index.js";
import { nodeOffloadFs, Offloader, type OffloadFs } from "../src/node.js";
import { shellWord } from "../src/recipes/shell-quote.js";
import { parseJsonStream, recipeBash, recordingEvents, tempDir } from "./fixtures/helpers.js";

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function setup(opts: { threshold?: number; enabled?: boolean; fs?: OffloadFs; sub?: string } = {}) {
  const t = tempDir("lro-generic-");
  cleanup = t.cleanup;
  const outputDir = join(t.dir, opts.sub ?? "out");
  const { events, seen } = recordingEvents();
  const o = new Offloader({
    config: {
      enabled: opts.enabled ?? true,
      thresholdTokens: opts.threshold ?? 1600,
      ttlSeconds: 3600,
      outputDir,
    },
    events,
    ...(opts.fs ? { fs: opts.fs } : {}),
  });
  return { o, outputDir, seen };
}

const items = Array.from({ length: 300 }, (_, i) => ({
  id: `item-${i}`,
  title: `Result number ${i} with "quotes" and 'apostrophes'`,
  score: i % 2 ? i / 300 : i,
  tags: i % 3 ? ["a", "b"] : [],
  meta: i % 4 ? { source: "web", rank: i } : null,
}));

describe("offloadSections", () => {
  it("writes one file per section with a header, and the Python library's descriptor shape", async () => {
    const { o, outputDir, seen } = setup({ sub: `it's a "dir" with $PATH` });
    const r = await o.offloadSections({
      operation: "extract",
      query: ".[] | select(.x)",
      sections: [{ key: "results", items }],
      inline: { query: "caching", total_count: 300 },
    });
    if (r.kind !== "offloaded") throw new Error(`expected offload, got ${r.kind}`);
    const resp = r.response;
    expect(Object.keys(resp)).toEqual([
      "offloaded",
      "query",
      "total_count",
      "summary",
      "files",
      "schemas",
      "jq_recipes",
      "guidance",
    ]);
    const path = resp.files.results as string;
    expect(basename(path)).toMatch(OFFLOAD_FILE_PATTERN);
    expect(basename(path).startsWith("atlatl-extract-")).toBe(true);
    expect(readdirSync(outputDir)).toEqual([basename(path)]);
    expect(resp.summary).toEqual({ results: { count: 300 } });
    expect(resp.schemas.results?.description).toBe("Line 1 is a header; then one value per line.");
    // The path once, as F: the recipes read "$F".
    expect(resp.guidance).toBe(
      [
        `F=${shellWord(path)}`,
        "JSONL in files (results), line 1 of each a header. Run a jq recipe above, or your own jq.",
      ].join("\n"),
    );

    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      type: "lro_header",
      operation: "extract",
      query: ".[] | select(.x)",
      count: 300,
      section: "results",
    });
    expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(items);
    expect(r.files[0]?.bytes).toBe(Buffer.byteLength(`${lines.join("\n")}\n`));
    expect(seen.map((e) => e.type)).toEqual(["OffloadCreated"]);

    // Every recipe runs as given, with the awkward path quoted correctly.
    expect(Object.keys(resp.jq_recipes)).toEqual(["count_results", "first_10_results"]);
    const count = recipeBash(resp, resp.jq_recipes.count_results as string);
    expect(count.code).toBe(0);
    expect(Number(count.stdout)).toBe(300);
    const first = recipeBash(resp, resp.jq_recipes.first_10_results as string);
    expect(parseJsonStream(first.stdout)).toEqual(items.slice(0, 10));
  });

  it("infers a compact JSON Schema of the observed fields and types", () => {
    expect(inferLineSchema(items)).toEqual({
      type: "object",
      properties: {
        id: { type: "string" },
        title: { type: "string" },
        score: { type: "number" },
        tags: { type: "array", items: { type: "string" } },
        meta: {
          type: ["null", "object"],
          properties: { source: { type: "string" }, rank: { type: "integer" } },
        },
      },
    });
    expect(inferLineSchema(["a", 1, null])).toEqual({ type: ["string", "integer", "null"] });
    expect(inferLineSchema([])).toEqual({});
  });

  it("replaces custom recipes' {key_file} placeholders (quoted or not) and handles two sections", async () => {
    const { o } = setup({ threshold: 10 });
    const r = await o.offloadSections({
      operation: "proxy_search",
      sections: [
        {
          key: "results",
          items: items.slice(0, 50),
          recipes: {
            ids: "tail -n +2 '{results_file}' | jq -r .id",
            both: "wc -l {results_file} {meta_file}",
          },
        },
        { key: "meta", items: [{ took_ms: 12 }], summary: { count: 1, took_ms: 12 } },
      ],
    });
    if (r.kind !== "offloaded") throw new Error("expected offload");
    const { files, jq_recipes: recipes, summary } = r.response;
    expect(Object.keys(files)).toEqual(["results", "meta"]);
    expect(files.results).not.toBe(files.meta);
    expect(summary.meta).toEqual({ count: 1, took_ms: 12 });
    expect(recipes.ids).toBe(`tail -n +2 "$F" | jq -r .id`);
    expect(
      recipeBash(r.response, recipes.ids as string)
        .stdout.trim()
        .split("\n"),
    ).toEqual(items.slice(0, 50).map((x) => x.id));
    const wc = recipeBash(r.response, recipes.both as string);
    expect(wc.code).toBe(0);
    expect(wc.stdout).toMatch(/51 .*\n\s*2 .*\n/);
    expect(Object.keys(recipes)).toEqual(["ids", "both", "count_meta", "first_10_meta"]);
  });

  it("stays inline below the threshold unless forced; force offloads even when disabled", async () => {
    const { o } = setup({ enabled: false });
    const small = await o.offloadSections({
      operation: "extract",
      sections: [{ key: "results", items: [1, 2] }],
    });
    expect(small).toEqual({ kind: "inline", estimatedTokens: 1, lines: [["1", "2"]] });
    const forced = await o.offloadSections({
      operation: "extract",
      sections: [{ key: "results", items: [1, 2] }],
      force: true,
    });
    expect(forced.kind).toBe("offloaded");
  });

  it("is all or nothing: a failure on the second file removes the first and falls back", async () => {
    let opens = 0;
    // Small sections are written through the synchronous path.
    const fs: OffloadFs = {
      ...nodeOffloadFs,
      writeNewFileSync(path, data, mode) {
        opens++;
        if (opens === 2)
          throw Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" });
        return nodeOffloadFs.writeNewFileSync(path, data, mode);
      },
    };
    const { o, outputDir, seen } = setup({ threshold: 200, fs });
    const r = await o.offloadSections({
      operation: "extract",
      sections: [
        { key: "a", items },
        { key: "b", items },
      ],
    });
    expect(r.kind).toBe("truncated");
    if (r.kind !== "truncated") return;
    expect(r.warning).toContain("EMFILE");
    expect(r.sections.map((s) => s.key)).toEqual(["a", "b"]);
    expect(r.sections[0]?.total).toBe(300);
    const kept = r.sections.flatMap((s) => s.items);
    expect(kept.length).toBeGreaterThan(0);
    expect(Math.ceil(JSON.stringify(kept).length / 4)).toBeLessThanOrEqual(200);
    expect(r.warning).toContain(`${kept.length} of 600`);
    expect(readdirSync(outputDir)).toEqual([]);
    expect(seen.map((e) => e.type)).toEqual(["OffloadWriteFailed"]);
  });
});
