/**
 * The `atlatl` command line. `atlatl serve` is the stdio MCP server (stdout is the
 * protocol channel there, so every command logs to stderr); the other commands
 * are for people and scripts.
 */
import { CLIENT_NAMES } from "atlatl-proxy/install";
import { Command, Option } from "commander";
import { DEFAULT_IMPORT_BATCH_SIZE } from "../mif/import.js";
import { ATLATL_VERSION } from "../version.js";
import { exitQuietlyOnClosedPipe } from "./closed-pipe.js";
import { runConfig } from "./commands/config.js";
import { runEmbed } from "./commands/embed.js";
import { runExport } from "./commands/export.js";
import { runImport } from "./commands/import.js";
import { runInstall, runUninstall } from "./commands/install.js";
import { runOffloadLs, runOffloadSweep } from "./commands/offload.js";
import { runList, runRecall, runSearch } from "./commands/query.js";
import { runSeed } from "./commands/seed.js";
import { runServe } from "./commands/serve.js";
import { portArg } from "./commands/serve-http.js";
import { fail } from "./fail.js";
import { intFlag, thresholdFlag, ttlFlag } from "./int-flag.js";

const positiveInt = (name: string, max?: number) => intFlag(name, 1, max);

const program = new Command()
  .name("atlatl")
  .description("MIF memory MCP server with Large Result Offloading (LRO).")
  .version(ATLATL_VERSION)
  .option(
    "-c, --config <file>",
    "TOML config file (default: $ATLATL_CONFIG, else ~/.config/atlatl/config.toml if present)",
  )
  .option("--db <path>", "SQLite database (default: $ATLATL_STORE__PATH, else the user data dir)")
  .option(
    "--database <url>",
    "PostgreSQL URL postgres://user:password@host/db instead of SQLite (default: $ATLATL_STORE__URL)",
  )
  .showHelpAfterError()
  .hook("preAction", (_program, action) => {
    if (action.name() !== "serve") exitQuietlyOnClosedPipe();
  });

program
  .command("serve")
  .description("Run the MCP server over stdio (add it to your MCP client with this command)")
  .option("--threshold <tokens>", "offload threshold in tokens", thresholdFlag)
  .option(
    "--output-dir <dir>",
    "directory for offload files (default: {temp dir}/atlatl-{uid}, private)",
  )
  .option("--ttl <seconds>", "lifetime of offload files", ttlFlag)
  .option("--no-offload", "disable Large Result Offloading (inline results with cursors)")
  .option(
    "--extract-tool",
    "list lro_extract to any client (default: not to a stdio client that runs the jq recipes in its own shell)",
  )
  .option("--no-extract-tool", "never list lro_extract")
  .option(
    "--http",
    "serve MCP over Streamable HTTP at /mcp, plus REST under /v1 (see docs/remote.md)",
  )
  .option("--host <address>", "with --http: address to listen on (default 127.0.0.1)")
  .option("--port <port>", "with --http: port, 0 for any free one (default 8080)", portArg)
  .action(runServe);

for (const [name, action, description] of [
  ["install", runInstall, "Add this server to an MCP client's config (a backup first)"],
  ["uninstall", runUninstall, "Take this server out of an MCP client's config again"],
] as const) {
  program
    .command(name)
    .description(description)
    .argument("<client>", `one of ${CLIENT_NAMES.join(", ")}`)
    .option(
      "--client-config <path>",
      "a config file in that client's format, instead of its default",
    )
    .option("--dry-run", "print the change as a diff; write nothing")
    .option("--no-permissions", "claude-code: leave the offload directory grant alone")
    .action(action);
}

program
  .command("import")
  .description("Import MIF .json, MIF Markdown .memory.md or JSONL, from a file or a directory")
  .argument("<path>", "file or directory")
  .option(
    "--batch-size <n>",
    "memories per transaction",
    positiveInt("--batch-size", 100_000),
    DEFAULT_IMPORT_BATCH_SIZE,
  )
  .option("--json", "print the report as JSON")
  .action(runImport);

program
  .command("export")
  .description("Export memories as MIF JSON-LD (default) or JSONL")
  .addOption(
    new Option("-f, --format <format>", "output format")
      .choices(["mif-json", "jsonl"])
      .default("mif-json"),
  )
  .option("-o, --out <file>", "write to a file instead of stdout")
  .option("--namespace <prefix>", "only this namespace prefix")
  .action(runExport);

program
  .command("seed")
  .description("Fill the store with a realistic synthetic corpus (for demos and benchmarks)")
  .requiredOption("-n, --count <n>", "how many memories", positiveInt("--count", 10_000_000))
  .option("--seed <n>", "random seed, for a reproducible corpus", (v) => Number(v), 1)
  .action(runSeed);

program
  .command("embed")
  .description(
    "Give every memory without a current vector one, from the [embeddings] endpoint (resumable)",
  )
  .option("--reset", "drop every vector first and bind the store to the configured model")
  .action(runEmbed);

function queryOptions(cmd: Command): Command {
  return cmd
    .option("--namespace <prefix>", "namespace prefix, e.g. _semantic")
    .addOption(
      new Option("--type <memory_type>", "memory type").choices([
        "semantic",
        "episodic",
        "procedural",
      ]),
    )
    .option("--tag <tag...>", "require these tags")
    .option("-l, --limit <n>", "maximum results", positiveInt("--limit", 1000), 20)
    .option("--json", "print JSON records instead of a table");
}

queryOptions(
  program
    .command("recall")
    .description("Recall memories for a query (ranked)")
    .argument("[query]", "what to recall", ""),
).action(runRecall);
queryOptions(
  program
    .command("search")
    .description("Full-text search: words, and operators where you write them")
    .argument("<query>", 'words; "phrase", OR, -word, prefix* (see the README)'),
).action(runSearch);
queryOptions(program.command("list").description("List memories, newest first"))
  .addOption(
    new Option("--sort <field>", "sort field")
      .choices(["created", "modified", "title"])
      .default("created"),
  )
  .addOption(new Option("--order <order>", "sort order").choices(["asc", "desc"]).default("desc"))
  .action(runList);

const offload = program.command("offload").description("Inspect and clean offloaded result files");
offload
  .command("ls")
  .description("List live offload files")
  .option("--all", "include expired files")
  .option("--json", "JSON output")
  .action(runOffloadLs);
offload
  .command("sweep")
  .description("Delete expired offload files and orphaned temporary files now")
  .option("--json", "JSON output")
  .action(runOffloadSweep);

program
  .command("config")
  .description("Print the effective configuration and where each value came from")
  .option("--json", "JSON output")
  .action(runConfig);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  fail(err);
}
