/** `[embeddings]`: off by default, the `ATLATL_EMBEDDINGS__*` variables, the key masked, what `url` requires. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/server-config.js";

const dir = mkdtempSync(join(tmpdir(), "atlatl-embeddings-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENV = {
  ATLATL_EMBEDDINGS__URL: "http://127.0.0.1:11434/v1/",
  ATLATL_EMBEDDINGS__MODEL: "nomic-embed-text",
  ATLATL_EMBEDDINGS__DIMENSIONS: "768",
  ATLATL_EMBEDDINGS__API_KEY: "sk-not-shown",
};

describe("[embeddings] configuration", () => {
  it("is off unless url is set", () => {
    expect(loadServerConfig({ configFile: "" }, {}).embeddings).toBeNull();
  });

  it("reads the ATLATL_EMBEDDINGS__ variables and masks the key in the listing", () => {
    const config = loadServerConfig({ configFile: "" }, ENV);
    expect(config.embeddings).toEqual({
      url: "http://127.0.0.1:11434/v1",
      model: "nomic-embed-text",
      dimensions: 768,
      apiKey: "sk-not-shown",
      timeoutMs: 10_000,
      batchSize: 64,
      minSimilarity: 0.5,
    });
    const listed = JSON.stringify(config.entries);
    expect(listed).not.toContain("sk-not-shown");
    const key = config.entries.find((e) => e.key === "embeddings.api_key");
    expect(key).toMatchObject({ value: "(set)", env: "ATLATL_EMBEDDINGS__API_KEY" });
  });

  it("reads the [embeddings] table of the TOML file, the environment over it", () => {
    const file = join(dir, "config.toml");
    writeFileSync(
      file,
      '[embeddings]\nurl = "http://gpu:8000/v1"\nmodel = "bge-small"\ndimensions = 384\ntimeout_seconds = 3\nmin_similarity_percent = 30\n',
    );
    const config = loadServerConfig({ configFile: file }, { ATLATL_EMBEDDINGS__DIMENSIONS: "512" });
    expect(config.embeddings).toMatchObject({
      url: "http://gpu:8000/v1",
      model: "bge-small",
      dimensions: 512,
      timeoutMs: 3000,
      minSimilarity: 0.3,
    });
  });

  it("with url, refuses a missing model or dimensions, naming the key", () => {
    const { ATLATL_EMBEDDINGS__MODEL: _m, ...noModel } = ENV;
    expect(() => loadServerConfig({ configFile: "" }, noModel)).toThrow(/embeddings\.model/);
    const { ATLATL_EMBEDDINGS__DIMENSIONS: _d, ...noDimensions } = ENV;
    expect(() => loadServerConfig({ configFile: "" }, noDimensions)).toThrow(
      /embeddings\.dimensions/,
    );
    expect(() =>
      loadServerConfig({ configFile: "" }, { ...ENV, ATLATL_EMBEDDINGS__URL: "127.0.0.1:11434" }),
    ).toThrow(/http\(s\):\/\/ URL/);
  });
});
