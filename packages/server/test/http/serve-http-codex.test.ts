/**
 * Codex connects with the README's configurations: the entry `atlatl install
 * codex` writes (`atlatl serve` over stdio) and the README's `[mcp_servers.atlatl-http]`
 * snippet for the team server (`url` + `bearer_token_env_var`, against a real
 * `atlatl serve --http` process). Codex's own MCP client does the connecting,
 * driven through `codex app-server` (the JSON-RPC protocol of Codex's IDE
 * extension): `mcpServerStatus/list` starts the configured server and reports
 * its serverInfo and tools, and `mcpServer/tool/call` calls a tool on an
 * ephemeral thread. Neither needs a login or a model (`codex mcp list` would
 * only print the config; it does not connect).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { jqOnPath } from "atlatl-proxy/install";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_NAME } from "../../src/mcp/create-server.js";
import { binPath } from "../e2e/spawn-server.js";
import { ATLATL_TOOLS } from "../mcp/tool-names.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

/**
 * Codex's CLI: the npm package `@openai/codex` that .ci/run installs under
 * `$ATLATL_CODEX_DIR` (default `~/.cache/atlatl-codex`), outside the workspace.
 */
const CODEX = (() => {
  const dir = process.env.ATLATL_CODEX_DIR ?? join(homedir(), ".cache", "atlatl-codex");
  const bin = join(dir, "node_modules", ".bin", "codex");
  return existsSync(bin) ? bin : undefined;
})();

const SEEDED = 20;
const TOKEN = "codex-readme-token";

const readme = readFileSync(
  join(resolve(dirname(fileURLToPath(import.meta.url)), "../../../.."), "README.md"),
  "utf8",
);

/** The README's name for the team server's entry, apart from the `atlatl` that `atlatl install` adds. */
const HTTP_NAME = "atlatl-http";

/** The README's Codex snippet for the team server: the ```toml block naming `[mcp_servers.atlatl-http]`. */
function readmeCodexSnippet(): string {
  const block = /```toml\n(\[mcp_servers\.atlatl-http\]\n[\s\S]*?)```/.exec(readme)?.[1];
  if (!block)
    throw new Error("README has no ```toml block starting with [mcp_servers.atlatl-http]");
  return block;
}

interface CodexServerStatus {
  name: string;
  serverInfo: { name: string } | null;
  tools: Record<string, { name: string }>;
  toolsError?: string | null;
}

/** What Codex reported: the server's status and, if it connected, a `list_memories` call's text. */
interface CodexView {
  status: CodexServerStatus;
  listed?: string;
}

/**
 * Run `codex app-server` (one JSON-RPC message a line, over stdio) with the given
 * environment (CODEX_HOME among it), ask it about the server `name` and, if it
 * connected, call `list_memories` through it; stdin closes after, and Codex exits.
 */
