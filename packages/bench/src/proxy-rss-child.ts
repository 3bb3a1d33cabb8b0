/**
 * Child process of the `proxy` benchmark: offloads one text result of the
 * given size through the proxy's engine and reports time and peak RSS growth
 * of this fresh process (run with `--expose-gc`). Prints one JSON line.
 * Peak RSS as in `lro-engine-rss-child.ts` (Linux high-water mark reset).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { createProxyEngine, DEFAULT_TOOL_POLICY } from "atlatl-proxy";
import { textResult } from "./proxy-fixtures.js";

const bytes = Number(process.argv[2] ?? String(5 * 1024 * 1024));
const dir = mkdtempSync(join(tmpdir(), "proxy-bench-rss-"));
const engine = await createProxyEngine({
  config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: dir },
  extractToolName: "lro_extract",
  resourcePrefix: "atlatl://offload/",
  memoryProfile: false,
  events: new LroEvents({ sink: null }),
});
// Warm the code paths on a small result first (a fresh process would measure compilation).
await engine.offloadCallResult(textResult(64 * 1024), {
  name: "warm",
  policy: DEFAULT_TOOL_POLICY,
});
const result = textResult(bytes);
const resultBytes = Buffer.byteLength(JSON.stringify(result));

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
  // Not Linux: maxRSS below (an overestimate).
}
const rssBefore = process.memoryUsage().rss;
const start = performance.now();
const out = await engine.offloadCallResult(result, { name: "logs", policy: DEFAULT_TOOL_POLICY });
const ms = performance.now() - start;
const peak = (resetPeak ? vmHwm() : undefined) ?? process.resourceUsage().maxRSS * 1024;
const offloaded = out !== result;
await engine.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ offloaded, ms, resultBytes, rssBefore, peak, resetPeak })}\n`,
);
