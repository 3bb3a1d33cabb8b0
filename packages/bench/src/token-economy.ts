/**
 * `token-economy`: what a user's client puts into the model's context for the
 * same answer, with and without atlatl. The real Claude Code and Codex CLIs are
 * driven by a scripted model on 127.0.0.1 (one fixed agent policy,
 * token-economy-agent.ts) that logs every request; each scenario runs twice: the
 * client alone (the upstream connected directly; for the memory server, offloading
 * off) and with atlatl (the upstream behind `atlatl-proxy`; the memory server
 * offloading), writing to the offload directory a user's install gets. Figures
 * are o200k tokens (`gpt-tokenizer`) of what the client sent, beside chars/4. docs/benchmarks.md says how to run it and read it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { estimateCallResultTokens } from "@atlatl/lro/mcp";
import { DEFAULT_OFFLOAD_CONFIG } from "@atlatl/lro/node";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { READ_LIMITS } from "atlatl";
import { installThreshold } from "atlatl-proxy/install";
import { atLeast, atMost, type Benchmark, type BenchRow, type BenchTable } from "./harness.js";
import { claudeBin, runClaudeSession } from "./token-economy-claude.js";
import { codexBin, codexOutput, runCodexSession } from "./token-economy-codex.js";
import {
  BY_MEMORY_TYPE,
  DATASETS,
  FAILED,
  JSON_FILES,
  lookupOrder,
  type Question,
  sizedReport,
  TOP_REGIONS,
} from "./token-economy-data.js";
import { measureSession, type SessionFigures } from "./token-economy-measure.js";
import { o200k } from "./token-economy-model.js";
import { SERVER_NAME, type StdioServer } from "./token-economy-session.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const PROXY = join(root, "packages/proxy/bin/atlatl-proxy.js");
const FILESYSTEM = join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const FIXTURE = join(here, "token-economy-server.ts");
const ATLATL = join(root, "packages/server/bin/atlatl.js");
/** tsx's loader as a URL: the client starts servers in the session's directory, not here. */
const TSX = pathToFileURL(createRequire(join(root, "package.json")).resolve("tsx")).href;

export type Arm = "alone" | "atlatl";

/** The clients the benchmark drives, by `install`'s names. */
export type BenchClient = "claude-code" | "codex";

/**
 * Whether atlatl-proxy, as `install <client>` runs it, offloads a result of
 * this text (its own estimate against the client's threshold).
 */
export async function offloadsFor(client: BenchClient, text: string): Promise<boolean> {
  const threshold = installThreshold(client) ?? DEFAULT_OFFLOAD_CONFIG.thresholdTokens;
  const result = { content: [{ type: "text", text }] };
  return (await estimateCallResultTokens(result, threshold)) > threshold;
}

/**
 * The flags `install <client>` writes besides the output directory (the
 * client's measured threshold, `CLIENT_ECONOMY`): the "with atlatl" arm runs
 * as a user's install would.
 */
function installArgs(client: BenchClient): string[] {
  const threshold = installThreshold(client);
  return threshold !== undefined ? ["--threshold", String(threshold)] : [];
}

/**
 * The size sweep (`ATLATL_BENCH_SWEEP=20,40,80`): the medium question about a
 * report of each many records, offloaded by atlatl whatever its size, to find the
 * size below which offloading costs a client more session input than inline.
 */
function sweepScenarios(rowCounts: number[]): Scenario[] {
  return rowCounts.map((rows) => {
    const tokens = o200k(JSON.stringify(sizedReport(rows)));
    return {
      name: `sweep: ${rows} records (${tokens} o200k)`,
      tool: "sized_report",
      input: () => ({}),
      question: {
        ...FAILED,
        prompt: "How many items of the report failed? Answer with the number only.",
        path: ["items"],
      },
      atlatl: "proxy",
      // Threshold 1: atlatl offloads every size, so each row is offloaded against inline.
      server: (arm, _dir, client, offloadDir) =>
        throughProxy(arm, fixtureServer(["--rows", String(rows)]), client, offloadDir, [
          "--threshold",
          "1",
        ]),
      expected: () => JSON.stringify(FAILED.answer(sizedReport(rows).items)),
    };
  });
}