async function askCodex(
  env: Record<string, string>,
  cwd: string,
  name = "atlatl",
): Promise<CodexView> {
  const child = spawn(CODEX as string, ["app-server"], {
    cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const msg = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = msg.id === undefined ? undefined : pending.get(msg.id);
    if (!waiter) return; // a notification
    pending.delete(msg.id as number);
    if (msg.error) waiter.reject(new Error(`${msg.error.message}\n${stderr}`));
    else waiter.resolve(msg.result);
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  void exited.then(() => {
    for (const w of pending.values()) w.reject(new Error(`codex app-server exited:\n${stderr}`));
  });
  let next = 0;
  const request = <T>(method: string, params: unknown) =>
    new Promise<T>((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  try {
    await request("initialize", { clientInfo: { name: "atlatl-test", version: "1.0.0" } });
    child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
    const list = await request<{ data: CodexServerStatus[] }>("mcpServerStatus/list", {
      serverName: name,
    });
    const status = list.data.find((d) => d.name === name);
    if (!status) throw new Error(`codex knows no server "${name}": ${JSON.stringify(list)}`);
    if (!status.serverInfo) return { status };
    const thread = await request<{ thread: { id: string } }>("thread/start", { ephemeral: true });
    const called = await request<{ content: { type: string; text?: string }[] }>(
      "mcpServer/tool/call",
      { server: name, threadId: thread.thread.id, tool: "list_memories", arguments: {} },
    );
    return { status, listed: called.content[0]?.text ?? JSON.stringify(called) };
  } finally {
    // End of input ends the app-server; one that hangs anyway is stopped, not left behind.
    child.stdin.end();
    const hung = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(hung);
  }
}

/** Codex connected: the server's own name, every tool, and the seeded store behind them. */
/** `tools`: what Codex should see (default every tool, as over HTTP). */
function expectConnected(view: CodexView, tools: readonly string[] = ATLATL_TOOLS): void {
  expect(view.status.toolsError ?? null, view.status.toolsError ?? "").toBeNull();
  expect(view.status.serverInfo?.name).toBe(SERVER_NAME);
  expect(Object.keys(view.status.tools).sort()).toEqual([...tools].sort());
  // The seeded store: an empty one (another HOME's, a fresh database) lists none.
  const listed = JSON.parse(view.listed ?? "null") as { total: number; records: unknown[] };
  expect(listed.total).toBeGreaterThan(0);
  expect(listed.records.length).toBeGreaterThan(0);
}

// Codex is a capability of the machine (.ci/run installs it), so under CI it must be there.
const skip = !CODEX && !process.env.CI;

describe("Codex with the README's configurations", () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "atlatl-codex-home-"));
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it.skipIf(skip)(
    "`atlatl install codex`'s entry: Codex starts `atlatl serve` over stdio, sees its tools and calls one",
    async () => {
      expect(CODEX, "no Codex CLI (see .ci/run)").toBeDefined();
      const user = join(home, "stdio");
      const codexHome = join(user, ".codex");
      mkdirSync(codexHome, { recursive: true });
      // The user's own store (default location under HOME), which the entry's `atlatl serve` opens.
      const env = { PATH: process.env.PATH ?? "", HOME: user, CODEX_HOME: codexHome };
      const atlatl = (...args: string[]) =>
        spawnSync(process.execPath, [binPath, ...args], { cwd: user, env, encoding: "utf8" });
      const seeded = atlatl("seed", "-n", String(SEEDED));
      expect(seeded.status, seeded.stderr).toBe(0);
      const installed = atlatl("install", "codex");
      expect(installed.status, installed.stderr).toBe(0);
      const entry = parseToml(readFileSync(join(codexHome, "config.toml"), "utf8")) as {
        mcp_servers: { atlatl: { command: string; args: string[] } };
      };
      // `serve`, with the offload directory install created and named, and Codex's measured threshold.
      expect(entry.mcp_servers.atlatl.args.slice(-5)).toEqual([
        "serve",
        "--output-dir",
        expect.any(String),
        "--threshold",
        "2800",
      ]);

      // Over stdio, with jq on PATH, Codex runs the recipes in its shell: no lro_extract.
      const stdioTools = jqOnPath(env)
        ? ATLATL_TOOLS.filter((t) => t !== "lro_extract")
        : ATLATL_TOOLS;
      expectConnected(await askCodex(env, user), stdioTools);
    },
    120_000,
  );

  describe("the team server", () => {
    let s: HttpServer;
    beforeAll(async () => {
      if (CODEX) s = await startHttpServer({ tokens: TOKEN, seed: SEEDED });
    }, 60_000);
    afterAll(async () => {
      if (s) expect(await s.stop()).toBe(0);
    });

    it.skipIf(skip)(
      "the README's `url` + `bearer_token_env_var` snippet: Codex connects with the token, sees the tools and calls one",
      async () => {
        expect(CODEX, "no Codex CLI (see .ci/run)").toBeDefined();
        const snippet = readmeCodexSnippet();
        const servers = (
          parseToml(snippet) as { mcp_servers: Record<string, Record<string, string>> }
        ).mcp_servers;
        const entry = servers[HTTP_NAME] as Record<string, string>;
        expect(entry.url).toBe("http://127.0.0.1:8080/mcp");
        const tokenVar = entry.bearer_token_env_var as string;
        expect(tokenVar).toMatch(/^[A-Z_][A-Z0-9_]*$/);

        const user = join(home, "http");
        const codexHome = join(user, ".codex");
        mkdirSync(codexHome, { recursive: true });
        // The snippet as written, on this server's port.
        writeFileSync(
          join(codexHome, "config.toml"),
          snippet.replace("http://127.0.0.1:8080", s.url),
        );
        const env = { PATH: process.env.PATH ?? "", HOME: user, CODEX_HOME: codexHome };

        expectConnected(await askCodex({ ...env, [tokenVar]: TOKEN }, user, HTTP_NAME));
        // It reached /mcp with the token from that variable (the request log says so).
        expect(s.stderr()).toMatch(
          /"method":"POST","path":"\/mcp","status":200,"ms":[\d.]+,"token":"token-1"/,
        );

        // Another token is refused (401), and Codex says so rather than connecting.
        const refused = await askCodex({ ...env, [tokenVar]: "not-the-token" }, user, HTTP_NAME);
        expect(refused.status.serverInfo).toBeNull();
        expect(refused.status.toolsError).toMatch(/auth required/i);
      },
      120_000,
    );
  });
});
