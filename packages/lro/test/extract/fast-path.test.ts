/**
 * The checked fast path gives exactly jq's output (same values, same order,
 * same `-c` text) wherever it answers, and steps aside (undefined) wherever jq
 * would behave differently: compared here against jq 1.7.1 itself (jq-web, the
 * engine `lro_extract` falls back to).
 */
import { afterAll, describe, expect, it } from "vitest";
import { runFastRecipe } from "../../src/extract/fast-recipes.js";
import { JqEngine } from "../../src/extract/jq-engine.js";
import { jqCompare, tsvField } from "../../src/extract/jq-values.js";
import { literalMatcher } from "../../src/extract/literal-match.js";
import { parseFastRecords } from "../../src/extract/offload-reader.js";
import { memoryRecipes } from "../../src/profiles/memory/memory-recipes.js";
import type { RecipeSpec } from "../../src/recipes/recipe-spec.js";
import { DETAIL_LEVELS } from "../../src/types.js";
import { makeMemories, projectMemory, rng } from "./memory-fixtures.js";

const engine = new JqEngine();
let inputs = 0;

afterAll(async () => {
  await engine.close();
});

async function jq(body: string, filter: string, slurp: boolean, args: Record<string, string> = {}) {
  return engine.run({
    input: { key: `t${inputs++}`, bytes: Buffer.from(body) },
    filter,
    slurp,
    args,
  });
}

const oracle = async (texts: string[], pattern: string) => {
  const r = await jq(JSON.stringify(texts), '.[] | test($pattern; "i")', false, { pattern });
  return r.ok ? r.lines.map((l) => l === "true") : undefined;
};

/** Fast path vs jq on one body; returns whether the fast path answered. */
async function check(body: string, spec: RecipeSpec, params: Record<string, string>) {
  const data = parseFastRecords(Buffer.from(body));
  const output = data ? await runFastRecipe(spec, data, params, oracle) : undefined;
  const fast = output?.lines;
  if (output?.elements) {
    // The elements' texts are exactly the array's: what a derived file would hold.
    expect(`[${output.elements.join(",")}]`).toBe(output.lines[0]);
  }
  const real = await jq(body, spec.filter, spec.slurp, params);
  const label = `recipe ${spec.number} ${spec.filter} ${JSON.stringify(params)}`;
  if (!real.ok) {
    // Where jq raises an error, the fast path must not invent an answer.
    expect(fast, `${label}: jq failed with ${real.error.message}`).toBeUndefined();
    return false;
  }
  if (fast !== undefined) expect(fast, label).toEqual(real.lines);
  return fast !== undefined;
}

const PARAM_VALUES: Record<string, string[]> = {
  namespace: ["_semantic", "_episodic/sessions", "", "projects"],
  keyword: ["cache", "strasse", "k", "CAF", "(a|b)", ""],
  memory_type: ["semantic", "episodic"],
  tag: ["api", "none"],
  pattern: ["the", "straße", "fi", "K-VALUE", "\\d+", "東京"],
};

describe("fast path vs jq 1.7.1 on realistic records", () => {
  it.each(DETAIL_LEVELS)(
    "gives jq's exact output for every recipe at %s detail",
    async (detail) => {
      const body = `${makeMemories(250, 3)
        .map((m) => JSON.stringify(projectMemory(m, detail)))
        .join("\n")}\n`;
      expect(parseFastRecords(Buffer.from(body))).not.toBeNull();
      let answered = 0;
      let cases = 0;
      let regexes = 0;
      for (const spec of memoryRecipes(detail)) {
        const sets =
          spec.params.length === 0
            ? [{}]
            : (PARAM_VALUES[spec.params[0] as string] ?? []).map((v) => ({
                [spec.params[0] as string]: v,
              }));
        for (const params of sets) {
          cases++;
          const value = Object.values(params)[0];
          if (spec.filter.includes("test(") && literalMatcher(value ?? "") === undefined) regexes++;
          if (await check(body, spec, params)) answered++;
        }
      }
      // Only patterns that are not plain ASCII words need jq.
      expect(regexes).toBeGreaterThan(0);
      expect(answered).toBe(cases - regexes);
    },
  );
});

/** Canonical lines with the awkward values jq's order, @tsv and errors care about. */
function oddRecords(): string {
  const values: unknown[] = [
    null,
    false,
    true,
    0,
    -1.5,
    2,
    0.1,
    "",
    "a",
    "B",
    "ab",
    "é",
    "\uffff",
    "\u{1F680}",
    "\ue000",
    "x\u007fy",
    [],
    [1],
    [1, 2],
    ["a"],
    {},
    { a: 1 },
    { b: 0 },
    { a: 1, b: 2 },
    { a: 2 },
  ];
  const lines: string[] = [];
  values.forEach((v, i) => {
    lines.push(
      JSON.stringify({
        id: `id-${i}`,
        title: typeof v === "string" ? v : `title ${i}`,
        namespace: v,
        memory_type: i % 2 ? "semantic" : v,
        tags: i % 3 === 0 ? ["api", v] : ["x"],
        created: v,
        confidence: i % 4 === 0 ? null : i % 4 === 1 ? i / 10 : false,
        provenance: i % 5 === 0 ? null : { confidence: i / 7 },
        content: `content ${i} \u007f`,
      }),
    );
  });
  return `${lines.join("\n")}\n`;
}

