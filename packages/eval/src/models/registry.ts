/**
 * `provider:model` to a `ChatModel`. Providers: `anthropic`, `openai`, the
 * OpenAI-compatible local servers `vllm`, `ollama`, `llamacpp` (default base
 * URLs below, `--base-url` overrides), and `scripted` (harness tests). Keys
 * come only from the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY).
 */
import { anthropicModel } from "./anthropic.js";
import { openaiModel } from "./openai.js";
import { SCRIPTED_VARIANTS, type ScriptedVariant, scriptedModel } from "./scripted.js";
import type { ChatModel } from "./types.js";

export const LOCAL_BASE_URLS: Record<string, string> = {
  vllm: "http://127.0.0.1:8000/v1",
  ollama: "http://127.0.0.1:11434/v1",
  llamacpp: "http://127.0.0.1:8080/v1",
};

interface ModelOptions {
  baseURL?: string | undefined;
  maxRetries?: number;
  timeoutMs?: number;
  /** Anthropic prompt caching (cheaper multi-turn samples; usage reports cache tokens). */
  promptCache?: boolean;
}

export const DEFAULT_MAX_RETRIES = 5;
const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

export function createModel(spec: string, options: ModelOptions = {}): ChatModel {
  const colon = spec.indexOf(":");
  if (colon <= 0 || colon === spec.length - 1) {
    throw new Error(
      `--model must be provider:model (e.g. anthropic:claude-haiku-4-5), got ${JSON.stringify(spec)}`,
    );
  }
  const provider = spec.slice(0, colon);
  const model = spec.slice(colon + 1);
  const common = {
    model,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
  switch (provider) {
    case "anthropic":
      return anthropicModel(spec, {
        ...common,
        baseURL: options.baseURL,
        promptCache: options.promptCache ?? false,
      });
    case "openai":
      return openaiModel(spec, { ...common, baseURL: options.baseURL });
    case "vllm":
    case "ollama":
    case "llamacpp":
      return openaiModel(spec, {
        ...common,
        baseURL: options.baseURL ?? LOCAL_BASE_URLS[provider],
        // A separate variable, so an OpenAI key is never sent to a local server.
        apiKey: process.env.LOCAL_MODEL_API_KEY ?? "not-needed",
      });
    case "scripted":
      if (!(SCRIPTED_VARIANTS as readonly string[]).includes(model)) {
        throw new Error(
          `scripted agents: ${SCRIPTED_VARIANTS.map((v) => `scripted:${v}`).join(", ")}`,
        );
      }
      return scriptedModel(spec, model as ScriptedVariant);
    default:
      throw new Error(
        `unknown provider ${JSON.stringify(provider)}; one of anthropic, openai, vllm, ollama, llamacpp, scripted`,
      );
  }
}
