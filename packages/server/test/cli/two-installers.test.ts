/**
 * `atlatl install` and `atlatl-proxy install` edit the same config files: each
 * uninstall undoes exactly its own change. Both built bins run as a user runs
 * them, in both orders, on files with comments and CRLF line endings, with a
 * user's edit in between (a token rotated inside a wrapped entry) and Claude
 * Code rewriting its settings file; the shared offload-directory grant stays
 * while either installer still uses it. Claude Code's own CLI reads the result.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ParseError, parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import { binPath } from "../e2e/spawn-server.js";

const PROXY_BIN = fileURLToPath(new URL("../../../proxy/bin/atlatl-proxy.js", import.meta.url));
const ENV_SERVER = fileURLToPath(
  new URL("../../../proxy/test/fixtures/env-server.mjs", import.meta.url),
);
const CLAUDE = (() => {
  const dir = process.env.ATLATL_CLAUDE_CODE_DIR ?? join(homedir(), ".cache", "atlatl-claude-code");
  const bin = join(dir, "node_modules", ".bin", "claude");
  return existsSync(bin) ? bin : undefined;
})();

const node = JSON.stringify(process.execPath);
const fixture = JSON.stringify(ENV_SERVER);
const crlf = (text: string) => text.replace(/\n/g, "\r\n");

/** Each client's file (relative to HOME), in CRLF, with comments where its format has them. */
const ORIGINALS: Record<string, string> = {
  ".claude.json": crlf(`{
  "numStartups": 4,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": ${node},
      "args": [${fixture}],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_old", "FIXTURE_TOKEN": "t" }
    },
    "remote": { "type": "http", "url": "https://example.com/mcp", "headers": { "X-Team": "core" } }
  }
}
`),
  ".gemini/settings.json": crlf(`{
  // Gemini CLI
  "theme": "Default",
  "mcpServers": {
    // the GitHub server
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_old" }
    }
  }
}
`),
  ".codex/config.toml": crlf(`# Codex settings
model = "gpt-5" # the default model

[mcp_servers.github]
# the GitHub server
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { "GITHUB_PERSONAL_ACCESS_TOKEN" = "ghp_old" }
`),
};
const CLIENTS: Record<string, string> = {
  ".claude.json": "claude-code",
  ".gemini/settings.json": "gemini",
  ".codex/config.toml": "codex",
};
const COMMENTS: Record<string, string[]> = {
  ".claude.json": [],
  ".gemini/settings.json": ["// Gemini CLI", "// the GitHub server"],
  ".codex/config.toml": ["# Codex settings", "# the default model", "# the GitHub server"],
};

type Doc = Record<string, unknown>;

function parse(file: string, text: string): Doc {
  if (file.endsWith(".toml")) return parseToml(text) as Doc;
  const errors: ParseError[] = [];
  const doc = parseJsonc(text, errors, { allowTrailingComma: true }) as Doc;
  expect(errors).toEqual([]);
  return doc;
}

function servers(file: string, doc: Doc): Record<string, Doc> {
  return (file.endsWith(".toml") ? doc.mcp_servers : doc.mcpServers) as Record<string, Doc>;
}

/** The user's edit: a rotated token, inside the wrapped entry once the proxy is in. */
const rotate = (text: string) => text.replace("ghp_old", "ghp_new");

let home = "";
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

function setUp(): void {
  home = mkdtempSync(join(tmpdir(), "atlatl-two-installers-"));
  for (const [file, text] of Object.entries(ORIGINALS)) {
    mkdirSync(dirname(join(home, file)), { recursive: true });
    writeFileSync(join(home, file), text);
  }
}

type Tool = "atlatl" | "atlatl-proxy";

/** `tool action` for every client, each as the built bin runs; the joined output. */
function runAll(tool: Tool, action: "install" | "uninstall"): string {
  let out = "";
  for (const client of Object.values(CLIENTS)) {
    const bin = tool === "atlatl" ? binPath : PROXY_BIN;
    const r = spawnSync(process.execPath, [bin, action, client], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home },
      encoding: "utf8",
    });
    expect(r.status, `${tool} ${action} ${client}: ${r.stderr}`).toBe(0);
    out += r.stdout;
  }
  return out;
}

function read(file: string): string {
  return readFileSync(join(home, file), "utf8");
}

const SETTINGS = ".claude/settings.json";

function grantedDirs(): string[] {
  const doc = JSON.parse(read(SETTINGS)) as { permissions?: { additionalDirectories?: string[] } };
  return doc.permissions?.additionalDirectories ?? [];
}

/** Formatting the installers must keep: every comment, CRLF throughout. */
function expectFormatKept(file: string, text: string): void {
  for (const comment of COMMENTS[file] ?? []) expect(text, file).toContain(comment);
  expect(text.replace(/\r\n/g, ""), `${file}: a bare LF`).not.toContain("\n");
}