describe("fast path vs jq on awkward values", () => {
  it("matches jq's total order, grouping and printing across types, or steps aside", async () => {
    const body = oddRecords();
    let answered = 0;
    for (const spec of [
      ...memoryRecipes("light"),
      ...memoryRecipes("medium"),
      ...memoryRecipes("full"),
    ]) {
      const params = Object.fromEntries(spec.params.map((p) => [p, p === "tag" ? "api" : "a"]));
      if (await check(body, spec, params)) answered++;
    }
    // Sorting and grouping across every type are answered (and equal to jq).
    expect(answered).toBeGreaterThanOrEqual(8);
  });

  it("steps aside where jq raises an error (non-string title, non-array tags, string confidence)", async () => {
    const body = [
      {
        id: 1,
        title: 5,
        namespace: 3,
        memory_type: "semantic",
        tags: "api",
        created: 1,
        confidence: "high",
        provenance: "x",
      },
      {
        id: 2,
        title: "ok",
        namespace: "ns",
        memory_type: "semantic",
        tags: ["api"],
        created: 2,
        confidence: 0.5,
      },
    ]
      .map((r) => JSON.stringify(r))
      .join("\n");
    for (const spec of [...memoryRecipes("medium"), ...memoryRecipes("full")]) {
      const params = Object.fromEntries(spec.params.map((p) => [p, p === "tag" ? "api" : "ok"]));
      await check(body, spec, params);
    }
  });
});

describe("files outside the fast path's domain", () => {
  const bodies: [string, string][] = [
    ["duplicate keys", '{"id":1,"title":"a","id":2}\n'],
    ["1.0 literal", '{"id":1.0,"title":"a"}\n'],
    ["exponent literal", '{"id":1e2,"title":"a"}\n'],
    ["negative zero", '{"id":-0,"title":"a"}\n'],
    ["integer-like key order", '{"b":1,"1":2,"title":"a"}\n'],
    ["spaces", '{"id": 1, "title": "a"}\n'],
    ["lone surrogate escape", '{"id":1,"title":"\\ud800"}\n'],
    ["non-object line", '[1,2]\n{"id":1}\n'],
    ["two values on a line", '{"id":1} {"id":2}\n'],
    ["huge integer", '{"id":12345678901234567890,"title":"a"}\n'],
    ["large double", '{"id":1e+21,"title":"a"}\n'],
  ];
  it.each(bodies)("%s: not admitted", (_, body) => {
    expect(parseFastRecords(Buffer.from(body))).toBeNull();
  });

  it("invalid UTF-8: not admitted", () => {
    expect(
      parseFastRecords(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x0a])),
    ).toBeNull();
  });

  it("blank lines are skipped like jq skips whitespace", async () => {
    const body =
      '{"id":1,"title":"a","namespace":"n"}\n\n  \n{"id":2,"title":"b","namespace":"n"}\n';
    const data = parseFastRecords(Buffer.from(body));
    expect(data?.records).toHaveLength(2);
    const spec = memoryRecipes("light")[3] as RecipeSpec;
    await check(body, spec, {});
  });
});

describe("jq value semantics", () => {
  /** Random JSON values from a seeded generator. */
  function randomValue(r: () => number, depth: number): unknown {
    const k = Math.floor(r() * (depth > 2 ? 5 : 7));
    const strings = ["", "a", "ab", "B", "é", "\uffff", "\u{1F680}", "\ue000", "z", "aa"];
    switch (k) {
      case 0:
        return [null, false, true][Math.floor(r() * 3)];
      case 1:
        return Math.round((r() - 0.5) * 1000) / 10;
      case 2:
      case 3:
        return strings[Math.floor(r() * strings.length)];
      case 4:
        return Math.floor(r() * 5);
      case 5:
        return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth + 1));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < Math.floor(r() * 3); i++)
          o[strings[Math.floor(r() * strings.length)] as string] = randomValue(r, depth + 1);
        return o;
      }
    }
  }

  it("jqCompare sorts exactly like jq's sort", async () => {
    const r = rng(11);
    const values = Array.from({ length: 300 }, () => randomValue(r, 0));
    const text = JSON.stringify(values);
    const real = await jq(text, "sort", false);
    expect(real.ok).toBe(true);
    const mine = JSON.stringify([...(JSON.parse(text) as unknown[])].sort(jqCompare));
    expect(real.ok && real.lines[0]).toBe(mine);
  });

  it("tsvField escapes like jq's @tsv", async () => {
    const strings = [
      "plain",
      "tab\there",
      "new\nline",
      "cr\rx",
      "back\\slash",
      "nul\u0000x",
      "\u0001ctl",
      "é🚀",
    ];
    const real = await jq(JSON.stringify(strings), ".[] | [., null] | @tsv", false);
    expect(real.ok && real.lines).toEqual(strings.map((s) => JSON.stringify(`${tsvField(s)}\t`)));
  });

  it('literalMatcher agrees with jq\'s test(...; "i") wherever it decides', async () => {
    const texts = [
      "Straße",
      "STRASSE",
      "Kelvin \u212a",
      "kilo",
      "ﬁle",
      "FILE",
      "İstanbul",
      "istanbul",
      "ſeason",
      "Season",
      "Ωmega",
      "plain text",
      "ÉCOLE école",
      "a-b_c",
    ];
    const patterns = ["ss", "strasse", "k", "fi", "i", "s", "season", "plain", "école", "A-B", ""];
    let decided = 0;
    for (const pattern of patterns) {
      const match = literalMatcher(pattern);
      const real = await jq(JSON.stringify(texts), '.[] | test($p; "i")', false, { p: pattern });
      expect(real.ok).toBe(true);
      if (!real.ok) continue;
      texts.forEach((t, i) => {
        const mine = match?.(t);
        if (mine !== undefined) {
          decided++;
          expect(mine, `${JSON.stringify(t)} ~ ${JSON.stringify(pattern)}`).toBe(
            real.lines[i] === "true",
          );
        }
      });
    }
    expect(decided).toBeGreaterThan(60);
  });
});
