import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { insecureBindMessage } from "../../src/http/create-http-app.js";
import { loadHttpConfig } from "../../src/http/http-config.js";

describe("[server.http] configuration", () => {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-http-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "config.toml");
  writeFileSync(join(dir, "tokens"), "# team tokens\nfile-token-number-1\n\nfile-token-number-2\n");
  writeFileSync(
    file,
    '[server.http]\nhost = "0.0.0.0"\nport = 9000\ntoken_file = "tokens"\nallowed_hosts = "memory.internal, mem2"\n',
  );

  it("layers defaults < TOML < ATLATL_SERVER__HTTP__* < flags", () => {
    expect(loadHttpConfig(null, {})).toMatchObject({ host: "127.0.0.1", port: 8080, tokens: [] });
    const fromFile = loadHttpConfig(file, {});
    expect(fromFile).toMatchObject({
      host: "0.0.0.0",
      port: 9000,
      tokens: ["file-token-number-1", "file-token-number-2"],
      allowedHosts: ["memory.internal", "mem2"],
    });
    const fromEnv = loadHttpConfig(file, {
      ATLATL_SERVER__HTTP__PORT: "9100",
      ATLATL_SERVER__HTTP__TOKENS: "a,b",
    });
    expect(fromEnv.port).toBe(9100);
    expect(fromEnv.tokens).toEqual(["a", "b", "file-token-number-1", "file-token-number-2"]);
    expect(
      loadHttpConfig(file, { ATLATL_SERVER__HTTP__PORT: "9100" }, { port: 0, host: "127.0.0.1" }),
    ).toMatchObject({
      port: 0,
      host: "127.0.0.1",
    });
  });

  it("takes list settings as TOML arrays, and as comma-separated text (file or environment)", () => {
    const arrays = join(dir, "arrays.toml");
    writeFileSync(
      arrays,
      '[server.http]\nallowed_hosts = ["atlatl.internal", "mem2"]\n' +
        'tokens = ["array-token-number-1", "array-token-number-2"]\n' +
        'allowed_origins = ["https://dash.example.com"]\n',
    );
    expect(loadHttpConfig(arrays, {})).toMatchObject({
      allowedHosts: ["atlatl.internal", "mem2"],
      tokens: ["array-token-number-1", "array-token-number-2"],
      allowedOrigins: ["https://dash.example.com"],
    });
    // The environment stays comma-separated, and overrides the file's array.
    expect(
      loadHttpConfig(arrays, { ATLATL_SERVER__HTTP__ALLOWED_HOSTS: "a.internal, b.internal" })
        .allowedHosts,
    ).toEqual(["a.internal", "b.internal"]);
    const wrong = join(dir, "wrong.toml");
    writeFileSync(wrong, "[server.http]\nallowed_hosts = [1, 2]\n");
    expect(() => loadHttpConfig(wrong, {})).toThrow(
      /server\.http\.allowed_hosts.*array of strings/,
    );
  });

  it("never lists token values", () => {
    const config = loadHttpConfig(file, { ATLATL_SERVER__HTTP__TOKENS: "super-secret" });
    const listing = JSON.stringify(config.entries);
    expect(listing).not.toContain("super-secret");
    expect(listing).toContain("(1 tokens)");
  });

  it("names the key, value and source of a bad value", () => {
    expect(() => loadHttpConfig(null, { ATLATL_SERVER__HTTP__PORT: "70000" })).toThrow(
      /server\.http\.port.*70000.*ATLATL_SERVER__HTTP__PORT/,
    );
  });

  it("refuses a non-loopback address without a token, saying how to set one", () => {
    const open = loadHttpConfig(null, { ATLATL_SERVER__HTTP__HOST: "0.0.0.0" });
    expect(insecureBindMessage(open)).toMatch(/ATLATL_SERVER__HTTP__TOKENS/);
    expect(insecureBindMessage(loadHttpConfig(null, {}))).toBeUndefined();
    expect(insecureBindMessage(loadHttpConfig(file, {}))).toBeUndefined();
  });

  it("refuses a token shorter than 16 characters beyond loopback, naming it by position only", () => {
    const short = loadHttpConfig(file, {
      ATLATL_SERVER__HTTP__TOKENS: "0123456789abcdef,short-token",
    });
    const message = insecureBindMessage(short);
    expect(message).toMatch(/token 2 of 4 has 11 characters; .*at least 16/);
    expect(message).not.toContain("short-token");
    // 16 characters are enough; on loopback any token is.
    expect(
      insecureBindMessage(
        loadHttpConfig(file, { ATLATL_SERVER__HTTP__TOKENS: "0123456789abcdef" }),
      ),
    ).toBeUndefined();
    expect(
      insecureBindMessage(
        loadHttpConfig(file, { ATLATL_SERVER__HTTP__TOKENS: "short" }, { host: "127.0.0.1" }),
      ),
    ).toBeUndefined();
  });

  it("reads the session bounds from [server.http]", () => {
    expect(loadHttpConfig(null, {}).sessions).toEqual({
      maxPerToken: 64,
      maxTotal: 1024,
      idleMs: 900_000,
      resumeBytes: 1024 * 1024,
      proxyInlineBytes: 8 * 1024 * 1024,
    });
    const set = loadHttpConfig(null, {
      ATLATL_SERVER__HTTP__MAX_SESSIONS_PER_TOKEN: "3",
      ATLATL_SERVER__HTTP__SESSION_IDLE_SECONDS: "60",
    }).sessions;
    expect([set.maxPerToken, set.idleMs]).toEqual([3, 60_000]);
    expect(() => loadHttpConfig(null, { ATLATL_SERVER__HTTP__MAX_SESSIONS: "0" })).toThrow(
      /server\.http\.max_sessions/,
    );
  });

  it("keeps 2025-11-25 sessions unless legacy_sessions = false (TOML or environment)", () => {
    expect(loadHttpConfig(null, {}).legacySessions).toBe(true);
    const toml = join(dir, "stateless.toml");
    writeFileSync(toml, "[server.http]\nlegacy_sessions = false\n");
    expect(loadHttpConfig(toml, {}).legacySessions).toBe(false);
    expect(
      loadHttpConfig(null, { ATLATL_SERVER__HTTP__LEGACY_SESSIONS: "false" }).legacySessions,
    ).toBe(false);
    expect(() =>
      loadHttpConfig(null, { ATLATL_SERVER__HTTP__LEGACY_SESSIONS: "sometimes" }),
    ).toThrow(/server\.http\.legacy_sessions.*sometimes/);
  });
});
