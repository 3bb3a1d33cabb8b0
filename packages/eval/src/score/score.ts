/**
 * Per-sample metrics from a transcript alone: count accuracy (1 when the
 * answer equals the ground truth, else 0), total tokens and cost, turns,
 * content tokens (tool outputs), access ratio (distinct corpus records whose
 * id appears in an extraction tool's output / records offloaded) and E3's
 * query metrics.
 */
import { loadCorpus } from "../corpus/freeze.js";
import { totalTokens } from "../models/types.js";
import type { SampleRecord } from "../runner/transcript.js";
import { tokensOf } from "../strategies/lro-descriptor.js";
import { finalText, parseAnswer } from "./answer.js";
import { extractionQueries } from "./patterns.js";

export interface SampleScore {
  sample_id: string;
  model: string;
  scripted: boolean;
  experiment: string;
  condition: string;
  label: string;
  in_paper: boolean;
  scale: number;
  task_kind: string;
  truth: number;
  answer: number | null;
  correct: 0 | 1;
  outcome: string;
  total_tokens: number;
  cost_usd: number;
  turns: number;
  /** Messages of the conversation (system prompt included), what the budget counts. */
  messages: number;
  tool_calls: number;
  content_tokens: number;
  access_ratio: number | null;
  extraction_queries: number;
  aligned_queries: number;
  alignment_sum: number;
  descriptor_tokens: number | null;
  write_ms: number | null;
}

const corpusIds = new Map<string, Promise<Set<string>>>();

function idsAt(scale: number, dataDir?: string): Promise<Set<string>> {
  const key = `${dataDir ?? ""}\0${scale}`;
  let p = corpusIds.get(key);
  if (!p) {
    p = loadCorpus(scale, dataDir).then((c) => new Set(c.records.map((r) => r.id)));
    corpusIds.set(key, p);
  }
  return p;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export async function scoreSample(s: SampleRecord, dataDir?: string): Promise<SampleScore> {
  const answer =
    s.outcome === "answered" || s.outcome === "message_limit"
      ? parseAnswer(finalText(s.messages))
      : null;
  let contentTokens = 0;
  let toolCalls = 0;
  const read = new Set<string>();
  let descriptorTokens: number | null = null;
  const ids = s.offload ? await idsAt(s.scale, dataDir) : undefined;
  for (const m of s.messages) {
    if (m.role !== "tool") continue;
    toolCalls++;
    const tokens = await tokensOf(m.content);
    contentTokens += tokens;
    if (s.offload && m.name === "list_memories" && descriptorTokens === null)
      descriptorTokens = tokens;
    if (ids && m.name !== "list_memories") {
      for (const id of m.content.match(UUID) ?? []) if (ids.has(id)) read.add(id);
    }
  }
  const queries = extractionQueries(s.messages, s.offload?.file_path);
  return {
    sample_id: s.sample_id,
    model: s.model,
    scripted: s.scripted,
    experiment: s.experiment,
    condition: s.condition,
    label: s.label,
    in_paper: s.in_paper,
    scale: s.scale,
    task_kind: s.task_kind,
    truth: s.truth,
    answer,
    correct: answer === s.truth ? 1 : 0,
    outcome: s.outcome,
    total_tokens: totalTokens(s.usage),
    cost_usd: s.cost_usd,
    turns: s.turns.length,
    messages: s.message_count ?? s.messages.length + 1,
    tool_calls: toolCalls,
    content_tokens: contentTokens,
    access_ratio: s.offload ? read.size / s.offload.records : null,
    extraction_queries: queries.length,
    aligned_queries: queries.filter((q) => q.aligned).length,
    alignment_sum: queries.reduce((a, q) => a + q.alignment, 0),
    descriptor_tokens: descriptorTokens,
    write_ms: s.offload?.write_ms ?? null,
  };
}
