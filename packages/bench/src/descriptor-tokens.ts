/**
 * Descriptor cost in real tokens (`npm run bench descriptor-tokens`): every
 * kind of descriptor the engine makes, as the model receives it, in o200k
 * tokens (`gpt-tokenizer`) beside the specification's chars/4. Deterministic:
 * the samples and their budgets are the engine test's
 * (`packages/lro/test/fixtures/descriptor-samples.ts`).
 */
import {
  DESCRIPTOR_BUDGETS,
  descriptorSamples,
  SAMPLE_OUTPUT_DIR,
} from "../../lro/test/fixtures/descriptor-samples.js";
import { atMost, type Benchmark } from "./harness.js";

/** The benchmark. */
export const descriptorTokensBenchmark: Benchmark = {
  name: "descriptor-tokens",
  async run() {
    const samples = await descriptorSamples();
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
    ];
  },
};
