/**
 * `atlatl-proxy install|uninstall <client>` on a throw-away HOME holding a config
 * for every client (entries with env, HTTP entries with a header, comments in
 * the JSONC and TOML ones), through the built bin as a user runs it: a dry run
 * writes nothing; install wraps every server (the project's `.mcp.json` only
 * with --project, by `atlatl-proxy` from PATH) and each file still parses in its
 * client's format; installing again changes nothing; uninstall gives the bytes
 * back, or keeps what changed since; backups stay in the state folder, bounded. Then the wrapped Claude Code entries are started, as Claude Code starts
 * them, by the SDK's real client, and list the fixture servers' tools.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type ParseError, parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKUPS_KEPT } from "../src/install/backups.js";
import { fileStateDir } from "../src/install/state-dir.js";
import { readWrappedCommandLine } from "../src/install/wrap-rule.js";
import { CLAUDE, CLAUDE_INSTALL, FIXTURES, tempDir } from "./helpers.js";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "atlatl-proxy.js");
const ENV_SERVER = join(FIXTURES, "env-server.mjs");
const node = JSON.stringify(process.execPath);
const envServer = JSON.stringify(ENV_SERVER);

const home = tempDir("atlatl-install-home-");
/** Where the installers keep records and backups under HOME (XDG_STATE_HOME unset). */
const STATE = join(".local", "state", "atlatl", "install");
const project = join(home.dir, "project");
const children: ChildProcess[] = [];
let httpUrl = "";

afterAll(() => {
  for (const c of children) c.kill();
  home.remove();
});

/** The HTTP fixture (requires `x-test-token: secret`), its URL. */
async function startHttpFixture(): Promise<string> {
  const child = spawn(process.execPath, [join(FIXTURES, "http-server.mjs"), "streamable"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const [chunk] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return `http://127.0.0.1:${chunk.toString().trim()}/mcp`;
}

/** Each client's config file (relative to HOME) and its text. */
function configs(url: string): Record<string, string> {
  return {
    ".claude.json": `{
  "numStartups": 4,
  "mcpServers": {
    "tokens": {
      "type": "stdio",
      "command": ${node},
      "args": [${envServer}],
      "env": { "FIXTURE_TOKEN": "from-config" }
    },
    "remote": {
      "type": "http",
      "url": "${url}",
      "headers": { "x-test-token": "\${FIXTURE_HTTP_TOKEN}" }
    }
  },
  "projects": {
    "${project}": {
      "allowedTools": [],
      "mcpServers": { "local": { "type": "stdio", "command": "uvx", "args": ["mcp-server-git"], "env": {} } }
    }
  }
}
`,
    "project/.mcp.json": `{
  "mcpServers": {
    "shared": { "command": "npx", "args": ["-y", "some-mcp-server"], "env": { "LEVEL": "debug" } }
  }
}
`,
    ".config/Claude/claude_desktop_config.json": `{
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] }
  },
  "globalShortcut": ""
}
`,
    ".cursor/mcp.json": `{
  "mcpServers": {
    "db": { "command": "db-mcp", "args": [], "env": { "DB_URL": "\${env:DB_URL}" } },
    "docs": { "url": "https://docs.example.com/mcp", "headers": { "Authorization": "Bearer \${env:DOCS_TOKEN}" } }
  }
}
`,
    ".config/Code/User/mcp.json": `// VS Code's user MCP servers
{
  "servers": {
    // the git server
    "git": { "type": "stdio", "command": "uvx", "args": ["mcp-server-git"] },
    "api": {
      "type": "http",
      "url": "https://api.example.com/mcp",
      "headers": { "X-Key": "\${input:api-key}" }, // prompted once
    },
  },
  "inputs": [{ "type": "promptString", "id": "api-key", "password": true }]
}
`,
    ".codeium/windsurf/mcp_config.json": `{
  "mcpServers": {
    "search": { "serverUrl": "https://search.example.com/mcp", "headers": { "X-Team": "core" } },
    "local": { "command": "python", "args": ["-m", "server"], "disabled": false }
  }
}
`,
    ".codex/config.toml": `# Codex settings
model = "gpt-5" # the default model

[mcp_servers.files]
# reads the project
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
env = { "LOG" = "1" }

[mcp_servers.tracker]
url = "https://tracker.example.com/mcp"
bearer_token_env_var = "TRACKER_TOKEN"
http_headers = { "X-Org" = "acme" }

[profiles.fast]
model = "gpt-5-mini"
`,
    ".gemini/settings.json": `{
  // Gemini CLI
  "theme": "Default",
  "mcpServers": {
    "weather": { "command": "weather-mcp", "env": { "API_KEY": "$WEATHER_KEY" }, "timeout": 30000 },
    "stream": { "httpUrl": "https://stream.example.com/mcp", "headers": { "Authorization": "Bearer $TOKEN" } }
  }
}
`,
  };
}

const CLIENTS = [
  "claude-code",
  "claude-desktop",
  "cursor",
  "vscode",
  "windsurf",
  "codex",
  "gemini",
] as const;

/** Every file under HOME and its bytes. */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(home.dir, path)] = readFileSync(path, "utf8");
    }
  };
  walk(home.dir);
  return out;
}

