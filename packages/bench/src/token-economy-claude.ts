/**
 * One Claude Code session of the `token-economy` benchmark: the real CLI
 * (`claude -p ... --output-format json`) against the scripted model, with one
 * MCP server from `--mcp-config`, in a throw-away HOME, offline.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type AgentTask, nextStep } from "./token-economy-agent.js";
import { startScriptedModel } from "./token-economy-model.js";
import { runCli, SERVER_NAME, type SessionRun, type StdioServer } from "./token-economy-session.js";

/** The Claude Code CLI `.ci/run` installs under `$ATLATL_CLAUDE_CODE_DIR`, if present. */
export function claudeBin(): string | undefined {
  const dir = process.env.ATLATL_CLAUDE_CODE_DIR ?? join(homedir(), ".cache", "atlatl-claude-code");
  const bin = join(dir, "node_modules", ".bin", "claude");
  return existsSync(bin) ? bin : undefined;
}

/** The agent's shell: Claude Code's Bash tool. */
const CLAUDE_SHELL: AgentTask["shell"] = {
  name: "Bash",
  input: (command) => ({ command, description: "Query the saved result" }),
};

/**
 * Run one `claude -p` session in `cwd` with `server` as its only MCP server
 * (Claude Code offers `cwd` as the session's root, which servers such as
 * server-filesystem take as their allowed directory).
 */
export async function runClaudeSession(
  bin: string,
  server: StdioServer,
  task: Omit<AgentTask, "shell">,
  cwd: string,
): Promise<SessionRun> {
  const model = await startScriptedModel((messages) =>
    nextStep({ ...task, shell: CLAUDE_SHELL }, messages),
  );
  // Named after `cwd`: the same in both arms (its path is in the system prompt).
  const home = `${cwd}-home`;
  mkdirSync(home, { mode: 0o700 });
  try {
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { [SERVER_NAME]: server } }));
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-ant-bench-offline",
      // Nothing leaves 127.0.0.1: no telemetry, error reports, updates or other side traffic.
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // Every MCP tool definition in every request, as the figures count them
      // (with tool search on, Claude Code lists deferred tools by name only).
      ENABLE_TOOL_SEARCH: process.env.ATLATL_BENCH_TOOL_SEARCH ?? "false",
    };
    const args = [
      "-p",
      task.question.prompt,
      "--output-format",
      "json",
      "--mcp-config",
      config,
      "--strict-mcp-config",
      "--allowedTools",
      `mcp__${SERVER_NAME}`,
      "Bash",
    ];
    const { stdout, stderr, code } = await runCli(bin, args, cwd, env);
    let result = "";
    try {
      result = String((JSON.parse(stdout) as { result?: unknown }).result ?? "");
    } catch {
      model.errors.push(`claude exited ${code}: ${stderr.slice(0, 500)}${stdout.slice(0, 500)}`);
    }
    return { requests: model.requests, counts: model.counts, result, errors: model.errors };
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}