/** Limits of the "done when" (issue 30). */
const GENERIC_DESCRIPTOR_MAX = 500;
const MEMORY_DESCRIPTOR_MAX = 900;
const PROXY_TOOL_BYTES_MAX = 1000;

/** A broad recall: several hundred of the seeded corpus' 5,000 memories match. */
const MEMORY_QUERY = "rate limiter";
const READ_PAGE_MAX = READ_LIMITS.pageSize;

/**
 * `atlatl serve` over the seeded store: offloading off (alone) or on (with
 * atlatl, as `atlatl install <client>` writes it), writing to `offloadDir`
 * (default: the user's default).
 */
function memoryServer(
  arm: Arm,
  dir: string,
  client?: BenchClient,
  offloadDir?: string,
): StdioServer {
  return {
    command: process.execPath,
    args: [
      ATLATL,
      "--db",
      join(dir, "memories.db"),
      "serve",
      ...(arm === "atlatl" && client ? installArgs(client) : []),
    ],
    env:
      arm === "alone"
        ? { ATLATL_PROMPT__OFFLOAD__ENABLED: "false" }
        : offloadDir !== undefined
          ? { ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: offloadDir }
          : {},
  };
}

/** One question about one tool's result, asked in both arms. */
export interface Scenario {
  name: string;
  tool: string;
  /** The tool's arguments; `dir` is the run's scratch directory. */
  input(dir: string): Record<string, unknown>;
  question: Question;
  /** Writes what the server reads into `dir`, before the session. */
  prepare?(dir: string): void;
  /** Where atlatl sits in the "with atlatl" arm: `atlatl-proxy` in front, or the server itself. */
  atlatl: "proxy" | "server";
  /**
   * The server as `client` starts it in `arm`; `dir` is the run's scratch
   * directory. atlatl writes its files to `offloadDir`, by default the
   * directory a user's install gets (`$TMPDIR/atlatl-<uid>`): every recipe
   * carries the path, so its length is part of what a user pays.
   */
  server(arm: Arm, dir: string, client: BenchClient, offloadDir?: string): StdioServer;
  /** The right answer (JSON text), from the data itself (after `prepare`). */
  expected(dir: string): string | Promise<string>;
  /** The most o200k tokens atlatl's first tool_result may take (issue 30). */
  descriptorMax?: number;
  /** Small enough that atlatl must pass it through byte for byte. */
  passThrough?: boolean;
  /**
   * The upstream's text result, where atlatl's decision depends on the client's
   * threshold: a result it keeps inline must pass through byte for byte.
   */
  resultText?(): string;
}

/** The fixture upstream (token-economy-server.ts) under Node with tsx, from any cwd. */
function fixtureServer(extra: string[] = []): StdioServer {
  return {
    command: process.execPath,
    args: ["--conditions=source", "--import", TSX, FIXTURE, ...extra],
  };
}

/**
 * `arm`'s view of a generic upstream: itself, or behind `atlatl-proxy` as
 * `install <client>` wraps it, writing to `offloadDir` (default: the user's).
 */
function throughProxy(
  arm: Arm,
  upstream: StdioServer,
  client: BenchClient,
  offloadDir: string | undefined,
  proxyArgs: string[] = [],
): StdioServer {
  if (arm === "alone") return upstream;
  const out = offloadDir !== undefined ? ["--output-dir", offloadDir] : [];
  return {
    command: process.execPath,
    args: [
      PROXY,
      ...installArgs(client),
      ...out,
      // After install's: a later flag wins (the sweep's --threshold 1).
      ...proxyArgs,
      "--",
      upstream.command,
      ...upstream.args,
    ],
  };
}

/** 700 files in 10 packages of 7 modules, four extensions in turn. */
function makeTree(dir: string): void {
  const top = join(dir, "tree");
  let k = 0;
  for (let a = 0; a < 10; a++)
    for (let b = 0; b < 7; b++) {
      const d = join(top, `pkg${a}`, `mod${b}`);
      mkdirSync(d, { recursive: true });
      for (let c = 0; c < 10; c++, k++)
        writeFileSync(join(d, `file${k}.${["ts", "json", "md", "js"][k % 4]}`), "x");
    }
}

