import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Latency statistics of repeated runs, in milliseconds. */
export interface Timing {
  runs: number;
  p50: number;
  p95: number;
  mean: number;
  min: number;
  max: number;
}

/** One row of a result table: a measured quantity beside its target. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  /** Human-readable target, e.g. "<= 3". */
  target?: string;
  /** Whether the value meets the target; undefined when there is none. */
  pass?: boolean;
  /** Free-form extra numbers (e.g. the paper's figure, a baseline). */
  notes?: string;
}

/** A named table of rows, as printed and as written to `results/{name}.json`. */
export interface BenchTable {
  name: string;
  title: string;
  rows: BenchRow[];
  /** Any structured detail worth keeping beside the rows. */
  details?: Record<string, unknown>;
}

/** A benchmark module: produces one or more tables. */
export interface Benchmark {
  name: string;
  run(): Promise<BenchTable[]>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? Number.NaN;
}

/** Summarize a list of durations in milliseconds. */
export function summarize(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    runs: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean: sum / Math.max(1, sorted.length),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Run `fn` `warmup` times unmeasured, then `runs` times measured. */
export async function measure(
  fn: () => unknown | Promise<unknown>,
  { runs = 50, warmup = 5 }: { runs?: number; warmup?: number } = {},
): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}

/** A row for a "lower is better" quantity with an upper bound as target. */
export function atMost(
  name: string,
  value: number,
  unit: string,
  limit: number,
  notes?: string,
): BenchRow {
  return {
    name,
    value,
    unit,
    target: `<= ${limit}`,
    pass: value <= limit,
    ...(notes ? { notes } : {}),
  };
}

/** A row for a "higher is better" quantity with a lower bound as target. */
export function atLeast(
  name: string,
  value: number,
  unit: string,
  limit: number,
  notes?: string,
): BenchRow {
  return {
    name,
    value,
    unit,
    target: `>= ${limit}`,
    pass: value >= limit,
    ...(notes ? { notes } : {}),
  };
}

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results");

function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** Print a table to stdout and write it as JSON to `packages/bench/results/{name}.json`. */
export function report(table: BenchTable): void {
  const header = ["measure", "value", "unit", "target", "ok", "notes"];
  const lines = table.rows.map((r) => [
    r.name,
    fmt(r.value),
    r.unit,
    r.target ?? "",
    r.pass === undefined ? "" : r.pass ? "yes" : "NO",
    r.notes ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? "").length)));
  const row = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(`\n## ${table.title}\n`);
  console.log(row(header));
  console.log(row(widths.map((w) => "-".repeat(w))));
  for (const l of lines) console.log(row(l));
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${table.name}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ ...table, node: process.version, date: new Date().toISOString() }, null, 2)}\n`,
  );
}
