/**
 * `[embeddings]`: an OpenAI-compatible `/v1/embeddings` endpoint (Ollama, vLLM,
 * LM Studio, OpenAI) for hybrid recall. Off while `url` is empty: recall stays
 * lexical and nothing about vectors is created in the store.
 */
import {
  ConfigValueError,
  type ResolvedSection,
  redactUrl,
  resolveConfigSection,
} from "@atlatl/lro/node";

/**
 * Least cosine similarity of a memory recalled by meaning, in percent. Models
 * differ: nomic-embed-text and all-MiniLM put unrelated texts near 20-45 and
 * paraphrases above 60; OpenAI's text-embedding-3 models score lower all
 * round (related texts from about 40), so they want about 30.
 */
export const DEFAULT_MIN_SIMILARITY_PERCENT = 50;

/** The section's dotted name (TOML table, `ATLATL_EMBEDDINGS__*` variables). */
const EMBEDDINGS_SECTION = "embeddings";

const EMBEDDINGS_KEYS = {
  url: {
    type: "string",
    default: "",
    description:
      "OpenAI-compatible embeddings API base URL, e.g. http://127.0.0.1:11434/v1 (Ollama); empty keeps recall lexical",
    check: (v: string) => (v === "" || /^https?:\/\//.test(v) ? undefined : "an http(s):// URL"),
  },
  model: {
    type: "string",
    default: "",
    description: "Embedding model name sent to the endpoint (e.g. nomic-embed-text)",
  },
  dimensions: {
    type: "integer",
    min: 0,
    max: 16_000,
    default: 0,
    description: "Length of the model's vectors (e.g. 768); required with url",
  },
  api_key: {
    type: "string",
    default: "",
    description: "Bearer token for the endpoint (empty: none; local servers need none)",
  },
  timeout_seconds: {
    type: "integer",
    min: 1,
    max: 600,
    default: 10,
    description: "Longest wait for one embeddings request before it fails EMBEDDINGS_UNAVAILABLE",
  },
  min_similarity_percent: {
    type: "integer",
    min: 0,
    max: 100,
    default: DEFAULT_MIN_SIMILARITY_PERCENT,
    description:
      "Least cosine similarity (percent) of a memory recalled by meaning: 50 suits nomic-embed-text, about 30 OpenAI's text-embedding-3",
  },
  batch_size: {
    type: "integer",
    min: 1,
    max: 2048,
    default: 64,
    description: "Texts per embeddings request (atlatl embed, batch capture)",
  },
} as const;

/** A configured endpoint (the section with `url` set). */
export interface EmbeddingsConfig {
  /** Base URL; requests go to `{url}/embeddings`. */
  url: string;
  model: string;
  dimensions: number;
  /** Empty: no Authorization header. */
  apiKey: string;
  timeoutMs: number;
  batchSize: number;
  /** Least cosine similarity of a vector hit, in [0, 1]. */
  minSimilarity: number;
}

/** Options of {@link resolveEmbeddingsConfig}: the generic resolver's layers. */
type Layers = Omit<
  Parameters<typeof resolveConfigSection<typeof EMBEDDINGS_KEYS>>[0],
  "section" | "keys"
>;

/**
 * Resolve `[embeddings]`: null while `url` is empty; with `url`, `model` and
 * `dimensions` are required (named in the error). The key is masked in the
 * entries `atlatl config` lists.
 */
export function resolveEmbeddingsConfig(layers: Layers): {
  config: EmbeddingsConfig | null;
  resolved: ResolvedSection<typeof EMBEDDINGS_KEYS>;
} {
  const resolved = resolveConfigSection({
    section: EMBEDDINGS_SECTION,
    keys: EMBEDDINGS_KEYS,
    ...layers,
  });
  const v = resolved.values;
  resolved.entries = resolved.entries.map((e) =>
    e.key === `${EMBEDDINGS_SECTION}.api_key` && e.value !== ""
      ? { ...e, value: "(set)" }
      : e.key === `${EMBEDDINGS_SECTION}.url` && typeof e.value === "string"
        ? { ...e, value: redactUrl(e.value) }
        : e,
  );
  if (v.url === "") return { config: null, resolved };
  if (v.model === "") {
    throw new ConfigValueError(
      `${EMBEDDINGS_SECTION}.model`,
      v.model,
      resolved.sources.model,
      `the model name when ${EMBEDDINGS_SECTION}.url is set (e.g. nomic-embed-text)`,
    );
  }
  if (v.dimensions === 0) {
    throw new ConfigValueError(
      `${EMBEDDINGS_SECTION}.dimensions`,
      v.dimensions,
      resolved.sources.dimensions,
      `the model's vector length when ${EMBEDDINGS_SECTION}.url is set (e.g. 768)`,
    );
  }
  return {
    config: {
      url: v.url.replace(/\/+$/, ""),
      model: v.model,
      dimensions: v.dimensions,
      apiKey: v.api_key,
      timeoutMs: v.timeout_seconds * 1000,
      batchSize: v.batch_size,
      minSimilarity: v.min_similarity_percent / 100,
    },
    resolved,
  };
}
