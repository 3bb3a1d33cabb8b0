/**
 * The sections profile's pipeline: each section's values become one JSONL
 * file (header line first), described by the Python library's descriptor
 * shape. Estimated over all sections together; all files or none. Files are
 * written by the engine's one materializer (`writeLinesFile`).
 */
import { inferLineSchema } from "../descriptor/infer-schema.js";
import { estimateLines, type LinesEstimate } from "../estimate/estimate.js";
import {
  buildGenericDescriptor,
  type DescribedSection,
} from "../profiles/sections/sections-descriptor.js";
import {
  SECTIONS_PROFILE,
  SECTIONS_SCHEMA_VERSION,
} from "../profiles/sections/sections-profile.js";
import type { OffloadedFile, OffloadHeader } from "../types.js";
import {
  asLroError,
  emitCreated,
  emitFailed,
  failureCode,
  type OffloadContext,
  serializeLine,
} from "./context.js";
import { linesThatFit, reserveFor, truncationWarning } from "./truncate.js";
import type { OffloadSection, OffloadSectionsInput, OffloadSectionsResult } from "./types.js";
import { writeLinesFile } from "./write-lines.js";

/** Values of a section used to infer its line schema when only its lines were given. */
const SCHEMA_SAMPLE = 200;

function linesOf(section: OffloadSection): readonly string[] {
  return section.lines ?? (section.items ?? []).map(serializeLine);
}

function schemaOf(section: OffloadSection, lines: readonly string[]) {
  if (section.items) return inferLineSchema(section.items);
  return inferLineSchema(lines.slice(0, SCHEMA_SAMPLE).map((l) => JSON.parse(l) as unknown));
}

function headerOf(
  input: OffloadSectionsInput,
  section: OffloadSection,
  count: number,
  createdAt: number,
  tokens: number,
): OffloadHeader {
  const lineProfile = section.lineProfile;
  const header = {
    type: "lro_header" as const,
    operation: input.operation,
    query: input.query ?? null,
    count,
    schema_version: lineProfile?.schemaVersion ?? SECTIONS_SCHEMA_VERSION,
    timestamp: new Date(createdAt).toISOString(),
    estimated_tokens: tokens,
    detail: input.detail ?? "raw",
    ...(lineProfile ? lineProfile.headerFields() : { profile: SECTIONS_PROFILE }),
    section: section.key,
  };
  return header;
}

/** Run the sections profile: inline, offloaded (one file per section), or truncated. */
export async function offloadSections(
  ctx: OffloadContext,
  input: OffloadSectionsInput,
): Promise<OffloadSectionsResult> {
  const sectionLines = input.sections.map(linesOf);
  const estimates: LinesEstimate[] = [];
  if (input.estimatedTokens === undefined) {
    for (const lines of sectionLines) estimates.push(await estimateLines(lines));
  }
  const tokens = input.estimatedTokens ?? estimates.reduce((sum, e) => sum + e.tokens, 0);
  const offload = input.force || (ctx.config.enabled && tokens > ctx.config.thresholdTokens);
  if (!offload) {
    return { kind: "inline", estimatedTokens: tokens, lines: sectionLines.map((l) => [...l]) };
  }

  const createdAt = ctx.now();
  const files: OffloadedFile[] = [];
  const count = sectionLines.reduce((n, l) => n + l.length, 0);
  try {
    const described: DescribedSection[] = [];
    for (const [i, section] of input.sections.entries()) {
      const lines = sectionLines[i] as readonly string[];
      const sectionTokens = estimates[i]?.tokens ?? (input.sections.length === 1 ? tokens : 0);
      const file = await writeLinesFile(ctx, {
        operation: input.operation,
        createdAt,
        header: headerOf(input, section, lines.length, createdAt, sectionTokens),
        lines,
      });
      files.push(file);
      described.push({
        key: section.key,
        filePath: file.path,
        count: lines.length,
        lineSchema: schemaOf(section, lines),
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
      const lines = sectionLines[i] as readonly string[];
      const estimate = estimates[i] ?? { tokenized: new Map<number, number>() };
      const fit = linesThatFit(lines, estimate, budget);
      budget -= fit.tokens;
      const items = s.items ?? lines.map((l) => JSON.parse(l) as unknown);
      return { key: s.key, items: items.slice(0, fit.count), total: lines.length };
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
