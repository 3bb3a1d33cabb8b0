/** `atlatl-eval`: corpus | run | score | report. Results on stdout, progress and errors on stderr. */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { CONDITIONS, conditionsFor } from "./conditions/conditions.js";
import {
  buildCorpusFiles,
  DEFAULT_SCALES,
  DEFAULT_SEED,
  FROZEN_DATA_DIR,
  TASKS_PER_CONDITION,
  writeCorpusFiles,
} from "./corpus/freeze.js";
import { loadPrices } from "./models/pricing.js";
import { createModel, DEFAULT_MAX_RETRIES } from "./models/registry.js";
import { cellOf, loadResults } from "./report/aggregate.js";
import { writeReport } from "./report/report.js";
import { accuracyText } from "./report/tables.js";
import { createProgress } from "./runner/progress.js";
import { DEFAULT_CONCURRENCY, runGrid } from "./runner/run.js";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MESSAGE_LIMIT,
  DEFAULT_TOOL_TIMEOUT_MS,
} from "./runner/sample.js";
import { createSandbox, type SandboxMode } from "./sandbox/sandbox.js";

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("a positive integer");
  return n;
}

function scaleList(v: string): number[] {
  return v.split(",").map((s) => positiveInt(s.trim()));
}

/** A message budget: a positive integer, or `none` for no limit. */
/** (Commander turns a parser's null into "", so `none` stays a string until the run.) */
function messageLimit(v: string): number | "none" {
  if (v === "none") return v;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 3) {
    // Fewer than 3 leaves no room for a reply after the system prompt and the task.
    throw new InvalidArgumentError("an integer >= 3, or none");
  }
  return n;
}

function sandboxMode(v: string): SandboxMode | "auto" {
  if (v === "auto" || v === "bwrap" || v === "process") return v;
  throw new InvalidArgumentError("auto, bwrap or process");
}

const print = (s: string) => process.stdout.write(`${s}\n`);

