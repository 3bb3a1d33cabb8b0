/**
 * Conformance: 500 realistic memories offloaded at each detail level; every one
 * of the ten recipe commands of the descriptor is run through real `bash` and the
 * `jq` CLI (1.6 here) and its output compared with what TypeScript computes from
 * the input. The same filters are run on jq 1.7.1 (WebAssembly, `jq-web`) to
 * check they mean the same thing there. Repeated in a directory whose path holds
 * a space, `'`, `"` and `$`.
 */
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DetailLevel,
  inlineRecipeParams,
  memoryRecipes,
  OFFLOAD_FILE_PATTERN,
  type OffloadHeader,
  type RecipeParamName,
  renderRecipeCommand,
} from "../src/index.js";
import { Offloader } from "../src/node.js";
import {
  bash,
  mostFrequent,
  parseJsonStream,
  recordingEvents,
  tempDir,
  tsv,
} from "./fixtures/helpers.js";
import { type FixtureMemory, makeMemories, projectForTest } from "./fixtures/memory-records.js";

type Rec = Record<string, unknown> & {
  id: string;
  title: string;
  namespace: string;
  memory_type: string;
  tags: string[];
  created: string;
};

/** The test's own projection (independent of the engine's). */
const project = (m: FixtureMemory, detail: DetailLevel): Rec => projectForTest(m, detail) as Rec;

