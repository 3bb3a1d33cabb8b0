/**
 * Child process of the `lro-engine` benchmark: offloads 100,000 full-detail
 * records once and reports the time and the peak RSS growth of this fresh
 * process (run with `--expose-gc`). Prints one JSON line on stdout.
 *
 * Peak RSS: on Linux the high-water mark is reset (`/proc/self/clear_refs`)
 * after the records exist, so the peak measures the offload alone; elsewhere
 * the process's lifetime `maxRSS` is used (an overestimate, never an under-).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import { makeMemories } from "../../lro/test/fixtures/memory-records.js";

const count = Number(process.argv[2] ?? "100000");
// Flat strings, as records from a store or the network have (see flatMemories),
// made one record at a time so no large garbage inflates the baseline.
const records = makeMemories(count).map((m) => JSON.parse(JSON.stringify(m)) as object);
const dir = mkdtempSync(join(tmpdir(), "lro-bench-rss-"));
const offloader = new Offloader({
  config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: dir },
  events: new LroEvents({ sink: null }),
});

function vmHwm(): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
gc?.();
let resetPeak = false;
try {
  writeFileSync("/proc/self/clear_refs", "5");
  resetPeak = true;
} catch {
  // Not Linux (or not allowed): fall back to maxRSS below.
}
const rssBefore = process.memoryUsage().rss;
const cpuBefore = process.cpuUsage();
const start = performance.now();
const outcome = await offloader.offloadRecords({
  operation: "recall",
  query: "everything",
  detail: "full",
  records,
});
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
const peak = (resetPeak ? vmHwm() : undefined) ?? process.resourceUsage().maxRSS * 1024;
const bytes = outcome.kind === "offloaded" ? outcome.file.bytes : 0;
rmSync(dir, { recursive: true, force: true });
// The serialization floor, measured after (it must not disturb the peak above).
const floorStart = performance.now();
for (const r of records) JSON.stringify(r);
const floorMs = performance.now() - floorStart;
process.stdout.write(
  `${JSON.stringify({ kind: outcome.kind, count, ms, cpuMs, floorMs, bytes, rssBefore, peak, resetPeak, tokens: outcome.estimatedTokens })}\n`,
);
