/**
 * Registered under another name (a proxy does so when its upstream already has
 * an `lro_extract`), the extraction tool is the one every guidance names: the
 * memory and records descriptors and a re-offloaded extraction. Naming
 * `lro_extract` there would send the model to a tool that is not ours.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordsProfile } from "../../src/profiles/records/records-profile.js";
import { type ExtractHarness, startHarness } from "./harness.js";
import { makeMemories, projectMemory, writeOffloadFixture } from "./memory-fixtures.js";

const NAME = "docs_extract";
let h: ExtractHarness;

beforeAll(async () => {
  h = await startHarness({ toolName: NAME });
});
afterAll(async () => {
  await h?.close();
});

function guidanceOf(outcome: { kind: string; response?: unknown }): string {
  if (outcome.kind !== "offloaded") throw new Error(`expected an offload, got ${outcome.kind}`);
  return (outcome.response as { guidance: string }).guidance;
}

describe("a renamed extraction tool", () => {
  it("is named by the memory descriptor's guidance", async () => {
    const guidance = guidanceOf(
      await h.offloader.offloadRecords({
        operation: "recall",
        detail: "light",
        records: makeMemories(200, 3),
      }),
    );
    expect(guidance).toContain(`or \`${NAME}\` with file_path and recipe=N`);
    expect(guidance).not.toContain("lro_extract");
  });

  it("is named by the records descriptor's guidance", async () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ order: i, customer: `c${i % 7}` }));
    const guidance = guidanceOf(
      await h.offloader.offloadRecords({
        operation: "orders",
        profile: recordsProfile,
        records: rows,
      }),
    );
    expect(guidance).toContain(`\`${NAME}\`: file_path, recipe=N`);
    expect(guidance).not.toContain("lro_extract");
  });

  it("is named by a re-offloaded extraction's guidance, and answers there", async () => {
    const file = writeOffloadFixture(
      h.dir,
      makeMemories(120, 5).map((m) => projectMemory(m, "medium")),
      { detail: "medium" },
    ).path;
    const r = await h.call({ file_path: file, recipe: 8 });
    expect(r.isError, r.text).toBe(false);
    const descriptor = JSON.parse(r.text) as { offloaded: boolean; guidance: string };
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.guidance).toContain(`Without a shell: \`${NAME}\`(file_path=files.results`);
    expect(descriptor.guidance).not.toContain("lro_extract");
  });
});
