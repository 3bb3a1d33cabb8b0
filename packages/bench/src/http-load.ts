/**
 * Load and processes for the server-http benchmark: servers as child
 * processes, autocannon runs (warm, interleaved so drift falls on every run
 * alike), and the rows that compare a run with its floor.
 */
import { type ChildProcess, spawn } from "node:child_process";
import autocannon from "autocannon";
import { atLeast, atMost, type BenchRow, summarize } from "./harness.js";

/** Seconds per autocannon run (the 30 s; shorter while iterating). */
export const DURATION_S = Number(process.env.ATLATL_BENCH_HTTP_SECONDS ?? 30);
export const CONNECTIONS = 10;
/** Spawn a server process and wait for the port it prints (stderr or stdout). */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`no port printed: ${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = pattern.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolvePort({ child, port: Number(m[1]) });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

/** Seconds of unmeasured load first: every server is measured warm (JIT, caches), the floors too. */
const WARMUP_S = 3;

async function load(opts: autocannon.Options, warm = true): Promise<Load> {
  if (warm) await autocannon({ connections: CONNECTIONS, ...opts, duration: WARMUP_S });
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    requests: r.requests.total,
  };
}

/**
 * Each of `runs` for half the duration, in order and then in reverse
 * (A B C C B A): a drift in the shared machine's load falls on every run
 * alike, so their ratios hold. Halves merge by requests over time; p99 is
 * the worse half's.
 */
export async function interleaved(runs: autocannon.Options[]): Promise<Load[]> {
  const half = (o: autocannon.Options, warm: boolean) =>
    load({ ...o, duration: DURATION_S / 2 }, warm);
  const first: Load[] = [];
  for (const o of runs) first.push(await half(o, true));
  const second: Load[] = [];
  for (const o of [...runs].reverse()) second.unshift(await half(o, false));
  return first.map((a, i) => {
    const b = second[i] as Load;
    return {
      rps: (a.rps + b.rps) / 2,
      p50: Math.max(a.p50, b.p50),
      p99: Math.max(a.p99, b.p99),
      errors: a.errors + b.errors,
      non2xx: a.non2xx + b.non2xx,
      requests: a.requests + b.requests,
    };
  });
}

/** `l`'s throughput as a percentage of `floor`'s. */
export function shareOf(l: Load, floor: Load): number {
  return (l.rps / floor.rps) * 100;
}

/** The three rows for a measure: share of its floor, p99, and no errors. */
export function targetRows(
  name: string,
  l: Load,
  floor: Load,
  targets: { share: number; p99: number },
): BenchRow[] {
  return [
    atLeast(
      name,
      shareOf(l, floor),
      "%",
      targets.share,
      `atlatl ${l.rps.toFixed(0)} vs floor ${floor.rps.toFixed(0)} req/s`,
    ),
    atMost("same, p99", l.p99, "ms", targets.p99),
    atMost("same, errors + non-2xx", l.errors + l.non2xx, "", 0),
  ];
}

/** p50/p95/mean of `samples` plus their p99 (the harness's summary stops at p95). */
export function withP99(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const p99 =
    sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
  return { ...summarize(samples), p99 };
}