function stableSortBy<T>(items: readonly T[], key: (t: T) => number | string): T[] {
  return items
    .map((item, i) => ({ item, i, k: key(item) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i))
    .map((x) => x.item);
}

function countBy(records: readonly Rec[], field: "namespace" | "memory_type") {
  const keys = [...new Set(records.map((r) => r[field]))].sort();
  return keys.map((k) => ({ [field]: k, count: records.filter((r) => r[field] === k).length }));
}

/** What recipe `n` must print at `detail`: raw lines for #1, else JSON values. */
function expected(
  n: number,
  detail: DetailLevel,
  records: Rec[],
  params: Record<string, string>,
): unknown[] {
  const confidence = (r: Rec): number => {
    const c =
      detail === "full" ? (r.provenance as { confidence: number | null }).confidence : r.confidence;
    return typeof c === "number" ? c : 0;
  };
  switch (n) {
    case 1:
      return records.map((r) => tsv([r.title, r.namespace]));
    case 2:
      return records.filter((r) => r.namespace.startsWith(params.namespace as string));
    case 3:
      return records.filter((r) => new RegExp(params.keyword as string, "i").test(r.title));
    case 4:
      return records.map((r) => ({ id: r.id, title: r.title, namespace: r.namespace }));
    case 5:
      return records.filter((r) => r.memory_type === params.memory_type);
    case 6:
      return [countBy(records, "namespace")];
    case 7:
      return records.filter((r) => r.tags.includes(params.tag as string));
    case 8:
      return [stableSortBy(records, (r) => r.created)];
    case 9:
      if (detail === "light") return [[...new Set(records.map((r) => r.namespace))].sort()];
      return [stableSortBy(records, (r) => -confidence(r))];
    case 10:
      if (detail === "light") return [countBy(records, "memory_type")];
      return records.filter((r) =>
        new RegExp(params.pattern as string, "i").test(r.content as string),
      );
    default:
      throw new Error(`no recipe ${n}`);
  }
}

type JqWeb = { raw(input: string, filter: string, flags: string[]): string | undefined };
let jq17: JqWeb;
const memories = makeMemories(500);
const scores = memories.map((_, i) => ((i * 7919) % 1000) / 1000);
const root = tempDir("lro-conformance-");

beforeAll(async () => {
  jq17 = await (createRequire(import.meta.url)("jq-web") as Promise<JqWeb>);
});
afterAll(() => root.cleanup());

describe.each([
  ["a plain directory", "plain/out"],
  ["a directory with a space, ', \" and $ in its path", `we'ird "dir" $HOME and more/out`],
])("offloading 500 memories into %s", (_label, sub) => {
  describe.each(["light", "medium", "full"] as const)("at %s detail", (detail) => {
    const outputDir = join(root.dir, `${detail}-${sub}`);
    const records = memories.map((m) => project(m, detail));
    let filePath = "";
    let recipes: { description: string; command: string }[] = [];
    let body = "";

    beforeAll(async () => {
      const { events } = recordingEvents();
      const offloader = new Offloader({
        config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir },
        events,
      });
      const result = await offloader.offloadRecords({
        operation: "recall",
        query: 'caching "strategy"',
        detail,
        records: memories,
        scores,
      });
      if (result.kind !== "offloaded") throw new Error(`expected an offload, got ${result.kind}`);
      filePath = result.response.file_path;
      recipes = result.response.jq_recipes;
      const text = readFileSync(filePath, "utf8");
      body = text.slice(text.indexOf("\n") + 1);

      // The descriptor, checked once per level.
      const r = result.response;
      expect(Object.keys(r)).toEqual([
        "offloaded",
        "summary",
        "file_path",
        "line_schema",
        "jq_recipes",
        "guidance",
      ]);
      expect(r.summary).toEqual({
        count: 500,
        estimated_tokens: result.estimatedTokens,
        operation: "recall",
        top_namespaces: mostFrequent(records.map((x) => x.namespace)).slice(0, 5),
        // Three significant digits (see scoreRange).
        score_range: [
          Number(Math.min(...scores).toPrecision(3)),
          Number(Math.max(...scores).toPrecision(3)),
        ],
        detail,
      });
      expect(r.jq_recipes).toHaveLength(10);
      // The path is file_path's (and every recipe's): the guidance does not repeat it.
      expect(r.file_path).toBe(filePath);
      expect(r.guidance).toContain(`Detail level: ${detail}.`);
      expect(r.guidance).toContain("Use the jq recipes above");
      const required = (r.line_schema as { required: string[] }).required;
      // Unsorted: the lines have line_schema's fields in line_schema's order.
      for (const rec of records) expect(Object.keys(rec)).toEqual(required);
    });

    it("writes header + one projected record per line, 0600 in a 0700 directory", () => {
      expect(dirname(filePath)).toBe(outputDir);
      expect(basename(filePath)).toMatch(OFFLOAD_FILE_PATTERN);
      expect(basename(filePath).startsWith("atlatl-recall-")).toBe(true);
      expect(statSync(filePath).mode & 0o777).toBe(0o600);
      expect(statSync(outputDir).mode & 0o777).toBe(0o700);
      const lines = readFileSync(filePath, "utf8").split("\n");
      expect(lines.pop()).toBe("");
      const header = JSON.parse(lines[0] as string) as OffloadHeader;
      expect(Object.keys(header)).toEqual([
        "type",
        "operation",
        "query",
        "count",
        "schema_version",
        "timestamp",
        "estimated_tokens",
        "detail",
      ]);
      expect(header).toMatchObject({
        type: "lro_header",
        operation: "recall",
        query: 'caching "strategy"',
        count: 500,
        schema_version: "0.1.0",
        detail,
      });
      expect(new Date(header.timestamp).toISOString()).toBe(header.timestamp);
      expect(lines.slice(1).map((l) => JSON.parse(l))).toEqual(records);
    });

    it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])(
      "recipe %i runs in bash + jq 1.6 and prints what TypeScript computes (and jq 1.7 agrees)",
      (n) => {
        const spec = memoryRecipes(detail)[n - 1];
        if (!spec) throw new Error("missing recipe");
        // Parameters drawn from the data, computed here independently.
        const params: Record<RecipeParamName, string> = {
          namespace: (mostFrequent(records.map((r) => r.namespace))[0] as string).split(
            "/",
          )[0] as string,
          memory_type: mostFrequent(records.map((r) => r.memory_type))[0] as string,
          tag: mostFrequent(records.flatMap((r) => r.tags))[0] as string,
          keyword: "keyword",
          pattern: "pattern",
        };
        const recipe = recipes[n - 1];
        expect(recipe?.description).toBe(spec.description);
        expect(recipe?.command).toBe(renderRecipeCommand(spec, filePath, params));

        const want = expected(n, detail, records, params);
        // Recipes must select something to be a meaningful check.
        expect(want.length).toBeGreaterThan(0);

        const run = bash(recipe?.command as string);
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        const got = spec.raw ? run.stdout.split("\n").slice(0, -1) : parseJsonStream(run.stdout);
        expect(got).toEqual(want);

        const flags = [...(spec.raw ? ["-r"] : []), ...(spec.slurp ? ["-s"] : [])];
        const out17 = jq17.raw(body, inlineRecipeParams(spec, params), flags) ?? "";
        // jq-web drops the final newline of the output.
        const got17 = spec.raw ? out17.split("\n") : parseJsonStream(out17);
        expect(got17).toEqual(want);
      },
    );
  });
});
