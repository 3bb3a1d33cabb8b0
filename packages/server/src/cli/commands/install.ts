/**
 * `atlatl install <client>` / `atlatl uninstall <client>`: add this memory server
 * to an MCP client's config (user scope), or take it out again. The files,
 * formats, backups and Claude Code's offload-directory grant are atlatl-proxy's
 * installer (`atlatl-proxy/install`), so both commands edit configs one way.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type ClientSpec,
  carryOut,
  clientNamed,
  currentClientEnv,
  type FilePlan,
  installThreshold,
  isAtlatlServer,
  planAddServer,
  planGrantDirectory,
  planRemoveServer,
  planRevokeDirectory,
  prepareOffloadDir,
  type ServerEntryRequest,
} from "atlatl-proxy/install";
import type { Command } from "commander";
import { loadServerConfig } from "../../config/server-config.js";

/** The entry's name in the client's config. */
const SERVER_ENTRY_NAME = "atlatl";

interface InstallOptions {
  clientConfig?: string;
  dryRun?: boolean;
  permissions: boolean;
}

/** The global options given before the command (`--config`, `--db`, `--database`), for the entry. */
function globalArgs(cmd: Command): string[] {
  const globals = (cmd.parent?.opts() ?? {}) as {
    config?: string;
    db?: string;
    database?: string;
  };
  return [
    ...(globals.config !== undefined ? ["--config", resolve(globals.config)] : []),
    ...(globals.db !== undefined ? ["--db", resolve(globals.db)] : []),
    ...(globals.database !== undefined ? ["--database", globals.database] : []),
  ];
}

function request(
  client: ClientSpec,
  opts: InstallOptions,
  cmd: Command,
  outputDir: string,
): ServerEntryRequest {
  // This package's bin, started by this node: clients start servers without the user's PATH.
  const bin = fileURLToPath(new URL("../../../bin/atlatl.js", import.meta.url));
  // The client's measured threshold (`CLIENT_ECONOMY`), where it is not the specification's.
  const threshold = installThreshold(client.name);
  return {
    client,
    where: currentClientEnv(),
    configPath: opts.clientConfig,
    name: SERVER_ENTRY_NAME,
    command: process.execPath,
    // The offload directory by name: a client that drops TMPDIR must not move it from the one granted.
    args: [
      bin,
      ...globalArgs(cmd),
      "serve",
      "--output-dir",
      outputDir,
      ...(threshold !== undefined ? ["--threshold", String(threshold)] : []),
    ],
    isOurs: (entry) => isAtlatlServer(entry.command, entry.args),
  };
}

async function run(
  action: "install" | "uninstall",
  clientName: string,
  opts: InstallOptions,
  cmd: Command,
): Promise<void> {
  const client = clientNamed(clientName);
  const globals = (cmd.parent?.opts() ?? {}) as { config?: string };
  const dir = loadServerConfig({ configFile: globals.config }).offload.outputDir;
  const req = request(client, opts, cmd, dir);
  const plans: FilePlan[] = action === "install" ? planAddServer(req) : planRemoveServer(req);
  if (action === "install" && !opts.dryRun) await prepareOffloadDir(dir);
  if (client.name === "claude-code" && opts.permissions) {
    const grant =
      action === "install"
        ? planGrantDirectory(req.where, dir, "atlatl")
        : planRevokeDirectory(req.where, dir, "atlatl");
    if (grant) plans.push(grant);
  }
  carryOut(plans, { tool: "atlatl", action, where: req.where }, opts.dryRun);
}

/** `atlatl install <client>`. */
export function runInstall(client: string, opts: InstallOptions, cmd: Command): Promise<void> {
  return run("install", client, opts, cmd);
}

/** `atlatl uninstall <client>`. */
export function runUninstall(client: string, opts: InstallOptions, cmd: Command): Promise<void> {
  return run("uninstall", client, opts, cmd);
}
