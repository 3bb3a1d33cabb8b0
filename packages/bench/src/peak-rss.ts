/**
 * Peak RSS growth of one operation in a benchmark child process (run with
 * `--expose-gc`). On Linux the high-water mark is reset (`/proc/self/clear_refs`)
 * just before the operation, so the peak measures it alone; elsewhere the
 * process's lifetime `maxRSS` is used (an overestimate, never an under-).
 */
import { readFileSync, writeFileSync } from "node:fs";

/** What {@link measurePeak} observed around one operation. */
interface PeakMeasurement<T> {
  value: T;
  /** Wall time of the operation, ms. */
  ms: number;
  /** CPU time (user + system) of the process during it, ms. */
  cpuMs: number;
  rssBefore: number;
  peak: number;
  /** Peak minus the RSS before, never negative. */
  growth: number;
  /** True when the Linux high-water mark was reset (the peak is the operation's own). */
  resetPeak: boolean;
}

function vmHwm(): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Collect garbage, reset the high-water mark, run `op`, and read the peak. */
export async function measurePeak<T>(op: () => Promise<T>): Promise<PeakMeasurement<T>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  let resetPeak = false;
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    resetPeak = true;
  } catch {
    // Not Linux (or not allowed): lifetime maxRSS below.
  }
  const rssBefore = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const value = await op();
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  const peak = (resetPeak ? vmHwm() : undefined) ?? process.resourceUsage().maxRSS * 1024;
  return {
    value,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBefore,
    peak,
    growth: Math.max(0, peak - rssBefore),
    resetPeak,
  };
}
