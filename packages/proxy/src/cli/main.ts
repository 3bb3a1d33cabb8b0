/**
 * The `atlatl-proxy` command line: a stdio MCP server in front of another MCP
 * server (`-- <command> [args...]`, or `--url <url>`), applying LRO on this
 * machine's disk. stdout is the protocol channel: everything else goes to stderr.
 */
import { ensureOutputDirAtStart } from "@atlatl/lro/node";
import { Command, InvalidArgumentError, Option } from "commander";
import { expandHeaderEnv } from "../config/env-reference.js";
import { loadProxyConfig } from "../config/proxy-config.js";
import { startProxy } from "../proxy/start-proxy.js";
import { MAX_MESSAGE_BYTES } from "../upstream/message-bound.js";
import { parseHeaders, type UpstreamTarget } from "../upstream/target.js";
import { UPSTREAM_PROTOCOLS } from "../upstream/upstream-protocol.js";
import { clientStdioTransport } from "./client-stdio.js";
import { isInstallCommand, runInstallCommand } from "./install-command.js";

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer.`);
    return n;
  };
}

interface CliOptions {
  url?: string;
  header: string[];
  config?: string;
  threshold?: number;
  outputDir?: string;
  ttl?: number;
  offload: boolean;
  timeout?: number;
  upstreamProtocol?: string;
  /** `--resources` / `--no-resources`; absent: the config's (`auto` by default). */
  resources?: boolean;
  /** `--extract-tool` / `--no-extract-tool`; absent: the config's (`auto` by default). */
  extractTool?: boolean;
}

const program = new Command()
  .name("atlatl-proxy")
  .description(
    "Large Result Offloading in front of any MCP server: results above the threshold are written to JSONL files on this machine and replaced by a descriptor.",
  )
  .version("0.1.0")
  .usage("[options] -- <command> [args...]  |  [options] --url <url>")
  .argument("[command...]", "the upstream MCP server's command (stdio)")
  .option("--url <url>", "the upstream MCP server's URL (Streamable HTTP, falling back to SSE)")
  .option(
    "-H, --header <header>",
    'HTTP header for a --url upstream, "Name: value" (repeatable)',
    (v: string, all: string[]) => [...all, v],
    [] as string[],
  )
  .option("-c, --config <file>", "TOML config file (default: $ATLATL_CONFIG)")
  .option("--threshold <tokens>", "offload threshold in tokens", positiveInt("--threshold"))
  .option(
    "--output-dir <dir>",
    "directory for offload files (default: {temp dir}/atlatl-{uid}, private)",
  )
  .option("--ttl <seconds>", "lifetime of offload files", positiveInt("--ttl"))
  .option("--no-offload", "disable offloading (a transparent proxy)")
  .option(
    "--resources",
    "serve offload files as MCP resources to any client (default: not to clients that read them with a shell)",
  )
  .option("--no-resources", "never serve offload files as MCP resources")
  .option(
    "--extract-tool",
    "list lro_extract to any client (default: not to clients that run the jq recipes in their own shell)",
  )
  .option("--no-extract-tool", "never list lro_extract")
  .option("--timeout <seconds>", "upstream request timeout", positiveInt("--timeout"))
  .addOption(
    new Option(
      "--upstream-protocol <generation>",
      "MCP protocol toward the upstream: auto (server/discover, else initialize), legacy (2025-11-25) or 2026-07-28",
    ).choices(UPSTREAM_PROTOCOLS),
  )
  .passThroughOptions()
  .showHelpAfterError();

function fail(message: string): never {
  process.stderr.write(`atlatl-proxy: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  program.parse(process.argv);
  const opts = program.opts<CliOptions>();
  const command = program.args;
  if ((opts.url === undefined) === (command.length === 0)) {
    program.error(
      "give the upstream either as -- <command> [args...] or as --url <url> (one of them)",
    );
  }
  let target: UpstreamTarget;
  try {
    target =
      opts.url !== undefined
        ? {
            kind: "http",
            url: new URL(opts.url),
            headers: parseHeaders(opts.header.map((h) => expandHeaderEnv(h))),
          }
        : { kind: "stdio", command: command[0] as string, args: command.slice(1) };
  } catch (err) {
    fail((err as Error).message);
  }
  let config: ReturnType<typeof loadProxyConfig>;
  try {
    config = loadProxyConfig({
      configFile: opts.config,
      timeoutSeconds: opts.timeout,
      upstreamProtocol: opts.upstreamProtocol,
      ...(opts.resources !== undefined ? { offloadResources: opts.resources ? "on" : "off" } : {}),
      offload: {
        ...(opts.threshold !== undefined ? { thresholdTokens: opts.threshold } : {}),
        ...(opts.outputDir !== undefined ? { outputDir: opts.outputDir } : {}),
        ...(opts.ttl !== undefined ? { ttlSeconds: opts.ttl } : {}),
        ...(opts.offload === false ? { enabled: false } : {}),
        ...(opts.extractTool !== undefined ? { extractTool: opts.extractTool ? "on" : "off" } : {}),
      },
    });
  } catch (err) {
    fail((err as Error).message);
  }
  await ensureOutputDirAtStart(config.offload, (m) => process.stderr.write(`atlatl-proxy: ${m}\n`));

  // The SDK's default bound (10 MB) would refuse a client's large arguments; ours is the upstream's.
  const transport = clientStdioTransport(process.stdin, process.stdout, MAX_MESSAGE_BYTES, (m) =>
    process.stderr.write(`atlatl-proxy: ${m}\n`),
  );
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  try {
    proxy = await startProxy({ target, config, transport });
  } catch {
    process.exit(1);
  }
  const shutdown = async () => {
    await proxy?.close();
    process.exit(0);
  };
  // The client ends the session by closing our stdin; the upstream (a child) ends with us.
  process.stdin.on("end", () => void shutdown());
  process.stdin.on("close", () => void shutdown());
  // A client gone mid-write: stdout is the protocol channel, there is no one left to serve.
  process.stdout.on("error", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
  process.on("SIGINT", () => void shutdown());
  if (!proxy) await shutdown();
  else await proxy.closed.then(shutdown);
}

if (isInstallCommand(process.argv)) await runInstallCommand(process.argv);
else await main();
