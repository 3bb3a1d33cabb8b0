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
import { LroEvents } from "../../src/events/events.js";
import { Offloader } from "../../src/offload/offloader.js";
import { recipeParamsFromStats, recordStats } from "../../src/profiles/memory/memory-descriptor.js";
import {
  DEFAULT_RECIPE_PARAMS,
  memoryRecipes,
  type RecipeParamName,
  renderRecipeCommand,
} from "../../src/profiles/memory/memory-recipes.js";
import { DETAIL_LEVELS, type DetailLevel, type OffloadResponse } from "../../src/types.js";
import { type ExtractHarness, parseJsonLines, startHarness } from "./harness.js";
import { makeMemories } from "./memory-fixtures.js";

const JQ = process.env.ATLATL_TEST_JQ ?? "/usr/bin/jq";

const SEPARATOR = "@@atlatl-case-separator@@";

/**
 * Run descriptor commands through one `bash` (one process start for a whole
 * level keeps the test fast); JSON outputs are re-emitted with `jq -c .` so the
 * CLI's pretty output parses line by line.
 */
function runShell(commands: readonly { command: string; raw: boolean }[]): string[] {
  const script = commands
    .map(({ command, raw }) => `${raw ? command : `(${command}) | ${JQ} -c .`}\necho ${SEPARATOR}`)
    .join("\n");
  const out = execFileSync("bash", ["-o", "pipefail", "-e", "-c", script], {
    encoding: "utf8",
    env: { ...process.env, PATH: `${JQ.replace(/\/jq$/, "")}:${process.env.PATH ?? ""}` },
    maxBuffer: 256 * 1024 * 1024,
  });
  const parts = out.split(`${SEPARATOR}\n`);
  parts.pop();
  expect(parts).toHaveLength(commands.length);
  return parts;
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

interface Case {
  recipe: number;
  params: Partial<Record<RecipeParamName, string>>;
  /** The descriptor's own command, which the rendered one must equal. */
  expectedCommand?: string | undefined;
}

/** Run every case through bash + jq CLI, then through lro_extract, and compare. */
async function compareAll(detail: DetailLevel, cases: readonly Case[]) {
  const { response } = files.get(detail) as { response: OffloadResponse };
  const specs = cases.map((c) => {
    const spec = memoryRecipes(detail)[c.recipe - 1];
    if (!spec) throw new Error(`no recipe ${c.recipe}`);
    const command = renderRecipeCommand(spec, response.file_path, c.params);
    if (c.expectedCommand !== undefined) expect(command).toBe(c.expectedCommand);
    return { spec, command, raw: spec.raw };
  });
  const cli = runShell(specs);
  const out: { text: string; engine: unknown }[] = [];
  for (const [i, { spec }] of specs.entries()) {
    const params = (cases[i] as Case).params;
    const toolParams = Object.fromEntries(spec.params.map((p) => [p, params[p] as string]));
    const { isError, text, result } = await h.call({
      file_path: response.file_path,
      recipe: spec.number,
      ...(spec.params.length ? { params: toolParams } : {}),
    });
    const label = `recipe ${spec.number} ${JSON.stringify(toolParams)}`;
    expect(isError, `${label}: ${text}`).toBe(false);
    if (spec.raw) {
      expect(text, label).toBe(cli[i]);
    } else {
      expect(parseJsonLines(text), label).toEqual(parseJsonLines(cli[i] as string));
    }
    out.push({ text, engine: result._meta?.["atlatl/engine"] });
  }
  return out;
}

describe.each(DETAIL_LEVELS)("lro_extract vs bash + jq CLI at %s detail", (detail) => {
  it("runs each of the descriptor's ten commands and returns the same values", async () => {
    const { response, records } = files.get(detail) as {
      response: OffloadResponse;
      records: Record<string, unknown>[];
    };
    expect(response.jq_recipes).toHaveLength(10);
    const params = { ...DEFAULT_RECIPE_PARAMS, ...recipeParamsFromStats(recordStats(records)) };
    const results = await compareAll(
      detail,
      response.jq_recipes.map((r, i) => ({ recipe: i + 1, params, expectedCommand: r.command })),
    );
    // The ten fixed recipes on realistic records take the fast path.
    expect(results.map((r) => r.engine)).toEqual(Array(10).fill("fast"));
  });

  it("agrees with the CLI on harder parameters (regexes, case folding, empty prefixes)", async () => {
    const cases: Case[] = [];
    for (const spec of memoryRecipes(detail)) {
      for (const name of spec.params) {
        for (const value of EXTRA[name])
          cases.push({ recipe: spec.number, params: { [name]: value } });
      }
    }
    expect(cases.length).toBeGreaterThan(15);
    const results = await compareAll(detail, cases);
    expect(results.filter((r) => r.text !== "").length).toBeGreaterThan(5);
  });
});
