/**
 * The README's Claude Code snippet for the team server (`claude mcp add
 * --transport http ... --header "Authorization: Bearer ..."`) connects, beside
 * the `atlatl` entry `atlatl install claude-code` adds (the names differ): Claude
 * Code speaks 2025-11-25 (initialize, session), so this holds the legacy path
 * of `/mcp` to what a real client does; it also connects to an instance with
 * `legacy_sessions = false` (no session, what a balanced team server runs).
 * Claude Code's own CLI against real `atlatl serve --http` processes.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binPath } from "../e2e/spawn-server.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const README = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "README.md");

/** The name the README's `claude mcp add -s user --transport http NAME URL` gives the team server. */
const README_NAME = (() => {
  const m = /claude mcp add -s user --transport http (\S+) http/.exec(readFileSync(README, "utf8"));
  if (!m) throw new Error("README has no `claude mcp add -s user --transport http` command");
  return m[1] as string;
})();

/**
 * Claude Code's CLI: the npm package `@anthropic-ai/claude-code` that .ci/run installs
 * under `$ATLATL_CLAUDE_CODE_DIR` (default `~/.cache/atlatl-claude-code`), outside the workspace.
 */
const CLAUDE = (() => {
  const dir = process.env.ATLATL_CLAUDE_CODE_DIR ?? join(homedir(), ".cache", "atlatl-claude-code");
  const bin = join(dir, "node_modules", ".bin", "claude");
  return existsSync(bin) ? bin : undefined;
})();

const TOKEN = "claude-code-readme-token";

describe("atlatl serve --http: the README's Claude Code snippet", () => {
  let s: HttpServer;
  /** `legacy_sessions = false`: 2025-11-25 requests served statelessly (scale-out). */
  let stateless: HttpServer;
  let home: string;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "atlatl-claude-home-"));
    if (CLAUDE) {
      // A user who followed the README's "Try it in Claude Code" first.
      const installed = spawnSync(process.execPath, [binPath, "install", "claude-code"], {
        cwd: home,
        env: { PATH: process.env.PATH ?? "", HOME: home },
        encoding: "utf8",
      });
      expect(installed.status, installed.stderr).toBe(0);
      s = await startHttpServer({ tokens: TOKEN, seed: 20 });
      stateless = await startHttpServer({
        tokens: TOKEN,
        seed: 20,
        env: { ATLATL_SERVER__HTTP__LEGACY_SESSIONS: "false" },
      });
    }
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
    if (stateless) expect(await stateless.stop()).toBe(0);
    rmSync(home, { recursive: true, force: true });
  });

  /** The README's command (the token in place of $ATLATL_SERVER__HTTP__TOKENS), then `claude mcp list`. */
  function addAndList(name: string, server: HttpServer): string {
    expect(CLAUDE, "no Claude Code CLI (see .ci/run)").toBeDefined();
    const env = { PATH: process.env.PATH ?? "", HOME: home, ATLATL_TOKEN: TOKEN };
    const claude = (args: string[]) =>
      spawnSync(CLAUDE as string, args, { cwd: home, env, encoding: "utf8", timeout: 90_000 });
    const added = claude([
      "mcp",
      "add",
      "-s",
      "user",
      "--transport",
      "http",
      name,
      `${server.url}/mcp`,
      "--header",
      `Authorization: Bearer ${TOKEN}`,
    ]);
    expect(added.status, added.stdout + added.stderr).toBe(0);
    const listed = claude(["mcp", "list"]);
    return listed.stdout + listed.stderr;
  }

  // Claude Code is a capability of the machine (.ci/run installs it), so under CI it must be there.
  it.skipIf(!CLAUDE && !process.env.CI)(
    "adds the server as the README says and `claude mcp list` shows it connected",
    async () => {
      const out = addAndList(README_NAME, s);
      expect(out, out).toMatch(
        new RegExp(`^${README_NAME}: ${s.url}/mcp \\(HTTP\\) - .*Connected`, "m"),
      );
      // It reached /mcp with its token and was answered (the request log says so).
      await expect
        .poll(() => s.stderr())
        .toMatch(/"method":"POST","path":"\/mcp","status":200,"ms":[\d.]+,"token":"token-1"/);
    },
    120_000,
  );

  it.skipIf(!CLAUDE && !process.env.CI)(
    "connects to an instance with legacy_sessions = false (no session, as behind a balancer)",
    async () => {
      const out = addAndList("atlatl-stateless", stateless);
      expect(out, out).toMatch(
        new RegExp(`^atlatl-stateless: ${stateless.url}/mcp \\(HTTP\\) - .*Connected`, "m"),
      );
      await expect
        .poll(() => stateless.stderr())
        .toMatch(/"method":"POST","path":"\/mcp","status":200,"ms":[\d.]+,"token":"token-1"/);
    },
    120_000,
  );
});
