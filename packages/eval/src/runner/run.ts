/**
 * The grid: conditions x scales x tasks for one model, run with a concurrency
 * limit, every finished sample appended to `<out>/<model>/samples.jsonl`.
 * Resumable: samples already in the file (other than errors) are skipped.
 */
import { join } from "node:path";
import pLimit from "p-limit";
import { type Condition, runnable } from "../conditions/conditions.js";
import { type Corpus, loadCorpus, tasksOf } from "../corpus/freeze.js";
import { type PriceTable, priceOf } from "../models/pricing.js";
import type { ChatModel } from "../models/types.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { type SampleScore, scoreSample } from "../score/score.js";
import { DEFAULT_MESSAGE_LIMIT, runSample } from "./sample.js";
import { readSamples, type SampleRecord, SampleWriter, sampleId } from "./transcript.js";

export const SAMPLES_FILE = "samples.jsonl";
export const DEFAULT_CONCURRENCY = 4;

interface RunOptions {
  model: ChatModel;
  conditions: readonly Condition[];
  scales: readonly number[];
  tasks: number;
  out: string;
  sandbox: Sandbox;
  prices: PriceTable;
  concurrency?: number;
  /** Messages per sample; null for no limit (default: the paper's 20). */
  messageLimit?: number | null;
  maxOutputTokens?: number;
  toolTimeoutMs?: number;
  dataDir?: string;
  /** Called after each sample (progress display). */
  onSample?: (score: SampleScore, done: number, total: number) => void;
  /** Called once the work list is known. */
  onStart?: (total: number, skipped: number) => void;
}

export interface RunSummary {
  dir: string;
  ran: number;
  skipped: number;
  scores: SampleScore[];
}

/** `anthropic:claude-haiku-4-5` -> `anthropic_claude-haiku-4-5` (a folder name). */
export const modelDir = (model: string) => model.replace(/[^A-Za-z0-9._-]+/g, "_");

export async function runGrid(o: RunOptions): Promise<RunSummary> {
  const dir = join(o.out, modelDir(o.model.id));
  const file = join(dir, SAMPLES_FILE);
  const writer = new SampleWriter(file);
  await writer.init();
  const done = await readSamples(file);
  // One budget per results folder: resumed samples must be comparable with finished ones.
  const budget = o.messageLimit === undefined ? DEFAULT_MESSAGE_LIMIT : o.messageLimit;
  const limitOf = (s: SampleRecord) => (s.v < 2 ? "a version-1 turn limit" : s.message_limit);
  const other = [...done.values()].find((s) => limitOf(s) !== budget);
  if (other) {
    throw new Error(
      `${file} holds samples run under message limit ${limitOf(other) ?? "none"}, not ${budget ?? "none"}; use another --out`,
    );
  }
  const corpora = new Map<number, Corpus>();
  for (const scale of o.scales) corpora.set(scale, await loadCorpus(scale, o.dataDir));

  const work: { condition: Condition; corpus: Corpus; taskIndex: number }[] = [];
  let skipped = 0;
  // E2 C5 is the E1 Inline run (as in the paper): asked for, it runs that, once.
  for (const condition of runnable(o.conditions)) {
    for (const scale of o.scales) {
      const corpus = corpora.get(scale) as Corpus;
      const tasks = tasksOf(corpus, condition.taskKind);
      if (o.tasks > tasks.length)
        throw new Error(`--tasks ${o.tasks}: only ${tasks.length} frozen tasks per scale`);
      for (let i = 0; i < o.tasks; i++) {
        const prior = done.get(sampleId(condition.id, scale, tasks[i]?.id as string));
        if (prior && prior.outcome !== "error") skipped++;
        else work.push({ condition, corpus, taskIndex: i });
      }
    }
  }
  o.onStart?.(work.length, skipped);
  const limit = pLimit(o.concurrency ?? DEFAULT_CONCURRENCY);
  const price = priceOf(o.model.id, o.prices);
  const scores: SampleScore[] = [];
  let finished = 0;
  let fatal: unknown;
  await Promise.all(
    work.map(({ condition, corpus, taskIndex }) =>
      limit(async () => {
        if (fatal) return;
        const task = tasksOf(corpus, condition.taskKind)[taskIndex];
        if (!task) return;
        let record: SampleRecord;
        try {
          record = await runSample(condition, task, corpus.records, {
            model: o.model,
            sandbox: o.sandbox,
            price,
            ...(o.messageLimit !== undefined ? { messageLimit: o.messageLimit } : {}),
            ...(o.maxOutputTokens !== undefined ? { maxOutputTokens: o.maxOutputTokens } : {}),
            ...(o.toolTimeoutMs !== undefined ? { toolTimeoutMs: o.toolTimeoutMs } : {}),
          });
        } catch (err) {
          // Queued samples see `fatal` and return at once (clearQueue would leave them pending).
          fatal ??= err;
          return;
        }
        await writer.append(record);
        const score = await scoreSample(record, o.dataDir);
        scores.push(score);
        o.onSample?.(score, ++finished, work.length);
      }),
    ),
  );
  if (fatal) {
    const e = fatal as { status?: number; message?: string };
    throw new Error(
      `stopped after ${finished} samples (saved; rerun to resume): the model API answered ${e.status ?? "an error"}: ${e.message ?? String(fatal)}`,
    );
  }
  return { dir, ran: work.length, skipped, scores };
}