/** The files outside the installers' state folder (records and backups). */
function configFiles(snap: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(snap).filter(([k]) => !k.startsWith(STATE)));
}

/** Run the built bin with this HOME, from the project directory. */
function proxyCli(...args: string[]) {
  return proxyCliWith({}, ...args);
}

/** Run the built bin with this HOME and more environment, from the project directory. */
function proxyCliWith(more: Record<string, string>, ...args: string[]) {
  return runProxyCli(home.dir, project, more, args);
}

/** Run the built bin with `homeDir` as HOME, from `cwd`. */
function proxyCliIn(homeDir: string, cwd: string, ...args: string[]) {
  return runProxyCli(homeDir, cwd, {}, args);
}

function runProxyCli(homeDir: string, cwd: string, more: Record<string, string>, args: string[]) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: homeDir, ...more };
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The server tables of each file, parsed by an independent parser of that format. */
function serverTables(file: string, text: string): Record<string, Record<string, unknown>>[] {
  if (file.endsWith(".toml")) {
    return [parseToml(text).mcp_servers as Record<string, Record<string, unknown>>];
  }
  let doc: Record<string, unknown>;
  if (file.endsWith("mcp.json") && file.includes("Code")) {
    doc = strictJsonc(text);
  } else if (file.endsWith("settings.json") && file.startsWith(".gemini")) {
    doc = strictJsonc(text);
  } else {
    doc = JSON.parse(text) as Record<string, unknown>;
  }
  const tables = [doc.mcpServers ?? doc.servers];
  const projects = (doc.projects ?? {}) as Record<string, { mcpServers?: unknown }>;
  for (const p of Object.values(projects)) if (p.mcpServers) tables.push(p.mcpServers);
  return tables as Record<string, Record<string, unknown>>[];
}

function strictJsonc(text: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const doc = parseJsonc(text, errors, { allowTrailingComma: true });
  expect(errors).toEqual([]);
  return doc as Record<string, unknown>;
}

