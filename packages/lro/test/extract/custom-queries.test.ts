/**
 * Custom filters through `lro_extract`: parameters arrive as jq variables
 * (never spliced into the program), jq's own error messages come back, argument
 * mistakes are clear errors, `limit`/`slurp`/`raw` behave as documented, large
 * outputs are offloaded again, and guidance turns native once the tool exists.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseOffloadFileName } from "../../src/materialize/file-name.js";
import { type ExtractHarness, parseJsonLines, startHarness } from "./harness.js";
import { makeMemories, projectMemory, writeOffloadFixture } from "./memory-fixtures.js";

let h: ExtractHarness;
let file: string;
let records: Record<string, unknown>[];

beforeAll(async () => {
  h = await startHarness();
  records = makeMemories(120, 5).map((m) => projectMemory(m, "medium"));
  file = writeOffloadFixture(h.dir, records, { detail: "medium" }).path;
});

afterAll(async () => {
  await h?.close();
});

function cli(filter: string, flags: string[] = [], args: string[] = []): unknown[] {
  const out = execFileSync(
    "bash",
    ["-c", 'tail -n +2 "$0" | jq -c "$@"', file, ...flags, ...args, filter],
    {
      encoding: "utf8",
    },
  );
  return parseJsonLines(out);
}

describe("custom queries with params", () => {
  it("passes params as jq variables and matches the jq CLI with --arg", async () => {
    const r = await h.call({
      file_path: file,
      query: "select(.namespace == $ns) | {id, title}",
      params: { ns: "_semantic/decisions" },
    });
    expect(r.isError, r.text).toBe(false);
    const expected = cli(
      "select(.namespace == $ns) | {id, title}",
      [],
      ["--arg", "ns", "_semantic/decisions"],
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(parseJsonLines(r.text)).toEqual(expected);
  });

  it("passes numbers and other JSON values like --argjson", async () => {
    const r = await h.call({
      file_path: file,
      query: "select(.confidence != null and .confidence > $min) | .id",
      params: { min: 0.8 },
    });
    expect(r.isError, r.text).toBe(false);
    const expected = cli(
      "select(.confidence != null and .confidence > $min) | .id",
      [],
      ["--argjson", "min", "0.8"],
    );
    expect(parseJsonLines(r.text)).toEqual(expected);
  });

  it("never splices a param into the program: hostile values stay strings", async () => {
    const injected = '") | env | ("';
    const r = await h.call({
      file_path: file,
      query: "select(.title == $t) | .id",
      params: { t: injected },
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toBe("");
    const echo = await h.call({ file_path: file, query: "$t", params: { t: injected }, limit: 1 });
    expect(parseJsonLines(echo.text)).toEqual([injected]);
  });

  it("slurp gives the filter the whole array, like jq -s", async () => {
    const r = await h.call({
      file_path: file,
      query: "group_by(.memory_type) | map(length)",
      slurp: true,
    });
    expect(r.isError, r.text).toBe(false);
    expect(parseJsonLines(r.text)).toEqual(cli("group_by(.memory_type) | map(length)", ["-s"]));
    const count = await h.call({ file_path: file, query: "length", slurp: true });
    expect(count.text).toBe(`${records.length}\n`);
  });

  it("raw prints strings without quotes, like jq -r", async () => {
    const r = await h.call({ file_path: file, query: ".title", raw: true, limit: 2 });
    expect(r.text).toBe(`${records[0]?.title}\n${records[1]?.title}\n`);
  });

  it("limit returns the first values and says there are more", async () => {
    const r = await h.call({ file_path: file, query: ".id", limit: 5 });
    expect(parseJsonLines(r.text)).toEqual(records.slice(0, 5).map((x) => x.id));
    const note = r.result.content[1];
    expect(note?.type === "text" && note.text).toMatch(/first 5 output values .* there are more/);
    const recipe = await h.call({ file_path: file, recipe: 4, limit: 5 });
    const recipeNote = recipe.result.content[1];
    expect(recipeNote?.type === "text" && recipeNote.text).toMatch(/first 5 of 120 output values/);
    const all = await h.call({ file_path: file, query: ".id", limit: 120 });
    expect(parseJsonLines(all.text)).toHaveLength(120);
    expect(all.result.content).toHaveLength(1);
  });

  it("limit stops jq early and keeps jq's messages about the filter as written", async () => {
    const slurped = await h.call({ file_path: file, query: ".[] | .id", slurp: true, limit: 2 });
    expect(parseJsonLines(slurped.text)).toEqual(records.slice(0, 2).map((x) => x.id));
    // jq's syntax error is the same with and without a limit (the wrapper never shows).
    for (const query of [".id | # comment\n[", "[.id |", "a\nb |"]) {
      const bad = await h.call({ file_path: file, query, limit: 3 });
      const plain = await h.call({ file_path: file, query });
      expect(bad.isError).toBe(true);
      expect(bad.text).toMatch(/^FILTER_INVALID: jq: error: syntax error/);
      expect(bad.text).toBe(plain.text);
      expect(bad.text).not.toContain("inputs |");
    }
    const commented = await h.call({ file_path: file, query: ".id # trailing comment", limit: 2 });
    expect(parseJsonLines(commented.text)).toEqual(records.slice(0, 2).map((x) => x.id));
    // A runaway filter with a limit finishes at once.
    const endless = await h.call({ file_path: file, query: "repeat(.id)", limit: 3 });
    expect(endless.isError, endless.text).toBe(false);
    expect(parseJsonLines(endless.text)).toHaveLength(3);
  });

  it("an empty result says so", async () => {
    const r = await h.call({ file_path: file, query: 'select(.id == "nope")' });
    expect(r.isError).toBe(false);
    expect(r.text).toBe("");
    const note = r.result.content[1];
    expect(note?.type === "text" && note.text).toMatch(/no output/);
  });
});

describe("errors a model can act on", () => {
  it("a jq syntax error returns jq's own message, quoting the filter", async () => {
    const r = await h.call({ file_path: file, query: "select(.title | test(" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^FILTER_INVALID: jq: error: syntax error/);
    expect(r.text).toContain("select(.title | test(");
    expect(r.text).toMatch(/compile error/);
  });

  it("with JSON params, the message still quotes the filter as written", async () => {
    const r = await h.call({ file_path: file, query: "[$min, .foo |", params: { min: 1 } });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("\n[$min, .foo |\n");
    expect(r.text).not.toContain("$min[0] as $min");
    const multi = await h.call({
      file_path: file,
      query: "[$min,\n .foo |",
      params: { min: 1 },
      limit: 2,
    });
    expect(multi.text).toMatch(/line 2:\n \.foo \|\n/);
  });

  it("a runtime error returns jq's message", async () => {
    const r = await h.call({ file_path: file, query: ".title | tonumber" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^FILTER_INVALID: jq: error \(at /);
  });

  it("an undefined variable names it", async () => {
    const r = await h.call({ file_path: file, query: "select(.namespace == $nope)" });
    expect(r.text).toMatch(/\$nope is not defined/);
  });

  it.each([
    [{ recipe: 1, query: "." }, /either recipe or query, not both/],
    [{}, /pass one of recipe .* or query/],
    [{ recipe: 2 }, /recipe 2 at medium detail needs params \{"namespace"/],
    [{ recipe: 2, params: { namespace: "_s", tag: "x" } }, /unexpected param "tag"/],
    [{ recipe: 3, params: { keyword: 5 } }, /params.keyword must be a string/],
    [{ recipe: 1, slurp: true }, /slurp applies to custom queries only/],
    [{ query: "   " }, /query must be a non-empty jq filter/],
    [{ query: ".", params: { ENV: "x" } }, /cannot be a jq variable/],
    [{ query: ".", params: { "a-b": "x" } }, /cannot be a jq variable/],
  ])("%j is a clear error", async (args, message) => {
    const r = await h.call({ file_path: file, ...args });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(message);
  });

  it("recipe's range is in the descriptions too, for clients that drop minimum/maximum (Codex)", async () => {
    const tool = (await h.client.listTools()).tools.find((t) => t.name === "lro_extract");
    const recipe = tool?.inputSchema.properties?.recipe as {
      minimum: number;
      maximum: number;
      description: string;
    };
    const range = `${recipe.minimum}-${recipe.maximum}`;
    expect(range).toBe("1-10");
    expect(recipe.description).toContain(range);
  });

  it("out-of-range recipe numbers and limits are refused by the schema", async () => {
    for (const args of [{ recipe: 11 }, { recipe: 0 }, { recipe: 2.5 }, { query: ".", limit: 0 }]) {
      const r = await h.call({ file_path: file, ...args });
      expect(r.isError).toBe(true);
    }
  });

  it("recipes 9 and 10 on a file without a detail level explain what to do", async () => {
    const derived = writeOffloadFixture(h.dir, [{ a: 1 }], { detail: "raw" as never });
    const r = await h.call({ file_path: derived.path, recipe: 9 });
    expect(r.text).toMatch(/depends on the detail level .* use a custom query/);
    expect((await h.call({ file_path: derived.path, recipe: 4 })).isError).toBe(false);
  });
});

describe("large extractions are offloaded again", () => {
  it("returns a descriptor of a derived atlatl-extract file, which lro_extract can query", async () => {
    const r = await h.call({ file_path: file, recipe: 8 });
    expect(r.isError, r.text).toBe(false);
    const descriptor = JSON.parse(r.text) as {
      offloaded: boolean;
      files: Record<string, string>;
      jq_recipes: Record<string, string>;
      guidance: string;
      extraction: { output_values: number };
    };
    expect(descriptor.offloaded).toBe(true);
    const derived = descriptor.files.results as string;
    expect(parseOffloadFileName(basename(derived))?.operation).toBe("extract");
    const lines = readFileSync(derived, "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      type: "lro_header",
      operation: "extract",
      count: 120,
    });
    // Recipe 8's single array became one record per line, in sorted order.
    const sorted = [...records].sort((a, b) => String(a.created).localeCompare(String(b.created)));
    expect(lines.slice(1).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(
      sorted.map((x) => x.id),
    );
    expect(descriptor.guidance).toContain("`lro_extract`(file_path=files.results");
    expect(Object.keys(descriptor.jq_recipes).length).toBeGreaterThan(0);
    const link = r.result.content.find((c) => c.type === "resource_link");
    expect(link).toMatchObject({ uri: `atlatl://offload/${basename(derived)}` });

    const again = await h.call({ file_path: derived, query: ".id", limit: 3 });
    expect(parseJsonLines(again.text)).toEqual(sorted.slice(0, 3).map((x) => x.id));
    const recipe = await h.call({ file_path: derived, recipe: 6 });
    expect(recipe.isError, recipe.text).toBe(false);
  });

  it("small outputs stay inline", async () => {
    const r = await h.call({ file_path: file, recipe: 6 });
    expect(r.text.startsWith("[{")).toBe(true);
  });
});

describe("native guidance", () => {
  it("offloads made after registration point to lro_extract and keep the jq recipes", async () => {
    expect(h.offloader.nativeExtraction).toBe("lro_extract");
    const outcome = await h.offloader.offloadRecords({
      operation: "recall",
      detail: "light",
      records: makeMemories(200, 9),
    });
    expect(outcome.kind).toBe("offloaded");
    if (outcome.kind !== "offloaded") return;
    expect(outcome.response.guidance).toContain("or `lro_extract` with file_path and recipe=N");
    expect(outcome.response.jq_recipes).toHaveLength(10);
    const r = await h.call({ file_path: outcome.response.file_path, recipe: 6 });
    expect(r.isError, r.text).toBe(false);
  });
});
