/**
 * Scores of a results folder grouped into cells (model x condition x scale),
 * each with the sums the tables need. Every `<dir>/*\/samples.jsonl` is one
 * model's run; scores are recomputed from the transcripts.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { SAMPLES_FILE } from "../runner/run.js";
import { readSamples } from "../runner/transcript.js";
import { type SampleScore, scoreSample } from "../score/score.js";
import { wilson } from "./wilson.js";

export interface Cell {
  n: number;
  correct: number;
  accuracy: number;
  ci: [number, number];
  totalTokens: number;
  contentTokens: number;
  costUsd: number;
  turns: number;
  accessRatio: number | null;
  extractionQueries: number;
  alignedQueries: number;
  alignmentSum: number;
}

export function cellOf(scores: readonly SampleScore[]): Cell {
  const n = scores.length;
  const correct = scores.reduce((a, s) => a + s.correct, 0);
  const ratios = scores.map((s) => s.access_ratio).filter((r): r is number => r !== null);
  return {
    n,
    correct,
    accuracy: n ? correct / n : 0,
    ci: wilson(correct, n),
    totalTokens: scores.reduce((a, s) => a + s.total_tokens, 0),
    contentTokens: scores.reduce((a, s) => a + s.content_tokens, 0),
    costUsd: scores.reduce((a, s) => a + s.cost_usd, 0),
    turns: n ? scores.reduce((a, s) => a + s.turns, 0) / n : 0,
    accessRatio: ratios.length ? ratios.reduce((a, r) => a + r, 0) / ratios.length : null,
    extractionQueries: scores.reduce((a, s) => a + s.extraction_queries, 0),
    alignedQueries: scores.reduce((a, s) => a + s.aligned_queries, 0),
    alignmentSum: scores.reduce((a, s) => a + s.alignment_sum, 0),
  };
}

export class Results {
  constructor(readonly scores: readonly SampleScore[]) {}

  get models(): string[] {
    return [...new Set(this.scores.map((s) => s.model))].sort();
  }
  get scales(): number[] {
    return [...new Set(this.scores.map((s) => s.scale))].sort((a, b) => a - b);
  }
  get scripted(): boolean {
    return this.scores.some((s) => s.scripted);
  }
  has(condition: string): boolean {
    return this.scores.some((s) => s.condition === condition);
  }
  select(f: { model?: string; condition?: string; scale?: number }): SampleScore[] {
    return this.scores.filter(
      (s) =>
        (f.model === undefined || s.model === f.model) &&
        (f.condition === undefined || s.condition === f.condition) &&
        (f.scale === undefined || s.scale === f.scale),
    );
  }
  cell(f: { model?: string; condition?: string; scale?: number }): Cell {
    return cellOf(this.select(f));
  }
}

/** Every model folder's samples under `dir`, scored. */
export async function loadResults(dir: string, dataDir?: string): Promise<Results> {
  const scores: SampleScore[] = [];
  const entries = await readdir(dir).catch(() => {
    throw new Error(`no results folder at ${dir}`);
  });
  for (const name of entries.sort()) {
    const file = join(dir, name, SAMPLES_FILE);
    if (!(await stat(file).catch(() => undefined))) continue;
    for (const s of (await readSamples(file)).values()) scores.push(await scoreSample(s, dataDir));
  }
  if (scores.length === 0)
    throw new Error(`no ${SAMPLES_FILE} under ${dir}/<model>/; run \`atlatl-eval run\` first`);
  return new Results(scores);
}
