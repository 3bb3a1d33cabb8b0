/**
 * The descriptor bounds of issue 30, asserted on the `token-economy` bench's
 * own data: atlatl's first tool_result in every offloaded scenario, as Claude
 * Code and Codex put it into the model's context, at most 500 o200k tokens
 * for a generic result and 900 for the memory server's recall over 5,000
 * memories, which keeps the specification's shape. Sizes only (deterministic,
 * see token-economy-descriptors.ts); `npm run bench descriptor-tokens` prints
 * the same figures.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { SCENARIOS } from "../src/token-economy.js";
import { type ScenarioDescriptor, scenarioDescriptors } from "../src/token-economy-descriptors.js";

let all: ScenarioDescriptor[];
beforeAll(async () => {
  all = await scenarioDescriptors();
}, 180_000);

/** The specification's `OffloadResponse` fields, in its order. */
const SPEC_FIELDS = ["offloaded", "summary", "file_path", "line_schema", "jq_recipes", "guidance"];

describe("descriptors of the token-economy scenarios, as each CLI's model receives them", () => {
  it("covers every offloaded scenario for Claude Code and Codex", () => {
    const offloaded = SCENARIOS.filter((s) => s.descriptorMax !== undefined).map((s) => s.name);
    expect(offloaded.length).toBeGreaterThanOrEqual(5);
    expect(all.map((d) => `${d.client}: ${d.scenario}`).sort()).toEqual(
      offloaded.flatMap((n) => [`claude-code: ${n}`, `codex: ${n}`]).sort(),
    );
  });

  it("keeps each within its bound: 500 o200k generic, 900 the memory recall", () => {
    for (const d of all) {
      expect([500, 900], d.scenario).toContain(d.max);
      expect(d.o200k, `${d.client}: ${d.scenario}\n${d.text}`).toBeLessThanOrEqual(d.max);
    }
  });

  it("keeps the memory recall in the specification's shape: every field, ten recipes on file_path", () => {
    const memory = all.filter((d) => d.max === 900);
    expect(memory).toHaveLength(2);
    for (const d of memory) {
      // Codex's metadata lines come first; no resource link for a CLI with a shell.
      const json = d.text.slice(d.text.indexOf("{"));
      const descriptor = JSON.parse(json) as {
        file_path: string;
        jq_recipes: { description: string; command: string }[];
      };
      expect(Object.keys(descriptor), d.client).toEqual(SPEC_FIELDS);
      expect(descriptor.jq_recipes, d.client).toHaveLength(10);
      for (const r of descriptor.jq_recipes) {
        expect(r.command.startsWith(`tail -n +2 ${descriptor.file_path} | jq `), r.command).toBe(
          true,
        );
        expect(r.description.length).toBeGreaterThan(0);
      }
    }
  });

  it("counts real tokens: o200k above chars/4 for these JSON descriptors", () => {
    for (const d of all) expect(d.o200k, `${d.client}: ${d.scenario}`).toBeGreaterThan(d.chars4);
  });
});
