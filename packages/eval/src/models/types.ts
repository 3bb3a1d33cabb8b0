/**
 * The model seam: a provider-neutral conversation, one request and one reply
 * per turn. Adapters translate to each wire format; the runner and the scorer
 * only see these types (and transcripts store them).
 */
import type { ToolSpec } from "../tools/types.js";

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments, or null when the model sent something that is not a JSON object. */
  arguments: Record<string, unknown> | null;
  /** The arguments as the model sent them (JSON text). */
  rawArguments: string;
}

export type Message =
  | { role: "user"; content: string }
  | { role: "assistant"; text: string; toolCalls: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError: boolean };

export interface Usage {
  /** Uncached input tokens. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}

/** The paper's `total_tokens`: every token billed in or out. */
export function totalTokens(u: Usage): number {
  return u.input + u.output + u.cacheRead + u.cacheWrite;
}

export interface ChatRequest {
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  maxTokens: number;
}

export interface ChatReply {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  /** The provider's stop reason, as sent. */
  stopReason: string;
}

export interface ChatModel {
  /** `provider:model`, as given on the command line. */
  readonly id: string;
  /** Scripted agents are harness tests; reports mark them so. */
  readonly scripted: boolean;
  complete(request: ChatRequest): Promise<ChatReply>;
}

/**
 * Arguments to send back in the history. A malformed call is replayed as a JSON
 * object holding the raw text: some servers (vLLM chat templates) parse every
 * past call's arguments and would reject the whole request.
 */
export function replayArguments(c: ToolCall): Record<string, unknown> {
  return c.arguments ?? { invalid_arguments: c.rawArguments };
}

/** Parse tool arguments as a model sent them; null unless they are a JSON object. */
export function parseArguments(raw: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(raw === "" ? "{}" : raw) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