export function program(): Command {
  const cli = new Command("atlatl-eval")
    .description("The LRO paper's evaluation (E1-E4 + Native) on the atlatl engine")
    .showHelpAfterError()
    .exitOverride();

  cli
    .command("corpus")
    .description(
      "write the deterministic corpus and tasks (the package ships them frozen in data/)",
    )
    .option("--out <dir>", "output folder", FROZEN_DATA_DIR)
    .option("--seed <n>", "seed", positiveInt, DEFAULT_SEED)
    .option("--scales <list>", "corpus sizes", scaleList, [...DEFAULT_SCALES])
    .option("--tasks <n>", "tasks per kind and scale", positiveInt, TASKS_PER_CONDITION)
    .action(async (o: { out: string; seed: number; scales: number[]; tasks: number }) => {
      const files = buildCorpusFiles(o.seed, o.scales, o.tasks);
      await writeCorpusFiles(o.out, files);
      print(`wrote ${files.size} files to ${o.out}`);
    });

  cli
    .command("run")
    .description("run an experiment's conditions against a model; resumable")
    .requiredOption("--experiment <list>", "e1, e2, e2g, e3, e4 (comma-separated) or all")
    .requiredOption(
      "--model <provider:model>",
      "anthropic:…, openai:…, vllm:…, ollama:…, llamacpp:…, scripted:exact",
    )
    .option("--scales <list>", "corpus sizes", scaleList, [...DEFAULT_SCALES])
    .option("--tasks <n>", "tasks per condition and scale", positiveInt, TASKS_PER_CONDITION)
    .option("--out <dir>", "results folder", "results")
    .option("--concurrency <n>", "samples in flight", positiveInt, DEFAULT_CONCURRENCY)
    .option(
      "--message-limit <n|none>",
      "messages per sample, every message counting (system, user, assistant, tool), as Inspect AI's message_limit",
      messageLimit,
      DEFAULT_MESSAGE_LIMIT,
    )
    .option(
      "--max-output-tokens <n>",
      "output token limit per model call",
      positiveInt,
      DEFAULT_MAX_OUTPUT_TOKENS,
    )
    .option("--max-retries <n>", "SDK retries on 429/5xx", positiveInt, DEFAULT_MAX_RETRIES)
    .option(
      "--tool-timeout <ms>",
      "time limit of one bash/python_exec call",
      positiveInt,
      DEFAULT_TOOL_TIMEOUT_MS,
    )
    .option("--sandbox <mode>", "auto, bwrap or process", sandboxMode, "auto")
    .option("--base-url <url>", "model server base URL (local servers, proxies)")
    .option("--prompt-cache", "Anthropic: cache the conversation prefix between turns (lower cost)")
    .option("--prices <file>", "JSON price table overriding the defaults (USD per 1M tokens)")
    .option("--data <dir>", "frozen corpus folder", FROZEN_DATA_DIR)
    .action(async (o) => {
      const model = createModel(o.model, {
        baseURL: o.baseUrl,
        maxRetries: o.maxRetries,
        promptCache: o.promptCache === true,
      });
      const sandbox = createSandbox(o.sandbox);
      if (sandbox.mode !== "bwrap")
        process.stderr.write(`warning: sandbox ${sandbox.guarantees}\n`);
      const progress = createProgress();
      const summary = await runGrid({
        model,
        conditions: conditionsFor(String(o.experiment).split(",")),
        scales: o.scales,
        tasks: o.tasks,
        out: o.out,
        sandbox,
        prices: await loadPrices(o.prices),
        concurrency: o.concurrency,
        messageLimit: o.messageLimit === "none" ? null : o.messageLimit,
        maxOutputTokens: o.maxOutputTokens,
        toolTimeoutMs: o.toolTimeout,
        dataDir: o.data,
        onStart: (total, skipped) => progress.start(total, skipped),
        onSample: (s, done) => progress.update(s, done),
      }).finally(() => progress.stop());
      const c = cellOf(summary.scores);
      print(
        `${summary.dir}: ran ${summary.ran}, skipped ${summary.skipped} already done; accuracy ${accuracyText(c)}%, ${c.totalTokens} API tokens and $${c.costUsd.toFixed(4)} over the ${summary.scores.length} samples run`,
      );
    });

  cli
    .command("conditions")
    .description(
      "list the 23 conditions: id, experiment, the paper's label, task, tools (or whose samples it reports)",
    )
    .action(() => {
      for (const c of CONDITIONS) {
        const how = c.samplesOf ? `samples of ${c.samplesOf}` : c.tools.join(",");
        print([c.id, c.experiment, c.label, c.taskKind, how].join("\t"));
      }
    });

  cli
    .command("score <results>")
    .description(
      "re-score every transcript under a results folder (no model calls); writes scores.jsonl",
    )
    .option("--data <dir>", "frozen corpus folder", FROZEN_DATA_DIR)
    .action(async (dir: string, o: { data: string }) => {
      const r = await loadResults(dir, o.data);
      await writeFile(
        join(dir, "scores.jsonl"),
        r.scores.map((s) => `${JSON.stringify(s)}\n`).join(""),
      );
      for (const model of r.models) {
        for (const condition of [...new Set(r.select({ model }).map((s) => s.condition))]) {
          print(`${model}\t${condition}\t${accuracyText(r.cell({ model, condition }))}%`);
        }
      }
    });

  cli
    .command("report <results>")
    .description("Tables 1 and 3-11 (Markdown), SVG charts and one self-contained HTML file")
    .option("--out <dir>", "where to write (default: the results folder)")
    .option("--data <dir>", "frozen corpus folder", FROZEN_DATA_DIR)
    .action(async (dir: string, o: { out?: string; data: string }) => {
      const files = await writeReport(dir, o.out ?? dir, o.data);
      print(
        `${files.markdown}\n${files.html}\n${files.charts.length} charts in ${join(o.out ?? dir, "charts")}`,
      );
    });
  return cli;
}

/** Run the CLI; resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync(argv as string[]);
    return 0;
  } catch (err) {
    const e = err as { code?: string; exitCode?: number; message?: string };
    if (e.code?.startsWith("commander.")) return e.exitCode ?? 1;
    process.stderr.write(`atlatl-eval: ${e.message ?? String(err)}\n`);
    return 1;
  }
}
