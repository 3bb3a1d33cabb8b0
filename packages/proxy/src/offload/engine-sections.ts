/**
 * The sections half of the engine seam: a result laid out by `layout.ts` is
 * written one JSONL file per section with the library's writer (the text
 * section, already encoded, in one private write) and described with the
 * library's multi-section descriptor. Part of the one module that calls
 * `@atlatl/lro` (with `engine.ts`).
 */
import { join } from "node:path";
import {
  buildGenericDescriptor,
  type DescribedSection,
  estimateTokens,
  inferLineSchema,
  type LroEvents,
  type OffloadedFile,
  offloadFileName,
  sanitizeOperation,
  utf8Length,
} from "@atlatl/lro";
import {
  ensureOutputDir,
  nodeOffloadFs,
  type OffloadConfig,
  writeJsonlFile,
} from "@atlatl/lro/node";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { monotonicFactory } from "ulid";
import { removeFiles, writeBinaryParts, writePrivateFile } from "./binary-files.js";
import type { ToolCallInfo } from "./engine.js";
import { guidanceFor } from "./guidance.js";
import { type LayoutSection, layoutResult } from "./layout.js";
import type { ChunkedUtf8 } from "./text-lines.js";

/**
 * Estimated tokens of the whole result (its JSON). The texts alone, at chars / 4,
 * decide when they are already above: the JSON is longer still, and non-Latin
 * text only costs more tokens per character. Else the JSON is serialized and
 * estimated properly (it is small then, unless `structuredContent` is large).
 */
export async function estimateResult(result: CallToolResult, threshold: number): Promise<number> {
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

export function text(t: string): CallToolResult["content"][number] {
  return { type: "text", text: t };
}

/** Everything of `result` but what is offloaded (`content`, `structuredContent`). */
export function keptFields(result: CallToolResult): Record<string, unknown> {
  const { content: _c, structuredContent: _s, ...rest } = result;
  return rest;
}

/** A JSONL file from a header line and lines already encoded (the text section's). */
async function writeEncoded(
  path: string,
  headerLine: string,
  body: ChunkedUtf8,
): Promise<{ path: string; bytes: number }> {
  const bytes = await writePrivateFile(path, [Buffer.from(`${headerLine}\n`), ...body.finish()]);
  return { path, bytes };
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

/** Writes and describes the sections of offloaded results. */
export function sectionWriter(ctx: {
  config: OffloadConfig;
  events: LroEvents;
  extractToolName: string;
}) {
  const { config, events } = ctx;
  // File ids of the sections the proxy writes itself (the library's factory is internal).
  const nextId = monotonicFactory();

  const offload = async (
    result: CallToolResult,
    call: ToolCallInfo,
    tokens: number,
  ): Promise<CallToolResult> => {
    const operation = sanitizeOperation(call.name);
    const layout = layoutResult(result, call.policy.inlineKeys);
    let binaries: string[] = [];
    if (layout.binaries.length > 0) {
      await ensureOutputDir(nodeOffloadFs, config.outputDir);
      binaries = await writeBinaryParts(config.outputDir, operation, layout.binaries, Date.now());
    }
    let written: OffloadedFile[];
    try {
      written = await writeSections(operation, layout.sections);
    } catch (err) {
      await removeFiles(binaries);
      throw err;
    }
    const described: DescribedSection[] = layout.sections.map((section, i) => ({
      key: section.key,
      filePath: (written[i] as OffloadedFile).path,
      count: (written[i] as OffloadedFile).header.count,
      lineSchema: section.lineSchema ?? inferLineSchema(section.items),
      description: section.description,
      recipes: section.recipes,
    }));
    const d = buildGenericDescriptor(described, {
      tool: call.name,
      estimated_tokens: tokens,
      ...layout.inline,
    });
    d.guidance = guidanceFor(call.name, d.files, tokens, ctx.extractToolName, binaries);
    return { ...keptFields(result), content: [text(JSON.stringify(d))] };
  };

  /**
   * Write one JSONL file per section (header line first): all of them or none.
   * The library's `offloadSections` serializes, measures and infers every line
   * again; the proxy has measured the result already and its text lines are
   * serialized, so it writes with the library's writer directly.
   */
  const writeSections = async (
    operation: string,
    sections: readonly LayoutSection[],
  ): Promise<OffloadedFile[]> => {
    await ensureOutputDir(nodeOffloadFs, config.outputDir);
    const createdAt = Date.now();
    const files: OffloadedFile[] = [];
    try {
      for (const section of sections) {
        const lines = section.encoded ? [] : section.items.map((v) => JSON.stringify(v) ?? "null");
        let bytes = section.encoded?.out.bytes ?? 0;
        for (const line of lines) bytes += utf8Length(line) + 1;
        const header = {
          type: "lro_header" as const,
          operation,
          query: null,
          count: section.encoded?.count ?? lines.length,
          schema_version: "generic",
          timestamp: new Date(createdAt).toISOString(),
          // The section's share of the whole result's estimate.
          estimated_tokens: Math.ceil(bytes / 4),
          detail: "raw",
          section: section.key,
        };
        const id = nextId(createdAt);
        const headerLine = JSON.stringify(header);
        const done = section.encoded
          ? await writeEncoded(
              join(config.outputDir, offloadFileName(operation, id)),
              headerLine,
              section.encoded.out,
            )
          : await writeJsonlFile({
              fs: nodeOffloadFs,
              dir: config.outputDir,
              operation,
              id,
              headerLine,
              lines,
              linesBytes: bytes,
            });
        files.push({
          path: done.path,
          header,
          ttlSeconds: config.ttlSeconds,
          createdAt,
          bytes: done.bytes,
        });
      }
    } catch (err) {
      await removeFiles(files.map((f) => f.path));
      throw err;
    }
    for (const f of files) {
      events.emit({
        type: "OffloadCreated",
        time: new Date(createdAt).toISOString(),
        path: f.path,
        operation,
        count: f.header.count,
        bytes: f.bytes,
        estimated_tokens: f.header.estimated_tokens,
        detail: "raw",
      });
    }
    return files;
  };

  return { offload };
}
