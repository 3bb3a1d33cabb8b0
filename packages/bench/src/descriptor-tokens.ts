/**
 * Descriptor cost in real tokens (`npm run bench descriptor-tokens`): every
 * kind of descriptor the engine makes, as the model receives it, in o200k
 * tokens (`gpt-tokenizer`) beside the specification's chars/4; and atlatl's
 * first tool_result in each offloaded `token-economy` scenario, as Claude
 * Code and Codex receive it, against the issue's bounds. Deterministic: the
 * samples and their budgets are the engine test's
 * (`packages/lro/test/fixtures/descriptor-samples.ts`), the scenarios' the
 * bench test's (`test/descriptor-budgets.test.ts`).
 */
import {
  DESCRIPTOR_BUDGETS,
  descriptorSamples,
  SAMPLE_OUTPUT_DIR,
} from "../../lro/test/fixtures/descriptor-samples.js";
import { atMost, type Benchmark } from "./harness.js";
import { scenarioDescriptors } from "./token-economy-descriptors.js";

/** The benchmark. */
export const descriptorTokensBenchmark: Benchmark = {
  name: "descriptor-tokens",
  async run() {
    const samples = await descriptorSamples();
    const scenarios = await scenarioDescriptors();
    return [
      {
        name: "descriptor-tokens",
        title: `Descriptors as the model receives them (o200k tokens; output dir ${SAMPLE_OUTPUT_DIR})`,
        rows: samples.map((s) =>
          atMost(
            s.name,
            s.o200k,
            "o200k tokens",
            DESCRIPTOR_BUDGETS[s.kind],
            `chars/4: ${s.chars4}; descriptor alone (no links): ${s.descriptorO200k} o200k`,
          ),
        ),
        details: Object.fromEntries(
          samples.map((s) => [
            s.name,
            {
              o200k: s.o200k,
              descriptorO200k: s.descriptorO200k,
              chars4: s.chars4,
              chars: s.text.length,
            },
          ]),
        ),
      },
      {
        name: "descriptor-tokens-scenarios",
        title: `token-economy scenarios: atlatl's first tool_result as each CLI receives it (o200k tokens; output dir ${SAMPLE_OUTPUT_DIR})`,
        rows: scenarios.map((d) =>
          atMost(
            `${d.scenario}, ${d.client}`,
            d.o200k,
            "o200k tokens",
            d.max,
            `chars/4: ${d.chars4}`,
          ),
        ),
        details: Object.fromEntries(
          scenarios.map((d) => [`${d.scenario}, ${d.client}`, { text: d.text }]),
        ),
      },
    ];
  },
};
