/**
 * `atlatl-proxy install <client>` / `atlatl-proxy uninstall <client>`: wrap every
 * MCP server a client has configured with atlatl-proxy, or unwrap them. A
 * separate command line from the proxy's own (main.ts hands over when the first
 * word is one of these), so an upstream's flags and these never mix.
 */

import { Command, InvalidArgumentError } from "commander";
import { installOptions } from "../config/client-economy.js";
import { loadProxyConfig } from "../config/proxy-config.js";
import {
  CLIENT_NAMES,
  carryOut,
  clientNamed,
  currentClientEnv,
  planGrantDirectory,
  planRevokeDirectory,
  planUnwrap,
  planWrap,
  prepareOffloadDir,
  proxyLauncher,
  type WrapRequest,
} from "../install/index.js";

const SUBCOMMANDS = new Set(["install", "uninstall"]);

/** True when argv asks for install/uninstall rather than a proxy run. */
export function isInstallCommand(argv: readonly string[]): boolean {
  return SUBCOMMANDS.has(argv[2] ?? "");
}

interface InstallOptions {
  config?: string;
  dryRun?: boolean;
  only?: string[];
  except?: string[];
  threshold?: number;
  /** `--resources` / `--no-resources`; absent: the proxy decides per client. */
  resources?: boolean;
  permissions: boolean;
  project?: boolean;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError("--threshold must be a positive integer.");
  }
  return n;
}

function addCommonOptions(cmd: Command): Command {
  return cmd
    .argument("<client>", `one of ${CLIENT_NAMES.join(", ")}`)
    .option(
      "--config <path>",
      "a config file in that client's format, instead of its default files",
    )
    .option("--dry-run", "print the change as a diff; write nothing")
    .option("--only <name...>", "only these servers")
    .option("--except <name...>", "all servers but these")
    .option(
      "--project",
      "claude-code: the current project's .mcp.json too (shared: `atlatl-proxy` from PATH, no local paths)",
    );
}

async function run(action: "install" | "uninstall", clientName: string, opts: InstallOptions) {
  const client = clientNamed(clientName);
  const where = currentClientEnv();
  // Named in every wrapped entry: the directory granted is the one the proxy uses.
  const dir = loadProxyConfig().offload.outputDir;
  const req: WrapRequest = {
    client,
    where,
    configPath: opts.config,
    selection: { only: opts.only, except: opts.except },
    options: installOptions(client.name, {
      thresholdTokens: opts.threshold,
      outputDir: dir,
      resources: opts.resources,
    }),
    launcher: proxyLauncher(),
    project: opts.project,
  };
  const plans = action === "install" ? planWrap(req) : planUnwrap(req);
  if (action === "install" && !opts.dryRun) await prepareOffloadDir(dir);
  if (client.name === "claude-code" && opts.permissions) {
    const grant =
      action === "install"
        ? planGrantDirectory(where, dir, "atlatl-proxy")
        : planRevokeDirectory(where, dir, "atlatl-proxy");
    if (grant) plans.push(grant);
  }
  carryOut(plans, { tool: "atlatl-proxy", action, where }, opts.dryRun);
}

/** Run `atlatl-proxy install|uninstall …` and exit. */
export async function runInstallCommand(argv: readonly string[]): Promise<void> {
  const program = new Command().name("atlatl-proxy").showHelpAfterError();
  addCommonOptions(
    program
      .command("install")
      .description(
        "wrap every MCP server configured for <client> with atlatl-proxy (a backup first, kept in atlatl's state folder)",
      ),
  )
    .option(
      "--threshold <tokens>",
      "offload threshold of the wrapped servers (default: the client's measured one, else the proxy's)",
      positiveInt,
    )
    .option("--resources", "the wrapped servers serve offload files as MCP resources")
    .option(
      "--no-resources",
      "the wrapped servers do not serve offload files as resources (by default the proxy serves them to clients without a shell)",
    )
    .option("--no-permissions", "claude-code: do not let Claude Code read the offload directory")
    .action((client: string, opts: InstallOptions) => run("install", client, opts));
  addCommonOptions(
    program
      .command("uninstall")
      .description(
        "unwrap the servers install wrapped, keeping every other change (the original bytes when nothing else changed)",
      ),
  )
    .option("--no-permissions", "claude-code: leave the offload directory grant alone")
    .action((client: string, opts: InstallOptions) => run("uninstall", client, opts));
  try {
    await program.parseAsync(argv as string[]);
  } catch (err) {
    process.stderr.write(`atlatl-proxy: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
