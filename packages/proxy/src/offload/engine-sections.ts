/**
 * The call-result half of the engine seam: a result is offloaded by
 * `@atlatl/lro`'s one call-result engine (`offloadLaidOut`, the same as
 * `offloadCallToolResult`); the proxy adds its inline fields, guidance and
 * fallback. Part of the one module that calls `@atlatl/lro`
 * (with `engine.ts`).
 */
import { offloadLaidOut } from "@atlatl/lro/mcp";
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
 * Offload `result` through `@atlatl/lro`'s one call-result engine (the caller
 * decided: the result is above its threshold, `tokens` measured): records that
 * are the whole result get the records profile, anything else sections.
 * Throws {@link SectionsOffloadFailed} when nothing could be written.
 */
export async function offloadResultSections(
  offloader: Offloader,
  result: CallToolResult,
  call: ToolCallInfo,
  tokens: number,
  extractToolName: string,
): Promise<CallToolResult> {
  const done = await offloadLaidOut(offloader, result, {
    operation: call.name,
    estimatedTokens: tokens,
    inlineKeys: call.policy.inlineKeys,
    inline: { tool: call.name, estimated_tokens: tokens },
  });
  if (done.kind === "failed") throw new SectionsOffloadFailed(done.code);
  const d = done.descriptor;
  if (done.profile === "sections") {
    d.guidance = guidanceFor(
      call.name,
      d.files as Record<string, string>,
      tokens,
      extractToolName,
      done.attachments,
    );
  }
  return { ...keptFields(result), content: [text(JSON.stringify(d))] };
}
