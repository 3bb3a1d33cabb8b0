/**
 * The sections half of the engine seam: a result is laid out and written by
 * `@atlatl/lro`'s one call-result engine (`layoutResult` + `offloadLayout`, the
 * same as `offloadCallToolResult`: one JSONL file per section, attachments for
 * binary parts); the proxy adds its inline fields, guidance and fallback. Part of the one module that calls `@atlatl/lro`
 * (with `engine.ts`).
 */
import { layoutResult, offloadLayout } from "@atlatl/lro/mcp";
import type { Offloader } from "@atlatl/lro/node";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolCallInfo } from "./engine.js";
import { guidanceFor } from "./guidance.js";

export function text(t: string): CallToolResult["content"][number] {
  return { type: "text", text: t };
}

/** Everything of `result` but what is offloaded (`content`, `structuredContent`). */
export function keptFields(result: CallToolResult): Record<string, unknown> {
  const { content: _c, structuredContent: _s, ...rest } = result;
  return rest;
}

/**
 * The fallback when offloading failed (the specification's inline truncation):
 * the text that fits the threshold (chars / 4), and a warning saying so.
 */
export function truncatedResult(
  result: CallToolResult,
  threshold: number,
  code: string,
): CallToolResult {
  const all = result.content
    .map((b) => (b.type === "text" ? b.text : JSON.stringify(b)))
    .join("\n");
  const kept = all.slice(0, threshold * 4);
  const warning = `Warning: the result could not be offloaded (${code}); it is truncated to ${kept.length} of ${all.length} characters.`;
  return { ...keptFields(result), content: [text(`${kept}\n\n> ${warning}`)] };
}

/** An offload that did not happen: the failure's code (the cause's errno when there is one). */
export class SectionsOffloadFailed extends Error {
  constructor(readonly code: string) {
    super(`offload failed (${code})`);
  }
}

/**
 * Offload `result` in sections through `offloader` (the caller decided: the
 * result is above its threshold, `tokens` measured). Throws
 * {@link SectionsOffloadFailed} (or a write error) when nothing could be written.
 */
export async function offloadResultSections(
  offloader: Offloader,
  result: CallToolResult,
  call: ToolCallInfo,
  tokens: number,
  extractToolName: string,
): Promise<CallToolResult> {
  const layout = layoutResult(result, call.policy.inlineKeys);
  const { outcome, attachments: binaries } = await offloadLayout(offloader, layout, {
    operation: call.name,
    inline: { tool: call.name, estimated_tokens: tokens, ...layout.inline },
    estimatedTokens: tokens,
  });
  if (outcome.kind !== "offloaded") {
    const error = outcome.kind === "truncated" ? outcome.error : undefined;
    const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
    throw new SectionsOffloadFailed(
      typeof cause === "string" ? cause : (error?.code ?? "WRITE_FAILED"),
    );
  }
  const d = outcome.response;
  d.guidance = guidanceFor(call.name, d.files, tokens, extractToolName, binaries);
  return { ...keptFields(result), content: [text(JSON.stringify(d))] };
}
