/**
 * Per-sample metrics from a transcript alone: count accuracy (1 when the
 * answer equals the ground truth, else 0), total tokens and cost, turns and
 * messages, content tokens (tool outputs), the access ratio
 * ({@link ACCESS_RATIO_DEFINITION}) and E3's query metrics.
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
  /** The sample's budget as the report names it: "20", "unlimited", or a version-1 turn limit. */
  budget: string;
  tool_calls: number;
  content_tokens: number;
  access_ratio: number | null;
  extraction_queries: number;
  aligned_queries: number;
  alignment_sum: number;
  descriptor_tokens: number | null;
  write_ms: number | null;
}

/** The report states this definition beside every access ratio. */
export const ACCESS_RATIO_DEFINITION =
  "Access ratio (the paper's rho = k/n, the fraction of offloaded records the agent consumed): k counts the distinct records whose content (the record's body, its `content` text) reached the agent through an extraction tool (bash, read_file, lro_extract, python_exec); ids, titles, counts or other fields alone do not consume a record. Offload conditions only.";

const corpusBodies = new Map<string, Promise<{ id: string; body: string }[]>>();

function bodiesAt(scale: number, dataDir?: string): Promise<{ id: string; body: string }[]> {
  const key = `${dataDir ?? ""}\0${scale}`;
  let p = corpusBodies.get(key);
  if (!p) {
    p = loadCorpus(scale, dataDir).then((c) =>
      c.records.map((r) => ({ id: r.id, body: r.content })),
    );
    corpusBodies.set(key, p);
  }
  return p;
}

/** Records whose body appears in the text (as printed raw, or as a JSON string). */
function consumed(
  text: string,
  bodies: readonly { id: string; body: string }[],
  into: Set<string>,
) {
  for (const { id, body } of bodies) {
    if (!into.has(id) && (text.includes(body) || text.includes(JSON.stringify(body).slice(1, -1))))
      into.add(id);
  }
}

function budgetLabel(s: SampleRecord): string {
  if (s.v < 2) {
    const turns = (s as { max_turns?: number }).max_turns;
    return `${turns ?? "?"} model calls (a version-1 transcript, before the message budget)`;
  }
  return s.message_limit === null ? "unlimited" : String(s.message_limit);
}

export async function scoreSample(s: SampleRecord, dataDir?: string): Promise<SampleScore> {
  const answer =
    s.outcome === "answered" || s.outcome === "message_limit"
      ? parseAnswer(finalText(s.messages))
      : null;
  let contentTokens = 0;
  let toolCalls = 0;
  const read = new Set<string>();
  let descriptorTokens: number | null = null;
  const bodies = s.offload ? await bodiesAt(s.scale, dataDir) : undefined;
  for (const m of s.messages) {
    if (m.role !== "tool") continue;
    toolCalls++;
    const tokens = await tokensOf(m.content);
    contentTokens += tokens;
    if (s.offload && m.name === "list_memories" && descriptorTokens === null)
      descriptorTokens = tokens;
    if (bodies && m.name !== "list_memories") consumed(m.content, bodies, read);
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
    budget: budgetLabel(s),
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
