/** What every client session of the `token-economy` benchmark shares: the server, the run, the CLI. */
import { spawn } from "node:child_process";
import type { ModelRequest } from "./token-economy-model.js";

/** How the client starts the MCP server under test (stdio). */
export interface StdioServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** The name the MCP config gives the server: tools become `mcp__{SERVER_NAME}__{tool}`. */
export const SERVER_NAME = "bench";

export interface SessionRun {
  requests: ModelRequest[];
  /** Its `count_tokens` requests (Claude Code sizes large tool results this way). */
  counts: ModelRequest[];
  /** The CLI's final `result` text (the agent's answer). */
  result: string;
  errors: string[];
}

/** Run a client's CLI to its end (killed after 3 minutes), collecting its output. */
export function runCli(
  bin: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}
