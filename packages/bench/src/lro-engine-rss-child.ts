/**
 * Child process of the `lro-engine` benchmark: offloads 100,000 full-detail
 * records once and reports the time and the peak RSS growth of this fresh
 * process (run with `--expose-gc`). Prints one JSON line on stdout.
 *
 * Peak RSS: see `peak-rss.ts` (reset after the records exist, so the peak
 * measures the offload alone).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import { makeMemories } from "../../lro/test/fixtures/memory-records.js";
import { measurePeak } from "./peak-rss.js";

const count = Number(process.argv[2] ?? "100000");
// Flat strings, as records from a store or the network have (see flatMemories),
// made one record at a time so no large garbage inflates the baseline.
const records = makeMemories(count).map((m) => JSON.parse(JSON.stringify(m)) as object);
const dir = mkdtempSync(join(tmpdir(), "lro-bench-rss-"));
const offloader = new Offloader({
  config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: dir },
  events: new LroEvents({ sink: null }),
});

const m = await measurePeak(() =>
  offloader.offloadRecords({ operation: "recall", query: "everything", detail: "full", records }),
);
const outcome = m.value;
const { ms, cpuMs, rssBefore, peak, resetPeak } = m;
const bytes = outcome.kind === "offloaded" ? outcome.file.bytes : 0;
rmSync(dir, { recursive: true, force: true });
// The serialization floor, measured after (it must not disturb the peak above).
const floorStart = performance.now();
for (const r of records) JSON.stringify(r);
const floorMs = performance.now() - floorStart;
process.stdout.write(
  `${JSON.stringify({ kind: outcome.kind, count, ms, cpuMs, floorMs, bytes, rssBefore, peak, resetPeak, tokens: outcome.estimatedTokens })}\n`,
);