function fixtureScenario(
  name: string,
  tool: string,
  /** Whether atlatl offloads it at any client's threshold (else it is judged per client). */
  offloaded: boolean,
  prompt: string,
  path: string[],
  q: Omit<Question, "prompt" | "path">,
): Scenario {
  return {
    name,
    tool,
    input: () => ({}),
    question: { ...q, prompt, path },
    atlatl: "proxy",
    server: (arm, _dir, client, offloadDir) =>
      throughProxy(arm, fixtureServer(), client, offloadDir),
    descriptorMax: GENERIC_DESCRIPTOR_MAX,
    ...(offloaded ? {} : { resultText: () => JSON.stringify((DATASETS[tool] as () => unknown)()) }),
    expected: () => {
      let v = (DATASETS[tool] as () => unknown)();
      for (const k of path) v = (v as Record<string, unknown>)[k];
      return JSON.stringify(q.answer(v as unknown[]));
    },
  };
}

export const SCENARIOS: Scenario[] = [
  {
    name: "directory_tree, 700 files",
    tool: "directory_tree",
    input: (dir) => ({ path: join(dir, "tree") }),
    prepare: makeTree,
    question: {
      ...JSON_FILES,
      prompt: "How many .json files are in the tree? Answer with the number only.",
      path: [],
    },
    atlatl: "proxy",
    server: (arm, dir, client, offloadDir) =>
      throughProxy(
        arm,
        { command: process.execPath, args: [FILESYSTEM, join(dir, "tree")] },
        client,
        offloadDir,
      ),
    // Every fourth file of 700 (k % 4 === 1).
    expected: () => "175",
    descriptorMax: GENERIC_DESCRIPTOR_MAX,
  },
  fixtureScenario(
    "2,000 nested orders, one looked up",
    "list_orders",
    true,
    "Who is the customer of order ORD-01234 and what is its total? Answer as JSON.",
    ["orders"],
    lookupOrder("ORD-01234"),
  ),
  fixtureScenario(
    "5,000 records, count by field + top 5",
    "list_records",
    true,
    "Which 5 regions have the most records, with their counts? Answer as JSON.",
    [],
    TOP_REGIONS,
  ),
  fixtureScenario(
    "a medium result (~2k tokens)",
    "medium_report",
    false,
    "How many items of the report failed? Answer with the number only.",
    ["items"],
    FAILED,
  ),
  fixtureScenario(
    "a small result",
    "small_report",
    false,
    "How many items of the report failed? Answer with the number only.",
    ["items"],
    FAILED,
  ),
  {
    name: "memory server, broad recall over 5,000",
    tool: "recall_memories",
    // Every match in one call (the page maximum), so one command can answer in both arms.
    input: () => ({ query: MEMORY_QUERY, limit: READ_PAGE_MAX }),
    question: {
      ...BY_MEMORY_TYPE,
      prompt:
        "How many of my memories about the rate limiter are there of each memory type? Answer as JSON.",
      path: ["records"],
    },
    prepare: (dir) => {
      execFileSync(process.execPath, [
        ATLATL,
        "--db",
        join(dir, "memories.db"),
        "seed",
        "-n",
        "5000",
      ]);
    },
    atlatl: "server",
    server: (arm, dir, client, offloadDir) => memoryServer(arm, dir, client, offloadDir),
    expected: async (dir) => {
      // Every match, inline: what the question is about, read without any client in between.
      const client = new Client({ name: "token-economy-truth", version: "1.0.0" });
      const { command, args, env } = memoryServer("alone", dir);
      await client.connect(
        new StdioClientTransport({
          command,
          args,
          env: { ...env, PATH: process.env.PATH ?? "" },
          stderr: "ignore",
        }),
      );
      try {
        const r = await client.callTool({
          name: "recall_memories",
          arguments: { query: MEMORY_QUERY, limit: READ_PAGE_MAX },
        });
        const text = (r.content as { text?: string }[]).map((b) => b.text ?? "").join("");
        const page = JSON.parse(text) as { records: unknown[]; next_cursor?: unknown };
        if (page.next_cursor) throw new Error("the recall has more than one page of matches");
        return JSON.stringify(BY_MEMORY_TYPE.answer(page.records));
      } finally {
        await client.close();
      }
    },
    descriptorMax: MEMORY_DESCRIPTOR_MAX,
  },
];