describe("atlatl-proxy install|uninstall <client>", () => {
  let original: Record<string, string> = {};

  beforeAll(async () => {
    httpUrl = await startHttpFixture();
    for (const [file, text] of Object.entries(configs(httpUrl))) {
      mkdirSync(dirname(join(home.dir, file)), { recursive: true });
      writeFileSync(join(home.dir, file), text);
    }
    original = snapshot();
  });

  it("--dry-run prints a diff for each client and writes nothing", () => {
    for (const client of CLIENTS) {
      const r = proxyCli("install", client, "--dry-run");
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^\+.*atlatl-proxy\.js/m);
      expect(snapshot()).toEqual(original);
    }
  });

  it("install wraps every server, keeps every file valid in its format, and again changes nothing; uninstall restores the bytes", () => {
    for (const client of CLIENTS) {
      const r = proxyCli("install", client, ...(client === "claude-code" ? ["--project"] : []));
      expect(r.status, r.stderr).toBe(0);
    }
    const installed = snapshot();
    const files = configFiles(installed);
    let wrapped = 0;
    for (const file of Object.keys(configs(httpUrl))) {
      for (const table of serverTables(file, files[file] as string)) {
        for (const [name, entry] of Object.entries(table)) {
          const line = readWrappedCommandLine(entry.command, entry.args);
          expect(line, `${file} ${name}`).toBeDefined();
          for (const key of ["url", "serverUrl", "httpUrl", "headers", "http_headers"]) {
            expect(entry[key], `${file} ${name} ${key}`).toBeUndefined();
          }
          wrapped++;
        }
      }
    }
    expect(wrapped).toBe(15);
    // The project's shared file names the proxy by name, no path of this machine.
    const shared = JSON.parse(files["project/.mcp.json"] as string).mcpServers.shared;
    expect(shared.command).toBe("atlatl-proxy");
    expect(JSON.stringify(shared)).not.toContain(home.dir);
    expect(JSON.stringify(shared)).not.toContain(process.execPath);
    // Nor this machine's offload directory: each machine's proxy uses its own default.
    expect(shared.args).not.toContain("--output-dir");
    // Comments, untouched keys and other tables survive.
    expect(files[".config/Code/User/mcp.json"]).toContain("// the git server");
    expect(files[".codex/config.toml"]).toContain("# reads the project");
    expect(files[".codex/config.toml"]).toContain('[profiles.fast]\nmodel = "gpt-5-mini"');
    expect(files[".gemini/settings.json"]).toContain("// Gemini CLI");
    // Secrets stay references: never expanded into the arguments.
    expect(files[".claude.json"]).toContain(`"x-test-token: \${FIXTURE_HTTP_TOKEN}"`);
    expect(files[".codex/config.toml"]).toContain(`Authorization: Bearer \${TRACKER_TOKEN}`);
    expect(parseToml(files[".codex/config.toml"] as string)).toMatchObject({
      mcp_servers: { tracker: { env_vars: ["TRACKER_TOKEN"] } },
    });
    // Claude Code may read the offload directory.
    expect(JSON.parse(files[".claude/settings.json"] as string)).toMatchObject({
      permissions: { additionalDirectories: [expect.stringMatching(/atlatl-/)] },
    });

    for (const client of CLIENTS) {
      const r = proxyCli("install", client, ...(client === "claude-code" ? ["--project"] : []));
      expect(r.status).toBe(0);
    }
    expect(snapshot()).toEqual(installed);

    for (const client of CLIENTS) {
      const r = proxyCli("uninstall", client);
      expect(r.status, r.stderr).toBe(0);
    }
    expect(configFiles(snapshot())).toEqual(configFiles(original));
  });

  it("uninstall after another change unwraps only our entries and keeps the change", () => {
    expect(proxyCli("install", "cursor").status).toBe(0);
    const path = join(home.dir, ".cursor", "mcp.json");
    const text = readFileSync(path, "utf8").replace(
      '"mcpServers": {',
      '"mcpServers": {\n    "added": { "command": "new-server" },',
    );
    writeFileSync(path, text);
    expect(proxyCli("uninstall", "cursor").status).toBe(0);
    const back = JSON.parse(readFileSync(path, "utf8"));
    const before = JSON.parse(original[".cursor/mcp.json"] as string);
    expect(back).toEqual({
      mcpServers: { added: { command: "new-server" }, ...before.mcpServers },
    });
  });

  it("uninstall keeps what the user changed inside a wrapped entry since install (a rotated token, another directory)", () => {
    const path = join(home.dir, "rotate.json");
    const text = `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_old" }
    },
    "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/src"] }
  }
}
`;
    writeFileSync(path, text);
    expect(proxyCli("install", "cursor", "--config", path).status).toBe(0);
    // The user rotates the token and gives the wrapped filesystem server another directory.
    const edited = readFileSync(path, "utf8")
      .replace("ghp_old", "ghp_new")
      .replace('"/src"', '"/src",\n        "/docs"');
    writeFileSync(path, edited);
    const r = proxyCli("uninstall", "cursor", "--config", path);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("unwrapped mcpServers github\n");
    expect(r.stdout).toContain(
      "unwrapped mcpServers fs (its server changed since install: unwrapped to the server as it is now)",
    );
    const back = JSON.parse(readFileSync(path, "utf8"));
    const expected = JSON.parse(text.replace("ghp_old", "ghp_new"));
    expected.mcpServers.fs.args.push("/docs");
    expect(back).toEqual(expected);
  });

  it("the project's .mcp.json is left alone unless --project; backups go to the state folder, the newest few", () => {
    const mcp = join(project, ".mcp.json");
    const r = proxyCli("install", "claude-code", "--no-permissions");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${mcp} (no change)`);
    expect(r.stdout).toContain("--project wraps its servers with `atlatl-proxy` from PATH");
    expect(readFileSync(mcp, "utf8")).toBe(original["project/.mcp.json"]);
    expect(proxyCli("uninstall", "claude-code", "--no-permissions").status).toBe(0);
    // Nothing of ours beside the files: not in the project, not in HOME's config folders.
    const beside = Object.keys(snapshot()).filter(
      (k) => !k.startsWith(STATE) && /\.(bak|absent)$|atlatl-(install|uninstall)/.test(k),
    );
    expect(beside).toEqual([]);
    expect(readdirSync(project)).toEqual([".mcp.json"]);
    // Many cycles later, the newest few backups of each file are kept, and the output says where.
    const path = join(home.dir, ".cursor", "mcp.json");
    writeFileSync(path, original[".cursor/mcp.json"] as string);
    let out = "";
    for (let i = 0; i < 6; i++) {
      out = proxyCli("install", "cursor").stdout + proxyCli("uninstall", "cursor").stdout;
    }
    const where = { home: home.dir, cwd: project, platform: process.platform, env: {} };
    const dir = fileStateDir(where, path);
    const backups = readdirSync(dir).filter((n) => n.endsWith(".bak"));
    expect(backups).toHaveLength(BACKUPS_KEPT);
    expect(out).toContain(`(backup: ${dir}/`);
    expect(out).toContain(
      `backups are kept under ${join(home.dir, STATE)}, the newest ${BACKUPS_KEPT} of each file`,
    );
    expect(readFileSync(path, "utf8")).toBe(original[".cursor/mcp.json"]);
  });

  it("--only and --except pick servers by name", () => {
    const path = join(home.dir, ".codeium", "windsurf", "mcp_config.json");
    writeFileSync(path, original[".codeium/windsurf/mcp_config.json"] as string);
    expect(proxyCli("install", "windsurf", "--only", "local").status).toBe(0);
    let doc = JSON.parse(readFileSync(path, "utf8"));
    expect(
      readWrappedCommandLine(doc.mcpServers.local.command, doc.mcpServers.local.args),
    ).toBeDefined();
    expect(doc.mcpServers.search.serverUrl).toBe("https://search.example.com/mcp");
    expect(proxyCli("install", "windsurf", "--except", "local", "--threshold", "800").status).toBe(
      0,
    );
    doc = JSON.parse(readFileSync(path, "utf8"));
    expect(doc.mcpServers.search.args).toEqual(expect.arrayContaining(["--threshold", "800"]));
    expect(proxyCli("uninstall", "windsurf").status).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(original[".codeium/windsurf/mcp_config.json"]);
  });

  it("install writes the client's measured threshold (none where it is the specification's), and --resources / --no-resources when asked", () => {
    const path = join(home.dir, "resources.json");
    const text = '{ "mcpServers": { "fs": { "command": "fs-mcp", "args": ["/src"] } } }\n';
    writeFileSync(path, text);
    const entry = () => JSON.parse(readFileSync(path, "utf8")).mcpServers.fs;
    // CLIENT_ECONOMY: Claude Code's measured 12,500; Cursor unmeasured, the default 1600.
    for (const [client, threshold] of [
      ["claude-code", 12_500],
      ["cursor", undefined],
    ] as const) {
      expect(proxyCli("install", client, "--config", path, "--no-permissions").status).toBe(0);
      expect(readWrappedCommandLine(entry().command, entry().args)?.options.thresholdTokens).toBe(
        threshold,
      );
      expect(entry().args.filter((a: string) => a.endsWith("resources"))).toEqual([]);
      expect(proxyCli("uninstall", client, "--config", path, "--no-permissions").status).toBe(0);
    }
    for (const [flag, resources] of [
      ["--no-resources", false],
      ["--resources", true],
    ] as const) {
      expect(proxyCli("install", "claude-code", "--config", path, flag).status).toBe(0);
      const line = readWrappedCommandLine(entry().command, entry().args);
      expect(line).toEqual({
        target: { kind: "stdio", command: "fs-mcp", args: ["/src"] },
        options: {
          resources,
          thresholdTokens: 12_500,
          outputDir: expect.stringMatching(/atlatl-/),
        },
      });
      const again = proxyCli("install", "claude-code", "--config", path, flag);
      expect(again.stdout).toContain("already wrapped");
    }
    expect(proxyCli("uninstall", "claude-code", "--config", path).status).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("the SDK client starts each wrapped Claude Code server and lists its tools through the proxy", async () => {
    expect(proxyCli("install", "claude-code").status).toBe(0);
    const doc = JSON.parse(readFileSync(join(home.dir, ".claude.json"), "utf8"));
    const servers = doc.mcpServers as Record<
      string,
      { command: string; args: string[]; env?: Record<string, string> }
    >;
    const tools: Record<string, string[]> = {};
    for (const [name, entry] of Object.entries(servers)) {
      const client = new Client({ name: "install-test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: entry.command,
          args: entry.args,
          cwd: project,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: home.dir,
            FIXTURE_HTTP_TOKEN: "secret",
            ...(entry.env ?? {}),
          },
          stderr: "pipe",
        }),
      );
      try {
        tools[name] = (await client.listTools()).tools.map((t) => t.name);
        if (name === "tokens") {
          const r = await client.callTool({ name: "token", arguments: {} });
          expect(r.content).toEqual([{ type: "text", text: "from-config" }]);
        }
      } finally {
        await client.close();
      }
    }
    expect(tools.tokens).toContain("token");
    expect(tools.remote).toContain("echo");
    expect(proxyCli("uninstall", "claude-code").status).toBe(0);
  });

  it("a Codex HTTP server's header from an env var reaches the server through the proxy (--config)", async () => {
    // The fixture serves one session: a fresh one for this client.
    const url = await startHttpFixture();
    const path = join(home.dir, "codex-other.toml");
    const text = `[mcp_servers.remote]\nurl = "${url}"\nenv_http_headers = { "x-test-token" = "FIXTURE_HTTP_TOKEN" }\n`;
    writeFileSync(path, text);
    expect(proxyCli("install", "codex", "--config", path).status).toBe(0);
    type Entry = { command: string; args: string[]; env_vars: string[] };
    const servers = parseToml(readFileSync(path, "utf8")).mcp_servers as Record<string, Entry>;
    const entry = servers.remote as Entry;
    expect(entry.env_vars).toEqual(["FIXTURE_HTTP_TOKEN"]);
    expect(entry.args.join(" ")).not.toContain("secret");
    // Codex passes the listed variable and expands nothing: the proxy reads it.
    const client = new Client({ name: "install-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: { PATH: process.env.PATH ?? "", FIXTURE_HTTP_TOKEN: "secret" },
        stderr: "pipe",
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
    } finally {
      await client.close();
    }
    expect(proxyCli("uninstall", "codex", "--config", path).status).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("a literal header secret goes to the entry's env, not the command line; the proxy still sends it; uninstall puts it back", async () => {
    const url = await startHttpFixture();
    const path = join(home.dir, "literal-secret.json");
    const original = {
      mcpServers: {
        remote: { type: "http", url, headers: { "x-test-token": "secret" } },
        keep: { command: "other", args: [], env: { LEVEL: "1" } },
      },
    };
    writeFileSync(path, `${JSON.stringify(original, null, 2)}\n`);
    expect(proxyCli("install", "claude-code", "--config", path, "--no-permissions").status).toBe(0);
    type Entry = { command: string; args: string[]; env: Record<string, string> };
    const entry = JSON.parse(readFileSync(path, "utf8")).mcpServers.remote as Entry;
    expect(JSON.stringify(entry.args)).not.toContain("secret");
    expect(entry.env).toEqual({ ATLATL_PROXY_HEADER_X_TEST_TOKEN: "secret" });
    expect(entry.args).toContain(`x-test-token: \${ATLATL_PROXY_HEADER_X_TEST_TOKEN}`);
    // Started as Claude Code starts it (the entry's env added to a minimal one).
    const client = new Client({ name: "install-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: { PATH: process.env.PATH ?? "", ...entry.env },
        stderr: "pipe",
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
    } finally {
      await client.close();
    }
    // Without the backups (they may be gone), uninstall still restores the header.
    for (const name of readdirSync(home.dir)) {
      if (name.startsWith("literal-secret.json.atlatl-")) rmSync(join(home.dir, name));
    }
    expect(proxyCli("uninstall", "claude-code", "--config", path).status).toBe(0);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(original);
  });

  it("Codex: a literal http_headers value goes to the entry's env and comes back on uninstall", () => {
    const path = join(home.dir, "codex-literal.toml");
    writeFileSync(
      path,
      `[mcp_servers.api]\nurl = "https://api.example.com/mcp"\nhttp_headers = { "X-Api-Key" = "k-123" }\n`,
    );
    const original = parseToml(readFileSync(path, "utf8"));
    expect(proxyCli("install", "codex", "--config", path).status).toBe(0);
    const text = readFileSync(path, "utf8");
    type Entry = { args: string[]; env: Record<string, string>; env_vars?: string[] };
    const entry = (parseToml(text).mcp_servers as Record<string, Entry>).api as Entry;
    expect(entry.args.join(" ")).not.toContain("k-123");
    expect(entry.env).toEqual({ ATLATL_PROXY_HEADER_X_API_KEY: "k-123" });
    expect(entry.env_vars).toBeUndefined();
    for (const name of readdirSync(home.dir)) {
      if (name.startsWith("codex-literal.toml.atlatl-")) rmSync(join(home.dir, name));
    }
    expect(proxyCli("uninstall", "codex", "--config", path).status).toBe(0);
    expect(parseToml(readFileSync(path, "utf8"))).toEqual(original);
  });

  // Claude Code is a capability of the machine (.ci/run installs it), so under CI it must be there.
  it.skipIf(!CLAUDE && !process.env.CI)(
    "Claude Code's own `claude mcp list` shows every wrapped server connected, the project's by `atlatl-proxy` from PATH",
    async () => {
      expect(CLAUDE, `no Claude Code CLI (see .ci/run: ${CLAUDE_INSTALL})`).toBeDefined();
      const url = await startHttpFixture();
      const claudeHome = tempDir("atlatl-install-claude-");
      try {
        const entries = {
          tokens: {
            type: "stdio",
            command: process.execPath,
            args: [ENV_SERVER],
            env: { FIXTURE_TOKEN: "t" },
          },
          remote: { type: "http", url, headers: { "x-test-token": `\${FIXTURE_HTTP_TOKEN}` } },
        };
        writeFileSync(
          join(claudeHome.dir, ".claude.json"),
          `${JSON.stringify({ mcpServers: entries }, null, 2)}\n`,
        );
        // The project's shared file, its servers approved (as a user does once), and
        // `atlatl-proxy` on PATH (as `npm run install-bins` puts it).
        const shared = {
          command: process.execPath,
          args: [ENV_SERVER],
          env: { FIXTURE_TOKEN: "p" },
        };
        writeFileSync(
          join(claudeHome.dir, ".mcp.json"),
          `${JSON.stringify({ mcpServers: { shared } }, null, 2)}\n`,
        );
        mkdirSync(join(claudeHome.dir, ".claude"));
        writeFileSync(
          join(claudeHome.dir, ".claude", "settings.json"),
          '{ "enableAllProjectMcpServers": true }\n',
        );
        const bin = join(claudeHome.dir, "bin");
        mkdirSync(bin);
        symlinkSync(BIN, join(bin, "atlatl-proxy"));
        const env = { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: claudeHome.dir };
        const installed = spawnSync(
          process.execPath,
          [BIN, "install", "claude-code", "--project"],
          {
            cwd: claudeHome.dir,
            env,
            encoding: "utf8",
          },
        );
        expect(installed.status, installed.stderr).toBe(0);
        const listed = spawnSync(CLAUDE as string, ["mcp", "list"], {
          cwd: claudeHome.dir,
          env: { ...env, FIXTURE_HTTP_TOKEN: "secret" },
          encoding: "utf8",
          timeout: 90_000,
        });
        const out = listed.stdout + listed.stderr;
        for (const name of Object.keys(entries)) {
          expect(out, out).toMatch(new RegExp(`^${name}: .*atlatl-proxy\\.js.*Connected`, "m"));
        }
        // Claude Code's measured threshold (CLIENT_ECONOMY) is written too.
        expect(out, out).toMatch(
          /^shared: atlatl-proxy --threshold 12500 -- .*env-server\.mjs.*Connected/m,
        );
      } finally {
        claudeHome.remove();
      }
    },
    120_000,
  );

  it("a header naming an unset variable is a clear error, not a literal reference sent upstream", () => {
    const r = proxyCli(
      "--url",
      "http://127.0.0.1:9/mcp",
      "-H",
      `x-test-token: \${ATLATL_UNSET_VAR}`,
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("the environment variable ATLATL_UNSET_VAR is not set");
  });

  it("an install backup holds the file's bytes exactly: CRLF line ends and all; uninstall gives them back", () => {
    const crlf = tempDir("atlatl-install-crlf-");
    try {
      const path = join(crlf.dir, ".cursor", "mcp.json");
      mkdirSync(dirname(path), { recursive: true });
      const bytes = Buffer.from(
        (original[".cursor/mcp.json"] as string).replace(/\n/g, "\r\n"),
        "utf8",
      );
      expect(bytes.includes("\r\n")).toBe(true);
      writeFileSync(path, bytes);
      expect(proxyCliIn(crlf.dir, crlf.dir, "install", "cursor").status).toBe(0);
      const where = { home: crlf.dir, cwd: crlf.dir, platform: process.platform, env: {} };
      const dir = fileStateDir(where, path);
      const backups = readdirSync(dir).filter((n) => n.endsWith(".bak"));
      expect(backups).toHaveLength(1);
      expect(readFileSync(join(dir, backups[0] as string)).equals(bytes)).toBe(true);
      expect(proxyCliIn(crlf.dir, crlf.dir, "uninstall", "cursor").status).toBe(0);
      expect(readFileSync(path).equals(bytes)).toBe(true);
    } finally {
      crlf.remove();
    }
  });

  it("Claude Code's settings.json with comments (JSONC) gets the grant, its comments kept; uninstall restores its bytes", () => {
    const settings = join(home.dir, ".claude", "settings.json");
    const text = `{
  // my settings
  "model": "opus", /* the big one */
  "permissions": {
    "allow": ["Bash(ls:*)"], // trusted
  },
}
`;
    mkdirSync(dirname(settings), { recursive: true });
    writeFileSync(settings, text);
    const r = proxyCli("install", "claude-code");
    expect(r.status, r.stderr).toBe(0);
    const after = readFileSync(settings, "utf8");
    for (const comment of ["// my settings", "/* the big one */", "// trusted"]) {
      expect(after).toContain(comment);
    }
    expect(strictJsonc(after)).toMatchObject({
      model: "opus",
      permissions: {
        allow: ["Bash(ls:*)"],
        additionalDirectories: [expect.stringMatching(/atlatl-/)],
      },
    });
    expect(proxyCli("uninstall", "claude-code").status).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(text);
    rmSync(settings);
  });

  it("install creates the granted offload directory and names it in each wrapped entry; the proxy makes it again at start", async () => {
    const userTmp = join(home.dir, "user-tmp");
    mkdirSync(userTmp);
    const dir = join(userTmp, `atlatl-${process.getuid?.()}`);
    const path = join(home.dir, "offload-dir.json");
    const entries = {
      tokens: { command: process.execPath, args: [ENV_SERVER], env: { FIXTURE_TOKEN: "t" } },
      remote: { type: "http", url: "https://x.example.com/mcp" },
    };
    writeFileSync(path, `${JSON.stringify({ mcpServers: entries }, null, 2)}\n`);
    const r = proxyCliWith({ TMPDIR: userTmp }, "install", "claude-code", "--config", path);
    expect(r.status, r.stderr).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const settings = JSON.parse(readFileSync(join(home.dir, ".claude", "settings.json"), "utf8"));
    expect(settings.permissions.additionalDirectories).toEqual([dir]);
    type Entry = { command: string; args: string[]; env: Record<string, string> };
    const servers = JSON.parse(readFileSync(path, "utf8")).mcpServers as Record<string, Entry>;
    for (const entry of Object.values(servers)) {
      const at = entry.args.indexOf("--output-dir");
      expect(entry.args[at + 1]).toBe(dir);
    }
    // After a temp-dir cleanup, a proxy started without TMPDIR makes it again.
    rmSync(dir, { recursive: true });
    const tokens = servers.tokens as Entry;
    const client = new Client({ name: "install-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: tokens.command,
        args: tokens.args,
        env: { PATH: process.env.PATH ?? "", HOME: home.dir, ...tokens.env },
        stderr: "pipe",
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("token");
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    } finally {
      await client.close();
    }
    expect(
      proxyCliWith({ TMPDIR: userTmp }, "uninstall", "claude-code", "--config", path).status,
    ).toBe(0);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ mcpServers: entries });
  });

  it("install refuses an offload directory that is a symlink, as the offload writer does, and writes nothing", () => {
    const userTmp = join(home.dir, "planted-tmp");
    mkdirSync(join(userTmp, "elsewhere"), { recursive: true });
    symlinkSync(join(userTmp, "elsewhere"), join(userTmp, `atlatl-${process.getuid?.()}`));
    const path = join(home.dir, "planted.json");
    const text = '{ "mcpServers": { "a": { "command": "x" } } }\n';
    writeFileSync(path, text);
    const r = proxyCliWith({ TMPDIR: userTmp }, "install", "cursor", "--config", path);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("is a symbolic link; refused");
    expect(readFileSync(path, "utf8")).toBe(text);
    expect(readdirSync(home.dir).filter((n) => n.startsWith("planted.json."))).toEqual([]);
  });

  it("a minified config stays minified: only the wrapped entry's bytes change, as many for 5x the data", () => {
    const changed: string[] = [];
    for (const projects of [2_000, 10_000]) {
      const path = join(home.dir, `minified-${projects}.json`);
      const doc = {
        numStartups: 3,
        mcpServers: {
          remote: {
            type: "http",
            url: "https://x.example.com/mcp",
            headers: { "X-Org": "acme" },
          },
        },
        projects: Object.fromEntries(
          Array.from({ length: projects }, (_, i) => [
            `/home/u/p${i}`,
            { allowedTools: ["Bash"], history: [{ display: "x".repeat(80) }] },
          ]),
        ),
      };
      const before = JSON.stringify(doc);
      writeFileSync(path, before);
      const r = proxyCli("install", "claude-code", "--config", path, "--no-permissions");
      expect(r.status, r.stderr).toBe(0);
      const after = readFileSync(path, "utf8");
      expect(after).not.toContain("\n");
      expect(JSON.parse(after).projects).toEqual(doc.projects);
      let head = 0;
      while (before[head] === after[head]) head++;
      let tail = 0;
      while (tail < before.length - head && before.at(-1 - tail) === after.at(-1 - tail)) tail++;
      // Everything outside the entry is byte for byte as it was.
      expect(before.slice(0, head)).toContain('"remote":{"type":"');
      expect(before.slice(before.length - tail)).toContain(`,"projects":{"/home/u/p0":`);
      changed.push(after.slice(head, after.length - tail));
    }
    expect(changed[1]).toBe(changed[0]);
  });

  it("an unknown client is a clear error that writes nothing", () => {
    const before = snapshot();
    const r = proxyCli("install", "notepad");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('unknown client "notepad"; expected one of claude-code');
    expect(snapshot()).toEqual(before);
  });
});
