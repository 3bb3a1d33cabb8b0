/**
 * One sample: a fresh tool environment, the model and the tools taking turns
 * until the model answers without a tool call or the message budget is spent.
 * The budget is Inspect AI's `message_limit`, which the paper used (20): every
 * message of the conversation counts (system, user, assistant, each tool
 * result); no model call is made once the conversation holds the limit, and a
 * tool call whose result would exceed it is not run. A malformed tool call gets
 * an error result the model can act on.
 */
import type { Condition } from "../conditions/conditions.js";
import { systemPrompt } from "../conditions/prompts.js";
import type { MemoryRecord } from "../corpus/records.js";
import type { Task } from "../corpus/tasks.js";
import { costOf, type Price } from "../models/pricing.js";
import { addUsage, type ChatModel, type Message, ZERO_USAGE } from "../models/types.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { createEnvironment } from "../tools/environment.js";
import { fail } from "../tools/types.js";
import {
  type Outcome,
  type SampleRecord,
  sampleId,
  TRANSCRIPT_VERSION,
  type TurnLog,
} from "./transcript.js";

/** The paper's "20-turn message limit per task" (Inspect AI's `message_limit`). */
export const DEFAULT_MESSAGE_LIMIT = 20;

/** Messages in the conversation: the system prompt counts as one, as in Inspect AI. */
const conversationLength = (messages: readonly Message[]) => messages.length + 1;
/** Room for reasoning models (GPT-5-mini counts its reasoning tokens against this). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
export const DEFAULT_TOOL_TIMEOUT_MS = 20_000;

/** Errors no retry or other sample can fix (authentication, permission, unknown model). */
function isFatal(err: unknown): boolean {
  const status = (err as { status?: unknown })?.status;
  return status === 401 || status === 403 || status === 404;
}

interface SampleOptions {
  model: ChatModel;
  sandbox: Sandbox;
  price: Price | undefined;
  /** Messages per sample (every message counts); null for no limit. Default 20. */
  messageLimit?: number | null;
  maxOutputTokens?: number;
  toolTimeoutMs?: number;
  workRoot?: string;
}

export async function runSample(
  condition: Condition,
  task: Task,
  records: readonly MemoryRecord[],
  options: SampleOptions,
): Promise<SampleRecord> {
  const limit = options.messageLimit === undefined ? DEFAULT_MESSAGE_LIMIT : options.messageLimit;
  const started = Date.now();
  const env = await createEnvironment(condition, records, {
    sandbox: options.sandbox,
    timeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    ...(options.workRoot ? { root: options.workRoot } : {}),
  });
  const system = systemPrompt(condition.prompt);
  const messages: Message[] = [{ role: "user", content: task.prompt }];
  const room = () => limit === null || conversationLength(messages) < limit;
  const turns: TurnLog[] = [];
  let usage = ZERO_USAGE;
  let outcome: Outcome = "message_limit";
  let unrun = 0;
  let error: string | undefined;
  try {
    while (room()) {
      const t0 = performance.now();
      const reply = await options.model.complete({
        system,
        messages,
        tools: env.specs,
        maxTokens: options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      });
      turns.push({
        usage: reply.usage,
        stop_reason: reply.stopReason,
        ms: Math.round(performance.now() - t0),
        tool_calls: reply.toolCalls.length,
      });
      usage = addUsage(usage, reply.usage);
      messages.push({ role: "assistant", text: reply.text, toolCalls: reply.toolCalls });
      if (reply.toolCalls.length === 0) {
        outcome = "answered";
        break;
      }
      for (const [i, call] of reply.toolCalls.entries()) {
        if (!room()) {
          unrun = reply.toolCalls.length - i;
          break;
        }
        const out = call.arguments
          ? await env.call(call.name, call.arguments)
          : fail(
              "BAD_ARGUMENTS",
              `the arguments of ${call.name} were not a JSON object: ${call.rawArguments.slice(0, 200)}; send them again as a JSON object`,
            );
        messages.push({ role: "tool", toolCallId: call.id, name: call.name, ...out });
      }
    }
  } catch (err) {
    // A bad key or a forbidden model fails every sample alike: stop the run.
    if (isFatal(err)) throw err;
    outcome = "error";
    error = (err as Error)?.message ?? String(err);
  } finally {
    await env.close();
  }
  const off = env.state.offloaded;
  return {
    v: TRANSCRIPT_VERSION,
    sample_id: sampleId(condition.id, task.scale, task.id),
    model: options.model.id,
    scripted: options.model.scripted,
    sandbox: options.sandbox.mode,
    message_limit: limit,
    message_count: conversationLength(messages),
    experiment: condition.experiment,
    condition: condition.id,
    label: condition.label,
    in_paper: condition.inPaper,
    scale: task.scale,
    task_id: task.id,
    task_kind: task.kind,
    truth: task.answer,
    system,
    tools: env.specs,
    messages,
    turns,
    usage,
    cost_usd: costOf(usage, options.price),
    outcome,
    ...(outcome === "message_limit"
      ? {
          limit_note: `message limit ${limit} reached after ${turns.length} model calls${unrun ? `; ${unrun} tool call(s) of the last reply not run` : ""}; the answer is the last reply's text, if any`,
        }
      : {}),
    ...(error !== undefined ? { error } : {}),
    ...(off
      ? {
          offload: {
            file_path: off.filePath,
            records: records.length,
            write_ms: Math.round((env.state.writeMs ?? 0) * 10) / 10,
            descriptor_chars: JSON.stringify(off.descriptor).length,
          },
        }
      : {}),
    started_at: new Date(started).toISOString(),
    elapsed_ms: Date.now() - started,
  };
}
