/**
 * The tokenizer costs ~0.4 s to load: Latin-script results must never load it;
 * the first CJK line does. (Each test file runs in its own module registry.)
 */
import { expect, it } from "vitest";
import { estimateTokens, isTokenizerLoaded } from "../src/estimate/estimate.js";
import { Offloader } from "../src/node.js";
import { recordingEvents, tempDir } from "./fixtures/helpers.js";
import { makeMemories } from "./fixtures/memory-records.js";

it("loads the tokenizer only when non-Latin text appears", async () => {
  const t = tempDir();
  try {
    const { events } = recordingEvents();
    const o = new Offloader({
      config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 60, outputDir: t.dir },
      events,
    });
    const latin = await o.offloadRecords({
      operation: "recall",
      detail: "full",
      records: makeMemories(300),
    });
    expect(latin.kind).toBe("offloaded");
    expect(await estimateTokens("Plain English, accents (café) and arrows →")).toBeGreaterThan(0);
    expect(isTokenizerLoaded()).toBe(false);

    const cjk = await o.offloadRecords({
      operation: "recall",
      detail: "light",
      records: [{ id: "1", title: "日本語のタイトル", namespace: "n", tags: [] }],
    });
    expect(cjk.kind).toBe("inline");
    expect(isTokenizerLoaded()).toBe(true);
  } finally {
    t.cleanup();
  }
});
