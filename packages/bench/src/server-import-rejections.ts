/**
 * Import of a `.json` file that is all rejections (issue 9: a 5 MB array of
 * numbers used 561 MB building its report; 50 MB ran out of memory). The report
 * keeps the first rejections and a count, so the import's peak RSS should stay
 * near the floor measured in the same run: a fresh process that only JSON.parses
 * the same file.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { atMost, type Benchmark, type BenchTable } from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const NUMBERS = 2_500_000; // "7," each: a 5 MB file

function writeNumbers(file: string): void {
  const fd = openSync(file, "w");
  const chunk = Array(100_000).fill(7).join(",");
  writeSync(fd, "[");
  for (let n = 0; n < NUMBERS; n += 100_000) writeSync(fd, `${n === 0 ? "" : ","}${chunk}`);
  writeSync(fd, "]");
  closeSync(fd);
}

function child(mode: "parse" | "import", file: string) {
  const run = spawnSync(
    process.execPath,
    [
      "--conditions=source",
      "--import",
      "tsx",
      join(here, "server-import-rejections-child.ts"),
      mode,
      file,
    ],
    { cwd: resolve(here, "../../.."), encoding: "utf8", maxBuffer: 1 << 20 },
  );
  if (run.status !== 0) throw new Error(`server-import-rejections child failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").pop() as string) as {
    ms: number;
    peak: number;
    rejected: number;
  };
}

async function run(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-rejections-"));
  try {
    const file = join(dir, "numbers.json");
    writeNumbers(file);
    const floor = child("parse", file);
    const imported = child("import", file);
    if (imported.rejected !== NUMBERS)
      throw new Error(`rejected ${imported.rejected}, not ${NUMBERS}`);
    const mib = (n: number) => Math.round((n / (1024 * 1024)) * 10) / 10;
    return [
      {
        name: "server-import-rejections",
        title: `Import of a 5 MB .json array of ${NUMBERS.toLocaleString("en")} numbers (all rejected)`,
        rows: [
          { name: "import peak RSS", value: mib(imported.peak), unit: "MiB" },
          { name: "floor: JSON.parse of the file, peak RSS", value: mib(floor.peak), unit: "MiB" },
          atMost(
            "import peak RSS / floor",
            Math.round((imported.peak / floor.peak) * 100) / 100,
            "x",
            2,
            `before the fix: 561 MB; load avg ${(loadavg()[0] ?? 0).toFixed(1)}`,
          ),
          { name: "import wall time", value: Math.round(imported.ms), unit: "ms" },
          { name: "floor: JSON.parse wall time", value: Math.round(floor.ms), unit: "ms" },
        ],
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const serverImportRejectionsBenchmark: Benchmark = { name: "server-import-rejections", run };
