/**
 * `atlatl install|uninstall <client>` through the built bin with a throw-away
 * HOME: the memory server is added (user scope) with a command line that works
 * from any directory, Claude Code is granted the offload directory, installing
 * again changes nothing, and uninstall gives back the exact bytes (or no file
 * where there was none). The SDK's real client starts the added entry.
 */
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parse as parseToml } from "smol-toml";
import { afterAll, describe, expect, it } from "vitest";
import { SERVER_NAME } from "../../src/mcp/create-server.js";
import { binPath } from "../e2e/spawn-server.js";

const home = mkdtempSync(join(tmpdir(), "atlatl-install-"));
const elsewhere = mkdtempSync(join(tmpdir(), "atlatl-elsewhere-"));
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

const env = { PATH: process.env.PATH ?? "", HOME: home };

function atlatl(...args: string[]) {
  const r = spawnSync(process.execPath, [binPath, ...args], {
    cwd: elsewhere,
    env,
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("atlatl install <client>", () => {
  it("adds the memory server to Claude Code, the SDK client reaches it, uninstall removes what install created", async () => {
    const r = atlatl("install", "claude-code");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("added mcpServers atlatl");
    const doc = JSON.parse(readFileSync(join(home, ".claude.json"), "utf8"));
    const entry = doc.mcpServers.atlatl as { command: string; args: string[] };
    expect(entry.args).toContain("serve");
    const settings = JSON.parse(readFileSync(join(home, ".claude", "settings.json"), "utf8"));
    expect(settings.permissions.additionalDirectories).toHaveLength(1);

    const installed = readFileSync(join(home, ".claude.json"), "utf8");
    expect(atlatl("install", "claude-code").stdout).toContain("(no change)");
    expect(readFileSync(join(home, ".claude.json"), "utf8")).toBe(installed);

    const client = new Client({ name: "install-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        cwd: elsewhere,
        env,
        stderr: "pipe",
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe(SERVER_NAME);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }

    expect(atlatl("uninstall", "claude-code").status).toBe(0);
    expect(() => readFileSync(join(home, ".claude.json"))).toThrow(/ENOENT/);
    expect(() => readFileSync(join(home, ".claude", "settings.json"))).toThrow(/ENOENT/);
  });

  it("creates the granted offload directory and names it in the entry: a client that drops TMPDIR offloads there, and the server makes it again at start", async () => {
    const own = mkdtempSync(join(tmpdir(), "atlatl-install-dir-"));
    try {
      const userTmp = join(own, "tmp");
      mkdirSync(userTmp);
      const db = join(own, "memories.db");
      const userEnv = { PATH: process.env.PATH ?? "", HOME: own, TMPDIR: userTmp };
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [binPath, "--db", db, ...args], {
          cwd: elsewhere,
          env: userEnv,
          encoding: "utf8",
        });
      expect(cli("seed", "-n", "300").status).toBe(0);
      const r = cli("install", "claude-code");
      expect(r.status, r.stderr).toBe(0);

      const dir = join(userTmp, `atlatl-${process.getuid?.()}`);
      const st = statSync(dir);
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o777).toBe(0o700);
      const settings = JSON.parse(readFileSync(join(own, ".claude", "settings.json"), "utf8"));
      expect(settings.permissions.additionalDirectories).toEqual([dir]);
      const doc = JSON.parse(readFileSync(join(own, ".claude.json"), "utf8"));
      const entry = doc.mcpServers.atlatl as { command: string; args: string[] };
      // Claude Code's measured threshold (CLIENT_ECONOMY) follows the directory.
      expect(entry.args.slice(-5)).toEqual(["serve", "--output-dir", dir, "--threshold", "12500"]);

      // Started as the Inspector or an SDK stdio client starts it: no TMPDIR.
      const start = async () => {
        const client = new Client({ name: "install-test", version: "1.0.0" });
        await client.connect(
          new StdioClientTransport({
            command: entry.command,
            args: entry.args,
            cwd: elsewhere,
            env: { PATH: process.env.PATH ?? "", HOME: own },
            stderr: "pipe",
          }),
        );
        return client;
      };
      let client = await start();
      try {
        const recall = await client.callTool({
          name: "recall_memories",
          arguments: { query: "", limit: 1000, detail: "full", status: "any" },
        });
        const text = (recall.content as { text: string }[])[0]?.text ?? "";
        expect(JSON.parse(text).offloaded).toBe(true);
        expect(readdirSync(dir).filter((n) => n.endsWith(".jsonl"))).toHaveLength(1);
        expect(text).toContain(`${dir}/`);
      } finally {
        await client.close();
      }

      // A reboot or a temp-dir cleanup: the next server start makes it again.
      rmSync(dir, { recursive: true });
      client = await start();
      try {
        await client.listTools();
        expect(statSync(dir).mode & 0o777).toBe(0o700);
      } finally {
        await client.close();
      }
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it("adds to a commented Codex config.toml and uninstall restores its bytes", () => {
    const path = join(home, ".codex", "config.toml");
    mkdirSync(join(home, ".codex"), { recursive: true });
    const text =
      '# my settings\nmodel = "gpt-5" # default\n\n[mcp_servers.files]\ncommand = "npx"\n';
    writeFileSync(path, text);
    expect(atlatl("install", "codex", "--dry-run").stdout).toContain("+[mcp_servers.atlatl]");
    expect(readFileSync(path, "utf8")).toBe(text);
    expect(atlatl("install", "codex").status).toBe(0);
    const after = readFileSync(path, "utf8");
    expect(after).toContain("# my settings");
    const servers = parseToml(after).mcp_servers as Record<string, { args: string[] }>;
    expect(Object.keys(servers)).toEqual(["files", "atlatl"]);
    // Codex's measured threshold, below its ~12,000-character cut.
    expect(servers.atlatl?.args.slice(-2)).toEqual(["--threshold", "2800"]);
    expect(atlatl("uninstall", "codex").status).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("writes no threshold for a client nothing was measured for (the specification's default)", () => {
    expect(atlatl("install", "cursor").status).toBe(0);
    const doc = JSON.parse(readFileSync(join(home, ".cursor", "mcp.json"), "utf8"));
    const entry = doc.mcpServers.atlatl as { args: string[] };
    expect(entry.args).not.toContain("--threshold");
    expect(entry.args.slice(-3, -1)).toEqual(["serve", "--output-dir"]);
    expect(atlatl("uninstall", "cursor").status).toBe(0);
  });

  it("refuses to replace a server of that name that is not atlatl", () => {
    const path = join(home, ".cursor", "mcp.json");
    mkdirSync(join(home, ".cursor"), { recursive: true });
    const text = '{ "mcpServers": { "atlatl": { "command": "something-else" } } }\n';
    writeFileSync(path, text);
    const r = atlatl("install", "cursor");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'a server named "atlatl" is already configured and is not atlatl\'s',
    );
    expect(readFileSync(path, "utf8")).toBe(text);
  });
});