/** Both arms of every scenario side by side, as the table. */
function printArms(label: string, details: Record<string, Record<Arm, SessionFigures>>): void {
  const header = [
    "scenario",
    "arm",
    "first tool_result o200k (chars/4)",
    "tool bytes",
    "turns",
    "session input o200k",
    "correct",
  ];
  const lines = Object.entries(details).flatMap(([name, arms]) =>
    (["alone", "atlatl"] as const).map((arm) => {
      const f = arms[arm];
      return [
        name,
        arm,
        `${f.firstResultTokens} (${f.firstResultChars4})`,
        String(f.toolBytes),
        String(f.turns),
        String(f.sessionInput),
        f.correct ? "yes" : "NO",
      ];
    }),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? "").length)));
  const row = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(
    `\n## ${label}: both arms\n\n${[row(header), row(widths.map((w) => "-".repeat(w))), ...lines.map(row)].join("\n")}`,
  );
}

/** A client CLI the benchmark drives. */
interface ClientUnderTest {
  /** Table name suffix and the client's name in titles. */
  id: BenchClient;
  label: string;
  bin: string;
  run: typeof runClaudeSession;
  /** The tool's own output in a tool result, where the client wraps it. */
  output?(result: string): string;
}

/** Run every scenario in both arms with one client. */
async function clientTable(client: ClientUnderTest, scenarios: Scenario[]): Promise<BenchTable> {
  const rows: BenchRow[] = [];
  const details: Record<string, Record<Arm, SessionFigures>> = {};
  const added: number[] = [];
  // The tool's own output in both arms (Codex adds a wall time that differs per call).
  const same = (a: string, b: string) =>
    client.output ? client.output(a) === client.output(b) : a === b;
  for (const s of scenarios) {
    const figures = {} as Record<Arm, SessionFigures>;
    // One directory name for both arms, emptied between them: the client puts its
    // path in every request, and two random names would tokenize differently.
    const dir = mkdtempSync(join(tmpdir(), "atlatl-token-economy-"));
    for (const arm of ["alone", "atlatl"] as const) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { mode: 0o700 });
      try {
        s.prepare?.(dir);
        const run = await client.run(
          client.bin,
          s.server(arm, dir, client.id),
          {
            tool: `mcp__${SERVER_NAME}__${s.tool}`,
            input: s.input(dir),
            question: s.question,
          },
          dir,
        );
        const log = process.env.ATLATL_BENCH_LOG_DIR;
        if (log) {
          mkdirSync(log, { recursive: true });
          writeFileSync(
            join(log, `${client.id}-${s.name.replace(/[^a-z0-9]+/gi, "-")}-${arm}.json`),
            JSON.stringify(run, null, 1),
          );
        }
        figures[arm] = measureSession(run, await s.expected(dir));
        if (run.errors.length > 0)
          console.error(`${client.label}, ${s.name} (${arm}): ${run.errors.join("; ")}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    details[s.name] = figures;
    const { alone, atlatl } = figures;
    // Kept inline for this client (its threshold): the upstream's bytes, not a descriptor.
    const inline = s.resultText ? !(await offloadsFor(client.id, s.resultText())) : false;
    const passThrough = s.passThrough || inline;
    if (s.atlatl === "proxy") added.push(atlatl.toolBytes - alone.toolBytes);
    else
      rows.push({
        name: `${s.name}: tool-definition bytes added by offloading`,
        value: atlatl.toolBytes - alone.toolBytes,
        unit: "bytes",
        notes: `the server's tools ${atlatl.serverToolBytes} vs ${alone.serverToolBytes} bytes`,
      });
    const ratio = atlatl.sessionInput / alone.sessionInput;
    rows.push(
      atMost(
        `${s.name}: session input, atlatl / alone`,
        ratio,
        "x",
        1,
        `${atlatl.sessionInput} vs ${alone.sessionInput} o200k; turns ${atlatl.turns} vs ${alone.turns}`,
      ),
      atMost(`${s.name}: turns with atlatl`, atlatl.turns, "", alone.turns, "peer: alone"),
      {
        ...(s.descriptorMax !== undefined && !passThrough
          ? atMost(
              `${s.name}: first tool_result with atlatl`,
              atlatl.firstResultTokens,
              "o200k",
              s.descriptorMax,
            )
          : passThrough
            ? {
                name: `${s.name}: first tool_result with atlatl, byte-identical`,
                value: Number(same(atlatl.firstResult, alone.firstResult)),
                unit: "",
                target: "1",
                pass: same(atlatl.firstResult, alone.firstResult),
              }
            : {
                name: `${s.name}: first tool_result with atlatl`,
                value: atlatl.firstResultTokens,
                unit: "o200k",
              }),
        notes: `chars/4 ${atlatl.firstResultChars4}; alone ${alone.firstResultTokens} o200k (chars/4 ${alone.firstResultChars4})`,
      },
      atLeast(
        `${s.name}: answers correct (both arms)`,
        Number(alone.correct) + Number(atlatl.correct),
        "of 2",
        2,
        `alone ${alone.answer.slice(0, 60)} | atlatl ${atlatl.answer.slice(0, 60)}`,
      ),
    );
  }
  printArms(client.label, details);
  const first = Object.values(details)[0];
  rows.push(
    atMost(
      "tool-definition bytes added by atlatl-proxy per request",
      Math.max(...added),
      "bytes",
      PROXY_TOOL_BYTES_MAX,
      first
        ? `all tools ${first.atlatl.toolBytes} vs ${first.alone.toolBytes} bytes; the server's ${first.atlatl.serverToolBytes} vs ${first.alone.serverToolBytes}`
        : undefined,
    ),
  );
  return {
    name: `token-economy-${client.id}`,
    title: `Token economy: ${client.label} alone vs with atlatl (o200k tokens of what the client sent)`,
    rows,
    details,
  };
}

