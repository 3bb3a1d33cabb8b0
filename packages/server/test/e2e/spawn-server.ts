import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TestBackend } from "../backends/backends.js";

export const serverRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cliSource = join(serverRoot, "src/cli/main.ts");
export const binPath = join(serverRoot, "bin/atlatl.js");

export interface RunningServer {
  client: Client;
  dir: string;
  dbPath: string;
  /** The store arguments this server was started with (`--db PATH` or `--database URL`). */
  storeArgs: string[];
  outputDir: string;
  stderr: () => string;
  close(): Promise<void>;
}

/**
 * Start `atlatl serve` as a child process over stdio with a temporary database and
 * offload directory, and connect the SDK's real `Client` to it. `useBin` runs the
 * published launcher (needs `npm run build`); otherwise the TypeScript source runs
 * through tsx, so the test sees the code under test without a build.
 */
export async function startServer(
  options: {
    args?: string[];
    env?: Record<string, string>;
    useBin?: boolean;
    /** Runs before the server starts, e.g. to fill the database directly. */
    beforeStart?: (paths: { dbPath: string }) => Promise<void>;
    /** The store backend (default: SQLite in the temporary directory). */
    backend?: TestBackend;
    /** Store arguments to use instead of a fresh store (a second server on the same database). */
    storeArgs?: string[];
    /** The `clientInfo.name` the client sends at `initialize` (default `atlatl-e2e`). */
    clientName?: string;
  } = {},
): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-e2e-"));
  const dbPath = join(dir, "db", "atlatl.db");
  const outputDir = join(dir, "offload");
  await options.beforeStart?.({ dbPath });
  const entry = options.useBin ? [binPath] : ["--conditions=source", "--import", "tsx", cliSource];
  const store = options.storeArgs
    ? { args: options.storeArgs, env: {}, cleanup: async () => {} }
    : options.backend
      ? await options.backend.serverConfig(dir)
      : { args: ["--db", dbPath], env: {}, cleanup: async () => {} };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...entry, "serve", ...store.args, ...(options.args ?? [])],
    env: {
      ...(process.env as Record<string, string>),
      ATLATL_CONFIG: "",
      ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outputDir,
      ...store.env,
      ...options.env,
    },
    cwd: serverRoot,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const client = new Client({ name: options.clientName ?? "atlatl-e2e", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    dir,
    dbPath,
    storeArgs: store.args,
    outputDir,
    stderr: () => err,
    async close() {
      await client.close();
      await store.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Call a tool and return its result (errors stay results: `isError`). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The first text content of a tool result. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error(`no text content: ${JSON.stringify(result)}`);
  return first.text;
}

/** The first text content parsed as JSON. */
export function jsonOf<T = Record<string, unknown>>(result: CallToolResult): T {
  return JSON.parse(textOf(result)) as T;
}
