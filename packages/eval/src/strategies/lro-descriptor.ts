/**
 * Every call into the LRO engine (`@atlatl/lro`'s public exports only) lives in
 * this module, so an engine change is adapted in one place: offloading a result
 * set to a descriptor + JSONL file, the native `lro_extract` extractor, and the
 * token estimate the report's Table 1 uses.
 */
import {
  estimateTokens,
  LRO_EXTRACT_TOOL_NAME,
  LroEvents,
  loadTokenizer,
  type OffloadResponse,
} from "@atlatl/lro";
import { type ExtractArgs, LroExtractor, type OffloadConfig, Offloader } from "@atlatl/lro/node";

export type { OffloadResponse };

/** The spec's default threshold; every corpus scale (>= 50 records) is above it. */
const EVAL_THRESHOLD_TOKENS = 1600;

function configFor(outputDir: string): OffloadConfig {
  return { enabled: true, thresholdTokens: EVAL_THRESHOLD_TOKENS, ttlSeconds: 86_400, outputDir };
}

/** One offloaded result: the descriptor the agent would see and the file it points to. */
export interface OffloadedCorpus {
  descriptor: OffloadResponse;
  filePath: string;
}

/**
 * Offload the records as a `list` result at full detail into `outputDir`, as a
 * memory server would. `native` switches the guidance to the `lro_extract`
 * template; `lineSchema` replaces the engine's `line_schema` (the fields every
 * line carries, untyped) with the exact, typed schema of these lines.
 */
export async function offloadCorpus(
  records: readonly object[],
  outputDir: string,
  options: { native?: boolean; now?: () => number; lineSchema?: Record<string, unknown> } = {},
): Promise<OffloadedCorpus> {
  const offloader = new Offloader({
    config: configFor(outputDir),
    events: new LroEvents({ sink: null }),
    nativeExtraction: options.native ? LRO_EXTRACT_TOOL_NAME : false,
    ...(options.now ? { now: options.now } : {}),
  });
  const result = await offloader.offloadRecords({ operation: "list", detail: "full", records });
  if (result.kind !== "offloaded") {
    throw new Error(`expected the corpus to be offloaded, got ${result.kind}`);
  }
  const descriptor = options.lineSchema
    ? { ...result.response, line_schema: options.lineSchema }
    : result.response;
  return { descriptor, filePath: result.file.path };
}

/** The native extractor behind the `lro_extract` tool, confined to `outputDir`. */
export interface NativeExtractor {
  /** Output text for the model, or an error text with its code; never throws. */
  extract(args: ExtractArgs): Promise<{ ok: boolean; text: string }>;
  close(): Promise<void>;
}

export function nativeExtractor(outputDir: string): NativeExtractor {
  const extractor = new LroExtractor({ config: configFor(outputDir) });
  return {
    async extract(args) {
      const r = await extractor.extract(args);
      if (r.ok) {
        const note = r.truncated ? `\n[truncated to ${r.count} values]` : "";
        return { ok: true, text: `${r.text}${note}` };
      }
      return { ok: false, text: `${r.error.code}: ${r.error.message}` };
    },
    close: () => extractor.close(),
  };
}

/** Token estimate of a text, as the engine counts it. */
export function tokensOf(text: string): Promise<number> {
  return estimateTokens(text);
}

/** Real tokens of a text: the o200k BPE (`gpt-tokenizer`), beside the engine's estimate. */
export async function o200kTokensOf(text: string): Promise<number> {
  return (await loadTokenizer())(text);
}
