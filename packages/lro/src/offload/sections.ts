/**
 * The generic (multi-section) profile: each section's items become one JSONL
 * file (header line first), described by the Python library's descriptor shape.
 * Estimated over all sections together; all files or none.
 */

import { inferLineSchema } from "../descriptor/infer-schema.js";
import { estimateLines, type LinesEstimate } from "../estimate/estimate.js";
import { ensureOutputDir, writeJsonlFile } from "../materialize/write-jsonl.js";
import {
  buildGenericDescriptor,
  type DescribedSection,
} from "../profiles/sections/sections-descriptor.js";
import type { OffloadedFile } from "../types.js";
import {
  asLroError,
  emitCreated,
  emitFailed,
  failureCode,
  type OffloadContext,
  serializeLine,
} from "./context.js";
import { linesThatFit, reserveFor, truncationWarning } from "./truncate.js";
import type { OffloadSectionsInput, OffloadSectionsResult } from "./types.js";

/** Run the generic profile: inline, offloaded (one file per section), or truncated. */
export async function offloadSections(
  ctx: OffloadContext,
  input: OffloadSectionsInput,
): Promise<OffloadSectionsResult> {
  const sectionLines = input.sections.map((s) => s.items.map(serializeLine));
  const estimates: LinesEstimate[] = [];
  for (const lines of sectionLines) estimates.push(await estimateLines(lines));
  const tokens = estimates.reduce((sum, e) => sum + e.tokens, 0);
  const offload = input.force || (ctx.config.enabled && tokens > ctx.config.thresholdTokens);
  if (!offload) return { kind: "inline", estimatedTokens: tokens, lines: sectionLines };

  const createdAt = ctx.now();
  const detail = input.detail ?? "raw";
  const files: OffloadedFile[] = [];
  const count = sectionLines.reduce((n, l) => n + l.length, 0);
  try {
    await ensureOutputDir(ctx.fs, ctx.config.outputDir);
    const described: DescribedSection[] = [];
    for (const [i, section] of input.sections.entries()) {
      const lines = sectionLines[i] as string[];
      const header = {
        type: "lro_header" as const,
        operation: input.operation,
        query: input.query ?? null,
        count: lines.length,
        schema_version: "generic",
        timestamp: new Date(createdAt).toISOString(),
        estimated_tokens: (estimates[i] as LinesEstimate).tokens,
        detail,
        section: section.key,
      };
      const written = await writeJsonlFile({
        fs: ctx.fs,
        dir: ctx.config.outputDir,
        operation: input.operation,
        id: ctx.nextId(createdAt),
        headerLine: JSON.stringify(header),
        lines,
        onTempOpened: ctx.onTempOpened,
      });
      files.push({
        path: written.path,
        header,
        ttlSeconds: ctx.config.ttlSeconds,
        createdAt,
        bytes: written.bytes,
      });
      described.push({
        key: section.key,
        filePath: written.path,
        count: lines.length,
        lineSchema: inferLineSchema(section.items),
        description: section.description,
        summary: section.summary,
        recipes: section.recipes,
      });
    }
    const response = buildGenericDescriptor(described, input.inline);
    for (const f of files) emitCreated(ctx, f);
    return { kind: "offloaded", estimatedTokens: tokens, response, files };
  } catch (err) {
    // All or nothing: a descriptor must never point at some files but not others.
    for (const f of files) await ctx.fs.unlink(f.path).catch(() => {});
    const error = asLroError(err);
    emitFailed(ctx, input.operation, error, count, tokens);
    const warning0 = truncationWarning(
      failureCode(error),
      count,
      count,
      ctx.config.thresholdTokens,
    );
    let budget = ctx.config.thresholdTokens - reserveFor(warning0);
    const sections = input.sections.map((s, i) => {
      const lines = sectionLines[i] as string[];
      const fit = linesThatFit(lines, estimates[i] as LinesEstimate, budget);
      budget -= fit.tokens;
      return { key: s.key, items: s.items.slice(0, fit.count), total: lines.length };
    });
    const keptTotal = sections.reduce((n, s) => n + s.items.length, 0);
    return {
      kind: "truncated",
      estimatedTokens: tokens,
      sections,
      warning: truncationWarning(failureCode(error), keptTotal, count, ctx.config.thresholdTokens),
      error,
    };
  }
}
