/**
 * Child process of the `proxy` benchmark: offloads one text result of the
 * given size through the proxy's engine and reports time and peak RSS growth
 * of this fresh process (run with `--expose-gc`). Prints one JSON line.
 * Peak RSS as in `lro-engine-rss-child.ts` (Linux high-water mark reset).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { createProxyEngine, DEFAULT_TOOL_POLICY } from "atlatl-proxy";
import { measurePeak } from "./peak-rss.js";
import { textResult } from "./proxy-fixtures.js";

const bytes = Number(process.argv[2] ?? String(5 * 1024 * 1024));
const dir = mkdtempSync(join(tmpdir(), "proxy-bench-rss-"));
const engine = await createProxyEngine({
  config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: dir },
  extractToolName: "lro_extract",
  resourcePrefix: "atlatl://offload/",
  events: new LroEvents({ sink: null }),
});
// Warm the code paths on a small result first (a fresh process would measure compilation).
await engine.offloadCallResult(textResult(64 * 1024), {
  name: "warm",
  policy: DEFAULT_TOOL_POLICY,
});
const result = textResult(bytes);
const resultBytes = Buffer.byteLength(JSON.stringify(result));

const m = await measurePeak(() =>
  engine.offloadCallResult(result, { name: "logs", policy: DEFAULT_TOOL_POLICY }),
);
const out = m.value;
const { ms, rssBefore, peak, resetPeak } = m;
const offloaded = out !== result;
await engine.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ offloaded, ms, resultBytes, rssBefore, peak, resetPeak })}\n`,
);
