/**
 * LRO for any `CallToolResult` (a proxy's upstream results, or a tool that
 * returns ready results). The whole result is estimated; at or below the
 * threshold it is returned untouched (the same object). Above it, it is
 * offloaded losslessly:
 *
 * the layout of `call-result-layout.ts` (one for every caller, the proxy too):
 *
 * - When the records are the whole result (JSON text that prints back byte for
 *   byte, or `structuredContent`, holding an array of objects at top level or
 *   under one key, and every text block is that JSON): the records profile, one
 *   record per line, inferred line schema, numbered recipes `lro_extract` runs.
 *   Other keys of that object stay inline beside the descriptor.
 * - Anything else: the multi-section descriptor (`offload-layout.ts`), one
 *   section per kind of content block, text split into line records, binary
 *   parts in attachment files of their own, reassembly markers
 *   (`reassembleResult` gives the result back).
 *
 * `isError` results are never offloaded (the model needs the error). If a
 * write fails, the original result is returned with a warning block appended.
 */
import { basename } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { estimateTokens } from "../estimate/estimate.js";
import type { Offloader } from "../offload/offloader.js";
import { offloadLaidOut } from "./offload-laid-out.js";
import {
  type McpNames,
  mcpNames,
  OFFLOAD_MIME_TYPE,
  offloadResourceUri,
} from "./offload-resource-uri.js";

/** Options of {@link offloadCallToolResult}. */
export interface OffloadCallResultOptions {
  /** Goes into file names and headers (e.g. the tool's name). */
  operation: string;
  query?: string | null;
  /** Offload regardless of the threshold (a per-tool `always` policy). */
  force?: boolean;
  /** A threshold of this call's own (a per-tool policy), instead of the config's. */
  thresholdTokens?: number;
  /** Keys of a JSON object result kept inline beside the descriptor (the Python library's `inline_keys`); default: every key but the records' for records, none for sections. */
  inlineKeys?: readonly string[];
  /** Add `resource_link`s to the written files. */
  resourceLinks?: boolean;
  names?: Partial<McpNames>;
}

function withWarning(result: CallToolResult, warning: string): CallToolResult {
  return {
    ...result,
    content: [...result.content, { type: "text", text: `> Warning: ${warning}` }],
  };
}

/**
 * Estimated tokens of a whole `CallToolResult` (its JSON), against `threshold`.
 * The texts alone, at chars / 4, decide when they are already above: the JSON
 * is longer still, and non-Latin text only costs more tokens per character (a
 * large text is then never serialized again). Else the JSON is serialized and,
 * at or below the threshold by chars / 4, estimated properly.
 */
export async function estimateCallResultTokens(
  result: CallToolResult,
  threshold: number,
): Promise<number> {
  let chars = 0;
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (block?.type === "text" && typeof block.text === "string") chars += block.text.length;
  }
  const byText = Math.ceil(chars / 4);
  if (byText > threshold) return byText;
  const json = JSON.stringify(result);
  const byChars = Math.ceil(json.length / 4);
  return byChars > threshold ? byChars : estimateTokens(json);
}

/** Offload `result` when it is too large (see the module comment); otherwise return it as is. */
export async function offloadCallToolResult(
  offloader: Offloader,
  result: CallToolResult,
  options: OffloadCallResultOptions,
): Promise<CallToolResult> {
  if (result.isError) return result;
  const { config } = offloader;
  if (!options.force && !config.enabled) return result;
  const threshold = options.thresholdTokens ?? config.thresholdTokens;
  const tokens = await estimateCallResultTokens(result, threshold);
  if (!options.force && tokens <= threshold) return result;
  const names = mcpNames(options.names);
  const link = (path: string, description: string) => ({
    type: "resource_link" as const,
    uri: offloadResourceUri(path, names.resourcePrefix),
    name: basename(path),
    mimeType: OFFLOAD_MIME_TYPE,
    description,
  });
  const meta = result._meta !== undefined ? { _meta: result._meta } : {};

  const done = await offloadLaidOut(offloader, result, {
    operation: options.operation,
    query: options.query ?? null,
    estimatedTokens: tokens,
    inlineKeys: options.inlineKeys,
  });
  if (done.kind === "failed") {
    return withWarning(
      result,
      `Offloading this large result failed, so it is returned whole. ${done.message}`,
    );
  }
  const content: CallToolResult["content"] = [
    { type: "text", text: JSON.stringify(done.descriptor) },
  ];
  if (options.resourceLinks) {
    for (const f of done.files) {
      content.push(link(f.path, `Offloaded ${options.operation} result, ${f.description}`));
    }
  }
  return { ...meta, content };
}
