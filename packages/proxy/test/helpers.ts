/** Test peers: the SDK's real Client, direct to an upstream or through the proxy over stdio. */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Client as Client2,
  type ClientCapabilities as ClientCapabilities2,
  type VersionNegotiationMode,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransport2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The proxy's CLI, run from its TypeScript source. */
export const PROXY_MAIN = join(here, "..", "src", "cli", "main.ts");
export const FIXTURES = join(here, "fixtures");

/** The entry script of an npm-installed MCP server. */
export function serverScript(pkg: string): string {
  const root = dirname(require.resolve(`${pkg}/package.json`));
  const bin = (require(`${pkg}/package.json`) as { bin: Record<string, string> }).bin;
  return join(root, Object.values(bin)[0] as string);
}

export const EVERYTHING = serverScript("@modelcontextprotocol/server-everything");
/** A 2026-07-28 upstream (SDK 2.x, serving both generations). */
export const MODERN = join(FIXTURES, "modern-server.mjs");
export const FILESYSTEM = serverScript("@modelcontextprotocol/server-filesystem");

/**
 * Claude Code's CLI: the npm package `@anthropic-ai/claude-code` that .ci/run installs
 * under `$ATLATL_CLAUDE_CODE_DIR` (default `~/.cache/atlatl-claude-code`), outside the workspace.
 */
export const CLAUDE_INSTALL =
  "npm install --prefix ~/.cache/atlatl-claude-code @anthropic-ai/claude-code@2.1.328";
export const CLAUDE = (() => {
  const dir = process.env.ATLATL_CLAUDE_CODE_DIR ?? join(homedir(), ".cache", "atlatl-claude-code");
  const bin = join(dir, "node_modules", ".bin", "claude");
  return existsSync(bin) ? bin : undefined;
})();

export const CLIENT_CAPS: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {} },
  roots: { listChanged: true },
};

/** A private temp dir, removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Peer {
  client: Client;
  transport: StdioClientTransport;
  close: () => Promise<void>;
}

async function connect(
  command: string,
  args: string[],
  setup?: (client: Client) => void,
  env?: Record<string, string>,
  clientName = "proxy-test",
): Promise<Peer> {
  const client = new Client({ name: clientName, version: "1.0.0" }, { capabilities: CLIENT_CAPS });
  setup?.(client);
  const transport = new StdioClientTransport({
    command,
    args,
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), ...(env ?? {}) },
  });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** The upstream, directly. */
export function direct(
  upstream: string[],
  setup?: (client: Client) => void,
  env?: Record<string, string>,
): Promise<Peer> {
  return connect(process.execPath, upstream, setup, env);
}

/** The proxy's command line in front of `node upstream...`. */
function proxyArgv(upstream: string[], proxyArgs: string[]): string[] {
  return [
    "--conditions=source",
    "--import",
    "tsx",
    PROXY_MAIN,
    ...proxyArgs,
    "--",
    process.execPath,
    ...upstream,
  ];
}

/** The upstream through the proxy: `atlatl-proxy [proxyArgs] -- node upstream...`. */
export function proxied(
  upstream: string[],
  proxyArgs: string[],
  setup?: (client: Client) => void,
  env?: Record<string, string>,
): Promise<Peer> {
  return connect(process.execPath, proxyArgv(upstream, proxyArgs), setup, env);
}

/** The upstream through the proxy, for a client that names itself `clientName` at initialize. */
export function proxiedAs(
  clientName: string,
  upstream: string[],
  proxyArgs: string[],
  env?: Record<string, string>,
): Promise<Peer> {
  return connect(process.execPath, proxyArgv(upstream, proxyArgs), undefined, env, clientName);
}

/** An SDK 2.x client and its stdio transport. */
export interface Peer2 {
  client: Client2;
  transport: StdioClientTransport2;
  close: () => Promise<void>;
}

/**
 * The upstream through the proxy, for an SDK 2.x client negotiating `mode`
 * (`{ pin: "2026-07-28" }` speaks 2026; `legacy` the 2025 handshake).
 */
export async function proxied2(
  upstream: string[],
  proxyArgs: string[],
  mode: VersionNegotiationMode,
  setup?: (client: Client2) => void,
  env?: Record<string, string>,
): Promise<Peer2> {
  const client = new Client2(
    { name: "proxy-test-2", version: "2.0.0" },
    { capabilities: CLIENT_CAPS as ClientCapabilities2, versionNegotiation: { mode } },
  );
  setup?.(client);
  const transport = new StdioClientTransport2({
    command: process.execPath,
    args: proxyArgv(upstream, proxyArgs),
    stderr: "pipe",
    ...(env ? { env } : {}),
  });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** A JSON-RPC response as it came over the wire. */
export interface RawResponse {
  id: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** A client speaking raw JSON-RPC lines to the proxy (what no SDK client would send). */
export interface RawPeer {
  request(method: string, params?: Record<string, unknown>): Promise<RawResponse>;
  close(): void;
}

/** The 2026-07-28 per-request envelope of a client declaring `capabilities`. */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1.0.0" },
  };
}

/** The proxy in front of `node upstream...`, spoken to in raw JSON-RPC over its stdio. */
export function rawProxied(upstream: string[], proxyArgs: string[]): RawPeer {
  const child = spawn(process.execPath, proxyArgv(upstream, proxyArgs), {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting = new Map<number, (r: RawResponse) => void>();
  let buffer = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, nl)) as RawResponse;
      buffer = buffer.slice(nl + 1);
      if ("id" in message) waiting.get(message.id)?.(message);
    }
  });
  let nextId = 1;
  return {
    request(method, params) {
      const id = nextId++;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    close: () => child.kill(),
  };
}
