/**
 * The sections half of the engine seam: a result laid out by `layout.ts` is
 * written by the engine's one write pipeline (`Offloader.offloadSections`: one
 * JSONL file per section, the engine's ULIDs, file system and events; the text
 * section's lines handed over already encoded, with the estimate measured)
 * and its binary parts by `Offloader.writeAttachment` (swept by the engine's
 * sweeper after the same TTL). Part of the one module that calls `@atlatl/lro`
 * (with `engine.ts`).
 */
import type { Offloader, OffloadSection } from "@atlatl/lro/node";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolCallInfo } from "./engine.js";
import { guidanceFor } from "./guidance.js";
import { type BinaryPart, layoutResult } from "./layout.js";

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

/** Write every binary part as an attachment and patch its `ref` with the file; all or none. */
async function writeBinaries(
  offloader: Offloader,
  operation: string,
  parts: readonly BinaryPart[],
): Promise<string[]> {
  const written: string[] = [];
  try {
    for (const part of parts) {
      const data = Buffer.from(part.base64, "base64");
      const file = await offloader.writeAttachment({ operation, data, mimeType: part.mimeType });
      written.push(file.path);
      part.ref.file = file.path;
      part.ref.bytes = file.bytes;
    }
    return written;
  } catch (err) {
    await offloader.removeFiles(written);
    throw err;
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
  const binaries = await writeBinaries(offloader, call.name, layout.binaries);
  const sections: OffloadSection[] = layout.sections.map((s) => ({
    key: s.key,
    ...(s.encoded ? { encoded: s.encoded } : { items: s.items }),
    ...(s.lineSchema ? { lineSchema: s.lineSchema } : {}),
    description: s.description,
    ...(s.recipes ? { recipes: s.recipes } : {}),
  }));
  const outcome = await offloader.offloadSections({
    operation: call.name,
    sections,
    inline: { tool: call.name, estimated_tokens: tokens, ...layout.inline },
    estimatedTokens: tokens,
    force: true,
  });
  if (outcome.kind !== "offloaded") {
    await offloader.removeFiles(binaries);
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
