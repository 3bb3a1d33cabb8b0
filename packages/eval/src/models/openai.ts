/**
 * OpenAI chat completions through the `openai` SDK; with a base URL it talks
 * to any compatible server (vLLM, Ollama, llama.cpp). The SDK retries 408,
 * 409, 429 and 5xx with exponential backoff and honors `retry-after(-ms)`.
 * Cached prompt tokens (`prompt_tokens_details.cached_tokens`) are split out
 * of the input, so `input` is uncached input as for Anthropic.
 */
import OpenAI from "openai";
import {
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  type Message,
  parseArguments,
  replayArguments,
  type ToolCall,
} from "./types.js";

interface OpenAIOptions {
  model: string;
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  maxRetries: number;
  timeoutMs: number;
}

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

function toWire(system: string, messages: readonly Message[]): WireMessage[] {
  const out: WireMessage[] = [{ role: "system", content: system }];
  for (const m of messages) {
    if (m.role === "user") out.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      out.push({
        role: "assistant",
        content: m.text === "" ? null : m.text,
        ...(m.toolCalls.length
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: "function" as const,
                function: { name: c.name, arguments: JSON.stringify(replayArguments(c)) },
              })),
            }
          : {}),
      });
    } else out.push({ role: "tool", tool_call_id: m.toolCallId, content: m.content });
  }
  return out;
}

/** Reasoning-era OpenAI models take `max_completion_tokens`; local servers `max_tokens`. */
function usesCompletionTokens(model: string, baseURL: string | undefined): boolean {
  return !baseURL && /^(gpt-5|gpt-4\.1|o\d)/.test(model);
}

/**
 * Local servers are loose where OpenAI is strict: a call may lack `type` or
 * `id`, or carry its arguments as an object. Accept those; ids made up here are
 * unique within the sample (the turn's position and the call's index).
 */
function looseToolCalls(calls: readonly unknown[], turn: number): ToolCall[] {
  const out: ToolCall[] = [];
  calls.forEach((raw, i) => {
    const c = raw as {
      id?: unknown;
      type?: unknown;
      function?: { name?: unknown; arguments?: unknown };
    };
    if (!c.function || (c.type !== undefined && c.type !== "function")) return;
    const args = c.function.arguments;
    const rawArguments = typeof args === "string" ? args : JSON.stringify(args ?? {});
    out.push({
      id: typeof c.id === "string" && c.id !== "" ? c.id : `call_${turn}_${i}`,
      name: String(c.function.name ?? ""),
      arguments: parseArguments(rawArguments),
      rawArguments,
    });
  });
  return out;
}

export function openaiModel(id: string, options: OpenAIOptions): ChatModel {
  const baseURL = options.baseURL ?? process.env.OPENAI_BASE_URL;
  const client = new OpenAI({
    // Local servers need no key, but the SDK insists on one.
    apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? (baseURL ? "not-needed" : undefined),
    ...(baseURL ? { baseURL } : {}),
    maxRetries: options.maxRetries,
    timeout: options.timeoutMs,
  });
  return {
    id,
    scripted: false,
    async complete(req: ChatRequest): Promise<ChatReply> {
      const limit = usesCompletionTokens(options.model, options.baseURL)
        ? { max_completion_tokens: req.maxTokens }
        : { max_tokens: req.maxTokens };
      const r = await client.chat.completions.create({
        model: options.model,
        messages: toWire(req.system, req.messages),
        tools: req.tools.map((t) => ({
          type: "function" as const,
          function: { name: t.name, description: t.description, parameters: t.parameters },
        })),
        ...limit,
      });
      const choice = r.choices[0];
      const msg = choice?.message;
      const cached = r.usage?.prompt_tokens_details?.cached_tokens ?? 0;
      return {
        text: msg?.content ?? "",
        toolCalls: looseToolCalls(msg?.tool_calls ?? [], req.messages.length),
        stopReason: choice?.finish_reason ?? "unknown",
        usage: {
          input: (r.usage?.prompt_tokens ?? 0) - cached,
          output: r.usage?.completion_tokens ?? 0,
          cacheRead: cached,
          cacheWrite: 0,
        },
      };
    },
  };
}
