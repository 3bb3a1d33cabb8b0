/**
 * `atlatl-eval report <results>`: report.md (Tables 1, 3-11 and the behaviour
 * table), charts/*.svg (accuracy with Wilson intervals and tokens, by strategy
 * and scale, per model and experiment) and report.html (all of it in one file).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CONDITIONS, type Experiment, samplesOf } from "../conditions/conditions.js";
import { loadResults, type Results } from "./aggregate.js";
import { PAPER_TABLES } from "./paper-values.js";
import { reportHtml, tableMarkdown } from "./render.js";
import { type BarChart, renderBarChart } from "./svg.js";
import { measureTable1, table1 } from "./table1.js";
import { behaviourTable, paperTables } from "./tables.js";

const HARNESS_BANNER =
  "HARNESS TEST: these results come from scripted agents (deterministic programs), not from a model. They test the harness and are not model results.";

function charts(r: Results): { name: string; svg: string }[] {
  const out: { name: string; svg: string }[] = [];
  const experiments = [
    ...new Set(CONDITIONS.filter((c) => r.has(samplesOf(c))).map((c) => c.experiment)),
  ] as Experiment[];
  for (const model of r.models) {
    const slug = model.replace(/[^A-Za-z0-9._-]+/g, "_");
    for (const e of experiments) {
      const conditions = CONDITIONS.filter((c) => c.experiment === e && r.has(samplesOf(c)));
      const groups = conditions.map((c) =>
        c.label.replace(" (not in paper)", "*").replace(" (guided)", ""),
      );
      const cells = r.scales.map((scale) =>
        conditions.map((c) => r.cell({ model, condition: samplesOf(c), scale })),
      );
      const acc: BarChart = {
        title: `${e.toUpperCase()} count accuracy by ${e === "e1" ? "strategy" : "condition"} and scale — ${model}`,
        groups,
        series: r.scales.map((scale, i) => ({
          name: `n=${scale}`,
          values: (cells[i] ?? []).map((c) => (c.n ? c.accuracy * 100 : null)),
          ci: (cells[i] ?? []).map((c) => (c.n ? [c.ci[0] * 100, c.ci[1] * 100] : null)),
        })),
        yMax: 100,
        yLabel: "accuracy % (95% CI)",
        format: (v) => v.toFixed(0),
      };
      const tokenValues = cells.flat().map((c) => c.totalTokens / 1000);
      const tok: BarChart = {
        title: `${e.toUpperCase()} API tokens (thousands, total per cell) by ${e === "e1" ? "strategy" : "condition"} and scale — ${model}`,
        groups,
        series: r.scales.map((scale, i) => ({
          name: `n=${scale}`,
          values: (cells[i] ?? []).map((c) => (c.n ? c.totalTokens / 1000 : null)),
        })),
        yMax: Math.max(1, ...tokenValues) * 1.05,
        yLabel: "tokens (thousands)",
        format: (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)),
      };
      out.push({ name: `${slug}-${e}-accuracy.svg`, svg: renderBarChart(acc) });
      out.push({ name: `${slug}-${e}-tokens.svg`, svg: renderBarChart(tok) });
    }
  }
  return out;
}

interface ReportFiles {
  markdown: string;
  html: string;
  charts: string[];
}

export async function writeReport(
  resultsDir: string,
  outDir = resultsDir,
  dataDir?: string,
): Promise<ReportFiles> {
  const r = await loadResults(resultsDir, dataDir);
  const offload = r.scores.filter((s) => s.access_ratio !== null);
  const rho = offload.length
    ? offload.reduce((a, s) => a + (s.access_ratio as number), 0) / offload.length
    : null;
  const measured = [
    table1(await measureTable1(dataDir), rho),
    ...paperTables(r),
    behaviourTable(r),
  ];
  // The paper's tables follow, for comparison; only those this run has a counterpart for.
  const ids = new Set(measured.map((t) => t.id));
  const tables = [...measured, ...PAPER_TABLES.filter((t) => ids.has(t.id.replace(/^paper-/, "")))];
  const chartList = charts(r);
  const title = "atlatl-eval report: Large Result Offloading, the paper's experiments on atlatl";
  const preamble = [
    ...(r.scripted ? [HARNESS_BANNER] : []),
    `Models: ${r.models.join(", ")}. Scales: ${r.scales.join(", ")}. Samples: ${r.scores.length}.`,
    "Accuracy cells carry Wilson 95 % confidence intervals. Table numbers follow the paper.",
    "Token figures: API tokens are the providers' reported usage (the paper's total_tokens); content tokens are the engine's estimate; Table 1's t and D are that estimate and real o200k tokens. Each table's note states its basis.",
  ];
  await mkdir(join(outDir, "charts"), { recursive: true });
  const markdown = [
    `# ${title}`,
    "",
    ...preamble.map((p) => (p === HARNESS_BANNER ? `> **${p}**\n` : `${p}\n`)),
    ...tables.map((t) => `${tableMarkdown(t)}\n`),
    "## Charts",
    "",
    ...chartList.map((c) => `![${c.name}](charts/${c.name})`),
    "",
  ].join("\n");
  const files: ReportFiles = {
    markdown: join(outDir, "report.md"),
    html: join(outDir, "report.html"),
    charts: chartList.map((c) => join(outDir, "charts", c.name)),
  };
  await writeFile(files.markdown, markdown);
  await writeFile(files.html, reportHtml(title, preamble, tables, chartList));
  for (const c of chartList) await writeFile(join(outDir, "charts", c.name), c.svg);
  return files;
}
