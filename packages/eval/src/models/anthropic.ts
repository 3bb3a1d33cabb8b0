/**
 * Anthropic Messages API through `@anthropic-ai/sdk`. The SDK retries 408,
 * 409, 429 and 5xx with exponential backoff and honors `retry-after(-ms)`.
 * Consecutive tool results go back in one user turn, as the API requires.
 */
import Anthropic from "@anthropic-ai/sdk";
import {
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  type Message,
  replayArguments,
  type ToolCall,
} from "./types.js";

interface AnthropicOptions {
  model: string;
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  maxRetries: number;
  timeoutMs: number;
  /** Mark the conversation's last block for prompt caching (one moving breakpoint). */
  promptCache?: boolean;
}

type Block = Anthropic.ContentBlockParam;

function toWire(messages: readonly Message[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    if (m.role === "user") {
      out.push({ role: "user", content: m.content });
    } else if (m.role === "assistant") {
      const content: Block[] = [];
      if (m.text) content.push({ type: "text", text: m.text });
      for (const c of m.toolCalls) {
        content.push({ type: "tool_use", id: c.id, name: c.name, input: replayArguments(c) });
      }
      out.push({ role: "assistant", content });
    } else {
      const block: Block = {
        type: "tool_result",
        tool_use_id: m.toolCallId,
        content: m.content,
        is_error: m.isError,
      };
      const last = out[out.length - 1];
      if (last?.role === "user" && Array.isArray(last.content)) last.content.push(block);
      else out.push({ role: "user", content: [block] });
    }
  }
  return out;
}

/** Put a cache breakpoint on the last block: the whole prefix is cached for the next turn. */
function withCacheBreakpoint(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  const last = messages[messages.length - 1];
  if (!last) return messages;
  const blocks: Block[] =
    typeof last.content === "string" ? [{ type: "text", text: last.content }] : [...last.content];
  const tail = blocks[blocks.length - 1];
  if (tail && (tail.type === "text" || tail.type === "tool_result" || tail.type === "tool_use")) {
    blocks[blocks.length - 1] = { ...tail, cache_control: { type: "ephemeral" } };
  }
  return [...messages.slice(0, -1), { ...last, content: blocks } as Anthropic.MessageParam];
}

export function anthropicModel(id: string, options: AnthropicOptions): ChatModel {
  const client = new Anthropic({
    apiKey: options.apiKey ?? process.env.ANTHROPIC_API_KEY ?? null,
    baseURL: options.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? null,
    maxRetries: options.maxRetries,
    timeout: options.timeoutMs,
  });
  return {
    id,
    scripted: false,
    async complete(req: ChatRequest): Promise<ChatReply> {
      const r = await client.messages.create({
        model: options.model,
        max_tokens: req.maxTokens,
        system: req.system,
        messages: options.promptCache
          ? withCacheBreakpoint(toWire(req.messages))
          : toWire(req.messages),
        tools: req.tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.parameters as Anthropic.Tool.InputSchema,
        })),
      });
      let text = "";
      const toolCalls: ToolCall[] = [];
      for (const b of r.content) {
        if (b.type === "text") text += b.text;
        else if (b.type === "tool_use") {
          const input = b.input;
          const ok = input !== null && typeof input === "object" && !Array.isArray(input);
          toolCalls.push({
            id: b.id,
            name: b.name,
            arguments: ok ? (input as Record<string, unknown>) : null,
            rawArguments: JSON.stringify(input),
          });
        }
      }
      const u = r.usage;
      return {
        text,
        toolCalls,
        stopReason: r.stop_reason ?? "unknown",
        usage: {
          input: u.input_tokens,
          output: u.output_tokens,
          cacheRead: u.cache_read_input_tokens ?? 0,
          cacheWrite: u.cache_creation_input_tokens ?? 0,
        },
      };
    },
  };
}
