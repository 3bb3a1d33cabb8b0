/** openApp: the resolved configuration reaches the LRO engine whole. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openApp } from "../../src/app/open-app.js";

const dir = mkdtempSync(join(tmpdir(), "atlatl-open-app-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("openApp", () => {
  it("passes an embedder's filePrefix through to the engine's file names", async () => {
    const app = await openApp({
      configFile: "",
      env: {},
      logEvents: false,
      dbPath: join(dir, "memories.db"),
      offload: { filePrefix: "embedded", outputDir: dir, thresholdTokens: 1 },
    });
    try {
      const records = Array.from({ length: 20 }, (_, i) => ({
        id: `m${i}`,
        content: "x".repeat(40),
      }));
      const r = await app.offloader.offloadRecords({
        operation: "recall",
        detail: "full",
        records,
      });
      if (r.kind !== "offloaded") throw new Error(`expected offload, got ${r.kind}`);
      expect(basename(r.file.path)).toMatch(/^embedded-recall-/);
    } finally {
      await app.close();
    }
  });
});
