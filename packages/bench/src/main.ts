/**
 * `npm run bench`: runs every registered benchmark (or those named on the command
 * line), prints a table each and writes `packages/bench/results/*.json`.
 */
import type { Benchmark } from "./harness.js";
import { report } from "./harness.js";
import { benchmarks } from "./registry.js";

const wanted = new Set(process.argv.slice(2));
const selected: Benchmark[] = benchmarks.filter((b) => wanted.size === 0 || wanted.has(b.name));
if (selected.length === 0) {
  console.error(
    `no benchmark named ${[...wanted].join(", ")}; have: ${benchmarks.map((b) => b.name).join(", ")}`,
  );
  process.exit(2);
}
let failed = 0;
for (const bench of selected) {
  for (const table of await bench.run()) {
    report(table);
    failed += table.rows.filter((r) => r.pass === false).length;
  }
}
console.log(`\n${failed === 0 ? "all targets met" : `${failed} target(s) missed`}`);