/** The table of a client whose CLI is not installed: one row saying so (a missed target). */
function notMeasured(id: string, label: string, dirVar: string): BenchTable {
  return {
    name: `token-economy-${id}`,
    title: `Token economy: ${label} alone vs with atlatl`,
    rows: [
      {
        name: `${label}: not measured (no CLI; .ci/run installs it under $${dirVar})`,
        value: 0,
        unit: "",
        pass: false,
      },
    ],
  };
}

export const tokenEconomyBenchmark: Benchmark = {
  name: "token-economy",
  async run() {
    // ATLATL_BENCH_CLIENTS=codex (or claude-code) runs one client only.
    const only = process.env.ATLATL_BENCH_CLIENTS?.split(",");
    const want = (id: string) => !only || only.includes(id);
    const claude = want("claude-code") ? claudeBin() : undefined;
    const codex = want("codex") ? codexBin() : undefined;
    const sweep = (process.env.ATLATL_BENCH_SWEEP ?? "")
      .split(",")
      .filter((n) => n.trim() !== "")
      .map(Number);
    // ATLATL_BENCH_SCENARIOS=sweep (or any part of scenario names, comma-separated) runs those only.
    const picked = process.env.ATLATL_BENCH_SCENARIOS?.split(",").filter((p) => p.trim() !== "");
    const scenarios = [...SCENARIOS, ...sweepScenarios(sweep)].filter(
      (s) => !picked || picked.some((p) => s.name.includes(p.trim())),
    );
    const tables: BenchTable[] = [];
    if (want("claude-code"))
      tables.push(
        claude
          ? await clientTable(
              { id: "claude-code", label: "Claude Code", bin: claude, run: runClaudeSession },
              scenarios,
            )
          : notMeasured("claude-code", "Claude Code", "ATLATL_CLAUDE_CODE_DIR"),
      );
    if (want("codex"))
      tables.push(
        codex
          ? await clientTable(
              {
                id: "codex",
                label: "Codex",
                bin: codex,
                run: runCodexSession,
                output: codexOutput,
              },
              scenarios,
            )
          : notMeasured("codex", "Codex", "ATLATL_CODEX_DIR"),
      );
    return tables;
  },
};
