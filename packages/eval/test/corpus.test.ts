import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { estimateTokens } from "@atlatl/lro";
import { describe, expect, it } from "vitest";
import {
  buildCorpusFiles,
  DEFAULT_SCALES,
  FROZEN_DATA_DIR,
  loadCorpus,
  MANIFEST_FILE,
  sha256,
} from "../src/corpus/freeze.js";
import { FILTER_TRUTH_MAX, FILTER_TRUTH_MIN, matchesFilter } from "../src/corpus/tasks.js";

/** SHA-256 of the manifest (which holds every file's hash) of seed 42 at 50/200/500. */
const FROZEN_MANIFEST_SHA256 = "b785d729ab03e61159b50e7be7b9553edb8b0b8d82fbc7ff2aede9a5c1f457de";

describe("frozen corpus", () => {
  const files = buildCorpusFiles();

  it("is byte-identical across generations and matches the committed files and hash", () => {
    const again = buildCorpusFiles();
    expect([...again.keys()]).toEqual([...files.keys()]);
    for (const [name, text] of files) {
      expect(again.get(name)).toBe(text);
      expect(readFileSync(join(FROZEN_DATA_DIR, name), "utf8")).toBe(text);
    }
    expect(sha256(files.get(MANIFEST_FILE) as string)).toBe(FROZEN_MANIFEST_SHA256);
    const manifest = JSON.parse(files.get(MANIFEST_FILE) as string);
    for (const [name, hash] of Object.entries(manifest.sha256)) {
      expect(sha256(files.get(name) as string)).toBe(hash);
    }
  });

  it("has records of the paper's size (~155 tokens at full detail) with the task fields", async () => {
    const { records } = await loadCorpus(200);
    let tokens = 0;
    for (const r of records) tokens += await estimateTokens(JSON.stringify(r));
    const mean = tokens / records.length;
    expect(mean).toBeGreaterThan(140);
    expect(mean).toBeLessThan(175);
    for (const r of records) {
      expect(r.namespace).toMatch(/^_(episodic|semantic|procedural)\//);
      expect([1, 2, 3, 4, 5]).toContain(r.extensions.priority);
    }
    // Case varies, so a case-sensitive search would miss records.
    expect(records.some((r) => r.content.includes("NIMBUS DB"))).toBe(true);
    expect(records.some((r) => r.content.includes("nimbus db"))).toBe(true);
    // Some records name a product only in the title: a title search is not a content search.
    expect(
      records.some((r) => r.title.startsWith("Nimbus DB:") && !/nimbus db/i.test(r.content)),
    ).toBe(true);
  });

  it.each(DEFAULT_SCALES)("ID-lookup tasks at n=%i: 12 IDs, 8 present, 4 absent", async (scale) => {
    const corpus = await loadCorpus(scale);
    const ids = new Set(corpus.records.map((r) => r.id));
    expect(corpus.idLookup).toHaveLength(15);
    for (const t of corpus.idLookup) {
      expect(t.ids).toHaveLength(12);
      expect(new Set(t.ids).size).toBe(12);
      expect(t.ids.filter((id) => ids.has(id))).toHaveLength(8);
      expect(t.answer).toBe(8);
      for (const id of t.ids) expect(t.prompt).toContain(id);
    }
  });

  it.each(DEFAULT_SCALES)(
    "filter tasks at n=%i: 15 distinct questions in the paper's words, truths spread over 3-50",
    async (scale) => {
      const corpus = await loadCorpus(scale);
      expect(corpus.filter).toHaveLength(15);
      const keys = corpus.filter.map((t) => `${t.namespace}|${t.op}|${t.priority}|${t.product}`);
      expect(new Set(keys).size).toBe(15);
      // Distinct record sets, not just distinct wordings (`> 2` and `>= 3` are one question).
      const sets = corpus.filter.map((t) =>
        corpus.records
          .filter((r) => matchesFilter(r, t))
          .map((r) => r.id)
          .join(","),
      );
      expect(new Set(sets).size).toBe(15);
      for (const t of corpus.filter) {
        expect(t.prompt).toMatch(
          /^How many memories in namespace \S+ have priority (>|>=|<|<=|==) [1-5] and mention product [A-Z][a-z]+ [A-Z][A-Za-z]+ in their content\?\n\nWhen you are done/,
        );
        // No schema hint beyond the paper's question: no field path, case rule or range.
        expect(t.prompt).not.toMatch(/case|extensions|integer|lowest|highest/i);
      }
      const truths = corpus.filter.map((t) => t.answer).sort((a, b) => a - b);
      expect(truths[0]).toBe(FILTER_TRUTH_MIN);
      expect(truths.at(-1)).toBeLessThanOrEqual(FILTER_TRUTH_MAX);
      // Spread: at least 10 distinct truths, reaching far into what the scale allows.
      expect(new Set(truths).size).toBeGreaterThanOrEqual(scale === 50 ? 8 : 12);
      expect(truths.at(-1)).toBeGreaterThanOrEqual({ 50: 10, 200: 25, 500: 45 }[scale] as number);
    },
  );

  it.each(DEFAULT_SCALES)("filter ground truth at n=%i agrees with the jq CLI", async (scale) => {
    const corpus = await loadCorpus(scale);
    const byCode = corpus.filter.map(
      (t) => corpus.records.filter((r) => matchesFilter(r, t)).length,
    );
    expect(byCode).toEqual(corpus.filter.map((t) => t.answer));
    const program = `$tasks[0] | map(. as $t | [$recs[] | .extensions.priority as $p
      | select(.namespace == $t.namespace
      and (if $t.op == ">" then $p > $t.priority elif $t.op == ">=" then $p >= $t.priority
           elif $t.op == "<" then $p < $t.priority elif $t.op == "<=" then $p <= $t.priority
           else $p == $t.priority end)
      and (.content | ascii_downcase | contains($t.product | ascii_downcase)))] | length)`;
    const out = execFileSync(
      "jq",
      [
        "-n",
        "-c",
        "--slurpfile",
        "recs",
        join(FROZEN_DATA_DIR, `corpus-${scale}.jsonl`),
        "--slurpfile",
        "tasks",
        join(FROZEN_DATA_DIR, `tasks-filter-${scale}.json`),
        program,
      ],
      { encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual(byCode);
  });
});
