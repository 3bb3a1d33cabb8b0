/**
 * Done-when: for every recipe 1-10 at every detail level, `lro_extract` (SDK
 * Client -> McpServer over InMemoryTransport) returns the same values as the
 * descriptor's shell command run through real `bash` and the `jq` CLI on the
 * same file, with the descriptor's own parameters and with harder ones
 * (regex-looking keywords, Unicode case folding, empty prefixes).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recipeParamsFromStats, recordStats } from "../../src/descriptor/memory-descriptor.js";
import { LroEvents } from "../../src/events/events.js";
import { Offloader } from "../../src/offload/offloader.js";
import {
  DEFAULT_RECIPE_PARAMS,
  memoryRecipes,
  type RecipeParamName,
  renderRecipeCommand,
} from "../../src/recipes/memory-recipes.js";
import { DETAIL_LEVELS, type DetailLevel, type OffloadResponse } from "../../src/types.js";
import { type ExtractHarness, parseJsonLines, startHarness } from "./harness.js";
import { makeMemories } from "./memory-fixtures.js";

const JQ = process.env.ATLATL_TEST_JQ ?? "/usr/bin/jq";

/** Run a descriptor command with bash; `-c` re-emission makes the CLI's pretty output parseable. */
function runShell(command: string, raw: boolean): string {
  const script = raw ? command : `(${command}) | ${JQ} -c .`;
  return execFileSync("bash", ["-o", "pipefail", "-c", script], {
    encoding: "utf8",
    env: { ...process.env, PATH: `${JQ.replace(/\/jq$/, "")}:${process.env.PATH ?? ""}` },
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** Extra parameter sets per recipe parameter, beyond the descriptor's. */
const EXTRA: Record<RecipeParamName, string[]> = {
  namespace: ["_episodic", "projects/atlatl", "", "nope"],
  keyword: ["cache", "CACHE", "strasse", "k", "café", "(cache|auth)", "#1\\d", "fi"],
  memory_type: ["episodic", "procedural", "Semantic"],
  tag: ["api", "postgres", "missing-tag"],
  pattern: ["the cache", "straße", "FILE", "k-value", "^##", "naïve", "東京"],
};

let h: ExtractHarness;
const files = new Map<
  DetailLevel,
  { response: OffloadResponse; records: Record<string, unknown>[] }
>();

beforeAll(async () => {
  // Outputs are compared whole here, so the extraction side never re-offloads;
  // the files themselves come from an offloader with the spec's threshold.
  h = await startHarness({ thresholdTokens: 1e9 });
  const writer = new Offloader({
    config: { ...h.config, thresholdTokens: 1600 },
    events: new LroEvents({ sink: null }),
  });
  const memories = makeMemories(300, 7);
  for (const detail of DETAIL_LEVELS) {
    const outcome = await writer.offloadRecords({
      operation: "recall",
      query: "conformance",
      detail,
      records: memories,
    });
    if (outcome.kind !== "offloaded") throw new Error(`expected an offload, got ${outcome.kind}`);
    const lines = readFileSync(outcome.response.file_path, "utf8").trimEnd().split("\n").slice(1);
    files.set(detail, {
      response: outcome.response,
      records: lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    });
  }
});

afterAll(async () => {
  await h?.close();
});

async function compare(
  detail: DetailLevel,
  recipeNumber: number,
  params: Partial<Record<RecipeParamName, string>>,
  expectedCommand?: string,
) {
  const { response } = files.get(detail) as { response: OffloadResponse };
  const spec = memoryRecipes(detail)[recipeNumber - 1];
  if (!spec) throw new Error(`no recipe ${recipeNumber}`);
  const command = renderRecipeCommand(spec, response.file_path, params);
  if (expectedCommand !== undefined) expect(command).toBe(expectedCommand);
  const cli = runShell(command, spec.raw);
  const toolParams = Object.fromEntries(spec.params.map((p) => [p, params[p] as string]));
  const { isError, text, result } = await h.call({
    file_path: response.file_path,
    recipe: recipeNumber,
    ...(spec.params.length ? { params: toolParams } : {}),
  });
  expect(isError, text).toBe(false);
  if (spec.raw) {
    expect(text).toBe(cli);
  } else {
    expect(parseJsonLines(text)).toEqual(parseJsonLines(cli));
  }
  return { text, engine: result._meta?.["atlatl/engine"] };
}

describe.each(DETAIL_LEVELS)("lro_extract vs bash + jq CLI at %s detail", (detail) => {
  it("runs each of the descriptor's ten commands and returns the same values", async () => {
    const { response, records } = files.get(detail) as {
      response: OffloadResponse;
      records: Record<string, unknown>[];
    };
    expect(response.jq_recipes).toHaveLength(10);
    const params = { ...DEFAULT_RECIPE_PARAMS, ...recipeParamsFromStats(recordStats(records)) };
    const engines: unknown[] = [];
    for (let n = 1; n <= 10; n++) {
      const { engine } = await compare(detail, n, params, response.jq_recipes[n - 1]?.command);
      engines.push(engine);
    }
    // The ten fixed recipes on realistic records take the fast path.
    expect(engines.filter((e) => e === "fast").length).toBeGreaterThanOrEqual(9);
  });

  it("agrees with the CLI on harder parameters (regexes, case folding, empty prefixes)", async () => {
    const withParams = memoryRecipes(detail).filter((r) => r.params.length > 0);
    expect(withParams.length).toBeGreaterThanOrEqual(4);
    let nonEmpty = 0;
    for (const spec of withParams) {
      for (const name of spec.params) {
        for (const value of EXTRA[name]) {
          const { text } = await compare(detail, spec.number, { [name]: value });
          if (text !== "") nonEmpty++;
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(5);
  });
});
