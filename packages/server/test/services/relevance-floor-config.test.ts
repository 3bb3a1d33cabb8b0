/** `[recall] relevance_floor_percent`: defaults, file < environment, bounds; listed by `atlatl config`. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigValueError } from "@atlatl/lro/node";
import { afterAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/server-config.js";
import { DEFAULT_RELEVANCE_FLOOR_PERCENT } from "../../src/services/relevance-floor.js";

const dir = mkdtempSync(join(tmpdir(), "atlatl-recall-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("[recall] relevance_floor_percent", () => {
  it("defaults to the measured floor, listed with its variable", () => {
    const config = loadServerConfig({ configFile: "" }, {});
    expect(config.recall).toEqual({ relevanceFloorPercent: DEFAULT_RELEVANCE_FLOOR_PERCENT });
    expect(config.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          key: "recall.relevance_floor_percent",
          env: "ATLATL_RECALL__RELEVANCE_FLOOR_PERCENT",
          value: DEFAULT_RELEVANCE_FLOOR_PERCENT,
          source: "default",
        }),
      ]),
    );
  });

  it("takes the file's value, and the environment's over it", () => {
    const file = join(dir, "config.toml");
    writeFileSync(file, "[recall]\nrelevance_floor_percent = 35\n");
    expect(loadServerConfig({ configFile: file }, {}).recall.relevanceFloorPercent).toBe(35);
    const env = { ATLATL_RECALL__RELEVANCE_FLOOR_PERCENT: "0" };
    expect(loadServerConfig({ configFile: file }, env).recall.relevanceFloorPercent).toBe(0);
  });

  it("refuses a value outside 0 to 100, naming the key", () => {
    const env = { ATLATL_RECALL__RELEVANCE_FLOOR_PERCENT: "120" };
    expect(() => loadServerConfig({ configFile: "" }, env)).toThrow(ConfigValueError);
    expect(() => loadServerConfig({ configFile: "" }, env)).toThrow(
      /recall\.relevance_floor_percent/,
    );
  });
});