describe("atlatl install and atlatl-proxy install on the same files", () => {
  const ORDERS = [
    ["atlatl", "atlatl-proxy"],
    ["atlatl-proxy", "atlatl"],
  ] as const;

  for (const [first, second] of ORDERS) {
    it(`${first} install, ${second} install, then uninstalled in the reverse order: each gives back the bytes from before its install`, () => {
      setUp();
      runAll(first, "install");
      const firstOnly = Object.fromEntries(Object.keys(ORIGINALS).map((f) => [f, read(f)]));
      const grant = read(SETTINGS);
      runAll(second, "install");
      expect(read(SETTINGS)).toBe(grant);
      const out = runAll(second, "uninstall");
      expect(out).toContain("put back the bytes from before");
      for (const file of Object.keys(ORIGINALS)) expect(read(file), file).toBe(firstOnly[file]);
      expect(read(SETTINGS)).toBe(grant);
      const last = runAll(first, "uninstall");
      for (const file of Object.keys(ORIGINALS)) expect(read(file), file).toBe(ORIGINALS[file]);
      expect(existsSync(join(home, SETTINGS))).toBe(false);
      expect(last).toContain(`removed ${join(home, SETTINGS)} (backup: `);
    }, 120_000);
  }

  it("the settings file atlatl-proxy install created goes with atlatl uninstall, after atlatl-proxy uninstall kept it", () => {
    setUp();
    runAll("atlatl-proxy", "install");
    runAll("atlatl", "install");
    expect(runAll("atlatl-proxy", "uninstall")).toContain("(atlatl still uses it)");
    expect(existsSync(join(home, SETTINGS))).toBe(true);
    runAll("atlatl", "uninstall");
    expect(existsSync(join(home, SETTINGS))).toBe(false);
  }, 120_000);

  for (const [first, second] of ORDERS) {
    for (const [out1, out2] of ORDERS) {
      it(`${first} install, ${second} install, a user's edit, ${out1} uninstall, ${out2} uninstall: each undoes exactly its own change`, () => {
        setUp();
        runAll(first, "install");
        const dir = grantedDirs()[0] as string;
        expect(dir).toMatch(/atlatl-/);
        runAll(second, "install");
        // The user rotates the token (inside the wrapped entry now) and Claude Code rewrites its settings.
        for (const file of Object.keys(ORIGINALS)) {
          writeFileSync(join(home, file), rotate(read(file)));
        }
        const settings = JSON.parse(read(SETTINGS)) as Doc;
        writeFileSync(
          join(home, SETTINGS),
          JSON.stringify({ model: "opus", ...settings }, null, 2),
        );
        const both = Object.fromEntries(Object.keys(ORIGINALS).map((f) => [f, parse(f, read(f))]));
        const edited = Object.fromEntries(
          Object.entries(ORIGINALS).map(([f, text]) => [f, parse(f, rotate(text))]),
        );

        /** The server's change is its `atlatl` entry; the proxy's, every other entry as wrapped. */
        const changeOf = (tool: Tool, file: string) => {
          const { atlatl, ...wrapped } = servers(file, both[file] as Doc);
          return tool === "atlatl" ? { atlatl } : wrapped;
        };
        const withServers = (file: string, entries: Record<string, unknown>) => {
          const doc = structuredClone(edited[file] as Doc);
          Object.assign(servers(file, doc), entries);
          return doc;
        };

        const out = runAll(out1, "uninstall");
        for (const file of Object.keys(ORIGINALS)) {
          const text = read(file);
          expectFormatKept(file, text);
          expect(parse(file, text), `${file} after ${out1} uninstall`).toEqual(
            withServers(file, changeOf(out2, file)),
          );
        }
        expect(grantedDirs()).toEqual([dir]);
        expect(out).toContain(
          `kept permissions.additionalDirectories ${dir} (${out2} still uses it)`,
        );
        expect(JSON.parse(read(SETTINGS)).model).toBe("opus");

        runAll(out2, "uninstall");
        for (const file of Object.keys(ORIGINALS)) {
          const text = read(file);
          expectFormatKept(file, text);
          expect(parse(file, text), `${file} after both uninstalls`).toEqual(edited[file]);
        }
        expect(JSON.parse(read(SETTINGS))).toEqual({ model: "opus" });
      }, 120_000);
    }
  }

  // Claude Code is a capability of the machine (.ci/run installs it), so under CI it must be there.
  it.skipIf(!CLAUDE && !process.env.CI)(
    "Claude Code's `claude mcp list` reads both installers' entries, and the server's alone after the proxy's uninstall",
    () => {
      expect(CLAUDE, "no Claude Code CLI (see .ci/run)").toBeDefined();
      setUp();
      const list = () => {
        const r = spawnSync(CLAUDE as string, ["mcp", "list"], {
          cwd: home,
          env: { PATH: process.env.PATH ?? "", HOME: home },
          encoding: "utf8",
          timeout: 90_000,
        });
        return r.stdout + r.stderr;
      };
      runAll("atlatl", "install");
      runAll("atlatl-proxy", "install");
      writeFileSync(join(home, ".claude.json"), rotate(read(".claude.json")));
      let out = list();
      expect(out, out).toMatch(/^github: .*atlatl-proxy\.js.*Connected/m);
      expect(out, out).toMatch(/^atlatl: .*atlatl\.js serve.*Connected/m);
      runAll("atlatl-proxy", "uninstall");
      out = list();
      expect(out, out).toMatch(/^github: .*env-server\.mjs.*Connected/m);
      expect(out, out).toMatch(/^atlatl: .*atlatl\.js serve.*Connected/m);
      const github = servers(".claude.json", parse(".claude.json", read(".claude.json"))).github;
      expect(github?.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_new", FIXTURE_TOKEN: "t" });
    },
    240_000,
  );
});
