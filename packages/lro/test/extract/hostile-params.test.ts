/**
 * Parameters reach jq as data whatever their text: values that look like jq
 * flags (`--argjson`, `--arg`, `-n`, `--`), jq's own variables (`$__loc__`),
 * quotes, newlines and NUL bytes come back exactly as sent, through the engine
 * and through `lro_extract`; a syntax error never shows our wrapper.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JqEngine } from "../../src/extract/jq-engine.js";
import { type ExtractHarness, startHarness } from "./harness.js";
import { makeMemories, projectMemory, writeOffloadFixture } from "./memory-fixtures.js";

const HOSTILE = [
  "--argjson",
  "--arg",
  "--args",
  "--jsonargs",
  "--slurpfile",
  "--rawfile",
  "-n",
  "-s",
  "-e",
  "--",
  "-",
  "$__loc__",
  "$ENV",
  'quote " and \\ backslash',
  "two\nlines",
  "nul\u0000byte",
  "",
  "') | halt_error(1) # ",
];

const engine = new JqEngine({ workers: 1 });
let h: ExtractHarness;
let file: string;

beforeAll(async () => {
  h = await startHarness();
  file = writeOffloadFixture(
    h.dir,
    makeMemories(20, 3).map((m) => projectMemory(m, "medium")),
    { detail: "medium" },
  ).path;
});

afterAll(async () => {
  await Promise.all([engine.close(), h?.close()]);
});

const one = { key: "one", bytes: Buffer.from('{"a":1}\n') };

describe("hostile parameter values", () => {
  it.each(HOSTILE.map((v) => [JSON.stringify(v), v]))(
    "%s reaches jq as a string, alone and beside others",
    async (_, value) => {
      const alone = await engine.run({ input: one, filter: "$v", args: { v: value } });
      expect(alone).toEqual({ ok: true, lines: [JSON.stringify(value)] });
      const several = await engine.run({
        input: one,
        filter: "[$a, $v, $b, .a]",
        args: { a: "--argjson", v: value, b: ["-n", { k: value }] },
      });
      expect(several).toEqual({
        ok: true,
        lines: [JSON.stringify(["--argjson", value, ["-n", { k: value }], 1])],
      });
    },
  );

  it("every hostile value at once, with slurp and a limit", async () => {
    const args = Object.fromEntries(HOSTILE.map((v, i) => [`p${i}`, v]));
    const filter = `[${HOSTILE.map((_, i) => `$p${i}`).join(", ")}]`;
    const r = await engine.run({ input: one, filter, args, slurp: true, limit: 1 });
    expect(r).toEqual({ ok: true, lines: [JSON.stringify(HOSTILE)] });
  });

  it("lro_extract: a query compares records to a hostile value as data", async () => {
    for (const keyword of ["--argjson", "--arg", "-n", "--", "$__loc__"]) {
      const none = await h.call({
        file_path: file,
        query: "select(.title | contains($k)) | .id",
        params: { k: keyword },
      });
      expect(none.isError, keyword).toBe(false);
      expect(none.text).toBe("");
      expect(none.result.content[1]).toMatchObject({ text: expect.stringMatching(/no output/) });
      const echo = await h.call({ file_path: file, query: "$k", params: { k: keyword }, limit: 1 });
      expect(echo.text.split("\n")[0]).toBe(JSON.stringify(keyword));
    }
  });

  it("lro_extract: recipes take hostile values as data", async () => {
    const r = await h.call({ file_path: file, recipe: 3, params: { keyword: "--argjson" } });
    expect(r.isError, r.text).toBe(false);
  });

  it("a syntax error with hostile params quotes the filter, never our wrapper", async () => {
    const r = await h.call({
      file_path: file,
      query: "[$k, .foo |",
      params: { k: "--argjson", j: "-n" },
    });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^FILTER_INVALID: jq: error: syntax error/);
    expect(r.text).toContain("\n[$k, .foo |\n");
    expect(r.text).not.toMatch(/__lro|as \{|slurpfile|\[0\] as/);
    const limited = await h.call({
      file_path: file,
      query: "[$k, .foo |",
      params: { k: "--argjson" },
      limit: 2,
    });
    expect(limited.text).toContain("\n[$k, .foo |\n");
    expect(limited.text).not.toMatch(/__lro|as \{|limit\(/);
  });
});
