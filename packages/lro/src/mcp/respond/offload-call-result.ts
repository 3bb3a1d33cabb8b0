/**
 * LRO for any `CallToolResult` (a tool that returns ready results): the
 * response boundary (`respond.ts`) judges it whole; at or below the threshold
 * it is returned untouched (the same object). Above it, it is offloaded
 * losslessly with the layout of `call-result-layout.ts`:
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
 * write fails, the boundary's one rule applies: the text inline, truncated to
 * the threshold, with a warning (and `OffloadWriteFailed`).
 */

import type { CallEvents } from "../../events/events.js";
import type { Offloader } from "../../offload/offloader.js";
import type { AnyCallToolResult, CallToolResult } from "../../protocol/mcp-types.js";
import type { McpNames } from "../../protocol/offload-resource-uri.js";
import { respond } from "./respond.js";

export { estimateCallResultTokens } from "../../estimate/estimate.js";

/** Options of {@link offloadCallToolResult} (`onEvent`: this call's listener of its events). */
export interface OffloadCallResultOptions extends CallEvents {
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

/** Offload `result` when it is too large (see the module comment); otherwise return it as is. */
export function offloadCallToolResult(
  offloader: Offloader,
  result: AnyCallToolResult,
  options: OffloadCallResultOptions,
): Promise<CallToolResult> {
  return respond(result, {
    offloader,
    callResults: true,
    operation: options.operation,
    query: options.query ?? null,
    policy: {
      mode: options.force ? "always" : "auto",
      thresholdTokens: options.thresholdTokens,
      inlineKeys: options.inlineKeys,
    },
    resourceLinks: options.resourceLinks ?? false,
    names: options.names,
    onEvent: options.onEvent,
  });
}
