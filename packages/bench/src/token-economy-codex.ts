/**
 * One Codex session of the `token-economy` benchmark: the real CLI (`codex exec`)
 * with a custom model provider whose base_url is the scripted model (Responses
 * API), one MCP server from `config.toml`, in a throw-away CODEX_HOME, offline.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type AgentTask, nextStep } from "./token-economy-agent.js";
import { startScriptedModel } from "./token-economy-model.js";
import { runCli, SERVER_NAME, type SessionRun, type StdioServer } from "./token-economy-session.js";

/** The Codex CLI `.ci/run` installs under `$ATLATL_CODEX_DIR`, if present. */
export function codexBin(): string | undefined {
  const dir = process.env.ATLATL_CODEX_DIR ?? join(homedir(), ".cache", "atlatl-codex");
  const bin = join(dir, "node_modules", ".bin", "codex");
  return existsSync(bin) ? bin : undefined;
}

/** The agent's shell: Codex's `exec_command`. */
const CODEX_SHELL: AgentTask["shell"] = { name: "exec_command", input: (cmd) => ({ cmd }) };

/** A tool's output in Codex's tool result, after its metadata lines ("Wall time: ...", "Output:"). */
export function codexOutput(result: string): string {
  const at = result.indexOf("Output:\n");
  return at < 0 ? result : result.slice(at + "Output:\n".length);
}

/** A TOML basic string (JSON's escapes are TOML's). */
const toml = (s: string) => JSON.stringify(s);

/** Run one `codex exec` session in `cwd` with `server` as its only MCP server. */
export async function runCodexSession(
  bin: string,
  server: StdioServer,
  task: Omit<AgentTask, "shell">,
  cwd: string,
): Promise<SessionRun> {
  const model = await startScriptedModel((messages) =>
    nextStep({ ...task, shell: CODEX_SHELL, output: codexOutput }, messages),
  );
  // Named after `cwd`: the same in both arms.
  const home = `${cwd}-codex-home`;
  mkdirSync(home, { mode: 0o700 });
  try {
    const env = Object.entries(server.env ?? {})
      .map(([k, v]) => `${k} = ${toml(v)}`)
      .join(", ");
    writeFileSync(
      join(home, "config.toml"),
      [
        `model = "bench-model"`,
        `model_provider = "bench"`,
        // Nothing leaves 127.0.0.1: no analytics, no update check, no plugin sync (GitHub, chatgpt.com).
        `check_for_update_on_startup = false`,
        `[analytics]`,
        `enabled = false`,
        `[features]`,
        `plugins = false`,
        `[model_providers.bench]`,
        `name = "bench"`,
        `base_url = ${toml(`${model.url}/v1`)}`,
        `wire_api = "responses"`,
        `env_key = "ATLATL_BENCH_API_KEY"`,
        `request_max_retries = 0`,
        `stream_max_retries = 0`,
        `[mcp_servers.${SERVER_NAME}]`,
        `command = ${toml(server.command)}`,
        `args = [${server.args.map(toml).join(", ")}]`,
        // Required: Codex waits for it before the first request (else a slow start loses its tools).
        `required = true`,
        ...(env ? [`env = { ${env} }`] : []),
        "",
      ].join("\n"),
    );
    const last = join(home, "last-message.txt");
    const { stdout, stderr, code } = await runCli(
      bin,
      [
        "exec",
        "--skip-git-repo-check",
        // Trust the session's directory: Codex starts no MCP server in an untrusted one.
        "--trust",
        "--dangerously-bypass-approvals-and-sandbox",
        "--json",
        "-o",
        last,
        task.question.prompt,
      ],
      cwd,
      {
        PATH: process.env.PATH ?? "",
        HOME: home,
        CODEX_HOME: home,
        ATLATL_BENCH_API_KEY: "bench-offline",
      },
    );
    let result = "";
    if (existsSync(last)) result = readFileSync(last, "utf8");
    else model.errors.push(`codex exited ${code}: ${stderr.slice(-500)}${stdout.slice(-500)}`);
    return { requests: model.requests, counts: model.counts, result, errors: model.errors };
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}
