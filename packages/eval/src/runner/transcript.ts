/**
 * One line of `samples.jsonl` per finished sample: the full transcript
 * (system prompt, tools, every message, tool call and tool output), per-turn
 * usage and the outcome. Everything the scorer needs, so a run is re-scored
 * without calling the model again. The last line of a sample id wins (an
 * errored sample is run again on resume and appended).
 */
import { appendFile, mkdir, open, readFile, truncate } from "node:fs/promises";
import { dirname } from "node:path";
import type { Experiment } from "../conditions/conditions.js";
import type { TaskKind } from "../corpus/tasks.js";
import type { Message, Usage } from "../models/types.js";
import type { SandboxMode } from "../sandbox/sandbox.js";
import type { ToolSpec } from "../tools/types.js";

/** 2: the message budget (`message_limit`, `message_count`) replaced the turn limit. */
export const TRANSCRIPT_VERSION = 2;

export interface TurnLog {
  usage: Usage;
  stop_reason: string;
  ms: number;
  /** Tool calls in the reply (each result is one message of the budget). */
  tool_calls?: number;
}

/** `turn_limit`: version-1 transcripts (a limit on model calls). */
export type Outcome = "answered" | "message_limit" | "turn_limit" | "error";

export interface SampleRecord {
  v: number;
  sample_id: string;
  model: string;
  scripted: boolean;
  sandbox: SandboxMode;
  /** Messages allowed (system, user, assistant and tool all count); null: no limit. */
  message_limit: number | null;
  /** Messages in the conversation at the end, system prompt included. */
  message_count: number;
  experiment: Experiment;
  condition: string;
  label: string;
  in_paper: boolean;
  scale: number;
  task_id: string;
  task_kind: TaskKind;
  truth: number;
  system: string;
  tools: ToolSpec[];
  messages: Message[];
  turns: TurnLog[];
  usage: Usage;
  cost_usd: number;
  outcome: Outcome;
  /** Says that the message budget ended the sample, and what was cut. */
  limit_note?: string;
  error?: string;
  /** The offload, when the condition offloads and the agent listed the memories. */
  offload?: { file_path: string; records: number; write_ms: number; descriptor_chars: number };
  started_at: string;
  elapsed_ms: number;
}

export const sampleId = (condition: string, scale: number, taskId: string) =>
  `${condition}/${scale}/${taskId}`;

/** Finished samples of a file, last line per id; a torn last line is dropped from the file. */
export async function readSamples(path: string): Promise<Map<string, SampleRecord>> {
  const out = new Map<string, SampleRecord>();
  const text = await readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return "";
    throw e;
  });
  const end = text.lastIndexOf("\n") + 1;
  if (end < text.length) await truncate(path, Buffer.byteLength(text.slice(0, end)));
  for (const line of text.slice(0, end).split("\n")) {
    if (line === "") continue;
    const r = JSON.parse(line) as SampleRecord;
    out.set(r.sample_id, r);
  }
  return out;
}

/** Appends whole lines, one at a time, to a 0600 file. */
export class SampleWriter {
  private chain: Promise<void> = Promise.resolve();
  constructor(private readonly path: string) {}

  async init(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await (await open(this.path, "a", 0o600)).close();
  }

  append(record: SampleRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    this.chain = this.chain.then(() => appendFile(this.path, line));
    return this.chain;
  }
}
