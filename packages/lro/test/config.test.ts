/**
 * `[prompt.offload]` resolution: defaults < TOML file < `ATLATL_*` env < options,
 * with per-key provenance, and errors that name the key, value and source.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigValueError, configEnvName, isLroError, resolveConfigSection } from "../src/index.js";
import { loadOffloadConfig } from "../src/node.js";
import { tempDir } from "./fixtures/helpers.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function toml(text: string): string {
  const t = tempDir("lro-config-");
  cleanups.push(t.cleanup);
  const file = join(t.dir, "atlatl.toml");
  writeFileSync(file, text);
  return file;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("loadOffloadConfig", () => {
  it("has the specification's defaults (output_dir = {temp dir}/atlatl-{uid})", () => {
    const c = loadOffloadConfig({ env: {} });
    expect({ ...c, sources: undefined, entries: undefined }).toEqual({
      enabled: true,
      thresholdTokens: 1600,
      ttlSeconds: 3600,
      outputDir: join(tmpdir(), `atlatl-${process.getuid?.()}`),
      maxRecords: 100_000,
      extractTool: "auto",
      sources: undefined,
      entries: undefined,
    });
    expect(Object.values(c.sources)).toEqual([
      "default",
      "default",
      "default",
      "default",
      "default",
      "default",
    ]);
  });

  it("layers file < env < options, keeping where each value came from", () => {
    const file = toml(`
[prompt.offload]
enabled = false
threshold_tokens = 3200
ttl_seconds = 60
output_dir = "offload-files"
max_records = 500

[store]
path = "/elsewhere.db"
`);
    const c = loadOffloadConfig({
      configFile: file,
      env: {
        ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS: "800",
        ATLATL_PROMPT__OFFLOAD__TTL_SECONDS: "120",
        ATLATL_PROMPT__OFFLOAD__MAX_RECORDS: "250",
        ATLATL_UNRELATED: "x",
      },
      overrides: { ttlSeconds: 30 },
    });
    expect(c).toMatchObject({
      enabled: false,
      thresholdTokens: 800,
      ttlSeconds: 30,
      // A relative path in the file is relative to the file.
      outputDir: join(resolve(file, ".."), "offload-files"),
      maxRecords: 250,
    });
    expect(c.sources).toEqual({
      enabled: `file ${file}`,
      thresholdTokens: "env ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS",
      ttlSeconds: "option",
      outputDir: `file ${file}`,
      maxRecords: "env ATLATL_PROMPT__OFFLOAD__MAX_RECORDS",
      extractTool: "default",
    });
    expect(c.entries.map((e) => [e.key, e.env, e.source])).toEqual([
      ["prompt.offload.enabled", "ATLATL_PROMPT__OFFLOAD__ENABLED", `file ${file}`],
      [
        "prompt.offload.threshold_tokens",
        "ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS",
        "env ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS",
      ],
      ["prompt.offload.ttl_seconds", "ATLATL_PROMPT__OFFLOAD__TTL_SECONDS", "option"],
      ["prompt.offload.output_dir", "ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR", `file ${file}`],
      [
        "prompt.offload.max_records",
        "ATLATL_PROMPT__OFFLOAD__MAX_RECORDS",
        "env ATLATL_PROMPT__OFFLOAD__MAX_RECORDS",
      ],
      ["prompt.offload.extract_tool", "ATLATL_PROMPT__OFFLOAD__EXTRACT_TOOL", "default"],
    ]);
  });

  it("parses environment booleans and treats an empty output_dir as the default private dir", () => {
    for (const [raw, value] of [
      ["false", false],
      ["0", false],
      ["OFF", false],
      ["yes", true],
      ["True", true],
    ] as const) {
      expect(loadOffloadConfig({ env: { ATLATL_PROMPT__OFFLOAD__ENABLED: raw } }).enabled).toBe(
        value,
      );
    }
    const c = loadOffloadConfig({ env: { ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: "" } });
    expect(c.outputDir).toBe(join(tmpdir(), `atlatl-${process.getuid?.()}`));
    expect(c.sources.outputDir).toBe("env ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR");
  });

  it("rejects a bad env value naming key, value and source", () => {
    const err = thrown(() =>
      loadOffloadConfig({ env: { ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS: "lots" } }),
    );
    expect(err).toBeInstanceOf(ConfigValueError);
    expect(isLroError(err, "CONFIG_INVALID")).toBe(true);
    const e = err as ConfigValueError;
    expect(e.key).toBe("prompt.offload.threshold_tokens");
    expect(e.value).toBe("lots");
    expect(e.source).toBe("env ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS");
    expect(e.message).toBe(
      'invalid value for prompt.offload.threshold_tokens: "lots" (from env ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS); expected an integer between 1 and 4294967295',
    );
  });

  it("rejects bad file values (wrong TOML type, out of range) naming the file", () => {
    const file = toml('[prompt.offload]\nthreshold_tokens = "1600"\n');
    const e1 = thrown(() => loadOffloadConfig({ configFile: file, env: {} })) as ConfigValueError;
    expect(e1.message).toContain('prompt.offload.threshold_tokens: "1600"');
    expect(e1.message).toContain(`from file ${file}`);

    const file2 = toml("[prompt.offload]\nttl_seconds = 0\nenabled = 1\n");
    const e2 = thrown(() => loadOffloadConfig({ configFile: file2, env: {} })) as ConfigValueError;
    expect(e2.key).toBe("prompt.offload.enabled");
    expect(e2.value).toBe(1);

    const file3 = toml("[prompt.offload]\nttl_seconds = -5\n");
    const e3 = thrown(() => loadOffloadConfig({ configFile: file3, env: {} })) as ConfigValueError;
    expect(e3.message).toContain("prompt.offload.ttl_seconds: -5");
    expect(e3.message).toContain("expected an integer >= 1");
  });

  it("rejects a bad option and an unknown key in the section (a typo must not pass silently)", () => {
    const e = thrown(() => loadOffloadConfig({ env: {}, overrides: { thresholdTokens: 1.5 } }));
    expect((e as ConfigValueError).source).toBe("option");
    expect((e as Error).message).toContain("prompt.offload.threshold_tokens: 1.5 (from option)");

    const file = toml("[prompt.offload]\ntreshold_tokens = 10\n");
    const e2 = thrown(() => loadOffloadConfig({ configFile: file, env: {} })) as Error;
    expect(isLroError(e2, "CONFIG_INVALID")).toBe(true);
    expect(e2.message).toContain("unknown key prompt.offload.treshold_tokens");
    expect(e2.message).toContain(file);
  });

  it("names the file when it is missing or not valid TOML", () => {
    const t = tempDir("lro-config-");
    cleanups.push(t.cleanup);
    const missing = join(t.dir, "nope.toml");
    expect(() => loadOffloadConfig({ configFile: missing, env: {} })).toThrow(
      `cannot read config file ${missing}`,
    );
    const bad = join(t.dir, "bad.toml");
    mkdirSync(t.dir, { recursive: true });
    writeFileSync(bad, "[prompt.offload\nenabled = ");
    expect(() => loadOffloadConfig({ configFile: bad, env: {} })).toThrow(
      `cannot parse config file ${bad}`,
    );
  });
});

describe("resolveConfigSection (generic, reused by the server)", () => {
  it("resolves another section with the same layering and provenance", () => {
    const keys = {
      path: { type: "string", default: "/default.db" },
      pool: { type: "integer", min: 1, max: 64, default: 4 },
    } as const;
    const r = resolveConfigSection({
      section: "store",
      keys,
      file: { path: "/etc/atlatl.toml", data: { store: { path: "/from-file.db", pool: 8 } } },
      env: { ATLATL_STORE__PATH: "/from-env.db" },
    });
    expect(r.values).toEqual({ path: "/from-env.db", pool: 8 });
    expect(r.sources).toEqual({ path: "env ATLATL_STORE__PATH", pool: "file /etc/atlatl.toml" });
    expect(configEnvName("store", "path")).toBe("ATLATL_STORE__PATH");
    expect(() =>
      resolveConfigSection({ section: "store", keys, env: { ATLATL_STORE__POOL: "65" } }),
    ).toThrow(
      'invalid value for store.pool: "65" (from env ATLATL_STORE__POOL); expected an integer between 1 and 64',
    );
  });

  it("rejects a section that is not a table", () => {
    expect(() =>
      resolveConfigSection({
        section: "store",
        keys: { path: { type: "string", default: "" } },
        file: { path: "/x.toml", data: { store: "oops" } },
      }),
    ).toThrow("invalid value for store");
  });
});
