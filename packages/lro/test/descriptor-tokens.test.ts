/**
 * What a descriptor costs the model, in o200k tokens (issue 30): every kind
 * the engine makes, as the client receives it (descriptor text and resource
 * links), within its budget; and every generic recipe runs in bash + jq as
 * the guidance says (`F=<path>` first). The figures are `npm run bench
 * descriptor-tokens`'s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DESCRIPTOR_BUDGETS,
  type DescriptorSample,
  descriptorSamples,
} from "./fixtures/descriptor-samples.js";
import { recipeBash, tempDir } from "./fixtures/helpers.js";

const t = tempDir("descriptor-tokens-");
let samples: DescriptorSample[];
beforeAll(async () => {
  samples = await descriptorSamples(t.dir);
});
afterAll(() => t.cleanup());

describe("descriptor cost in o200k tokens", () => {
  it("keeps every generic descriptor within its budget", () => {
    const generic = samples.filter((s) => s.kind === "generic");
    expect(generic.length).toBeGreaterThanOrEqual(10);
    for (const s of generic)
      expect(s.o200k, s.name).toBeLessThanOrEqual(DESCRIPTOR_BUDGETS.generic);
  });

  it("keeps the memory descriptor, ten recipes and all, within its budget at every detail level", () => {
    const memory = samples.filter((s) => s.kind === "memory");
    expect(memory).toHaveLength(6);
    for (const s of memory) {
      expect(s.o200k, s.name).toBeLessThanOrEqual(DESCRIPTOR_BUDGETS.memory);
      const d = JSON.parse(s.text.split("\n")[0] as string) as { jq_recipes: unknown[] };
      expect(d.jq_recipes, s.name).toHaveLength(10);
    }
  });

  it("counts real tokens: o200k is above chars/4 for these JSON descriptors", () => {
    for (const s of samples) expect(s.o200k, s.name).toBeGreaterThan(s.chars4);
  });

  it("gives generic recipes that run in bash + jq after the guidance's F=<path>", () => {
    for (const s of samples.filter((x) => x.kind === "generic")) {
      const d = JSON.parse((s.result.content[0] as { text: string }).text) as {
        jq_recipes: Record<string, string> | { command: string }[];
      };
      const commands = Array.isArray(d.jq_recipes)
        ? d.jq_recipes.map((r) => r.command)
        : Object.values(d.jq_recipes);
      expect(commands.length, s.name).toBeGreaterThan(0);
      for (const command of commands) {
        const r = recipeBash(d, command.replaceAll("PATTERN", "e"));
        expect(r.code, `${s.name}: ${command}\n${r.stderr}`).toBe(0);
        expect(r.stdout.length, `${s.name}: ${command}`).toBeGreaterThan(0);
      }
    }
  });
});
