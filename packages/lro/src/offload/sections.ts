/**
 * The sections profile's pipeline: each section's values become one JSONL
 * file (header line first), described by the Python library's descriptor
 * shape. Estimated over all sections together; all files or none. Files are
 * written by the engine's one materializer (`writeLinesFile`).
 */
import { inferLineSchema } from "../descriptor/infer-schema.js";
import { estimateLines, type LinesEstimate } from "../estimate/estimate.js";
import type { EncodedLines } from "../materialize/encoded-lines.js";
import { unpublish, unpublishFailed } from "../offload-store/publish.js";
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
  failureReason,
  type OffloadContext,
  serializeLine,
} from "./context.js";
import { decide, thresholdPolicy } from "./decide.js";
import { fitToThreshold, linesThatFit, truncationWarning } from "./truncate.js";
import type { OffloadSection, OffloadSectionsInput, OffloadSectionsResult } from "./types.js";
import { writeLinesFile } from "./write-lines.js";

/** Values of a section used to infer its line schema when only its lines were given. */
const SCHEMA_SAMPLE = 200;

/** A section's lines as strings; none for encoded sections (written as they are). */
function linesOf(section: OffloadSection): readonly string[] {
  if (section.encoded) return [];
  return section.lines ?? (section.items ?? []).map(serializeLine);
}

/** A section's lines as strings, decoding encoded ones (inline and failure paths only). */
function stringLines(section: OffloadSection, lines: readonly string[]): readonly string[] {
  return section.encoded ? section.encoded.toLines() : lines;
}

function countOf(section: OffloadSection, lines: readonly string[]): number {
  return section.encoded ? section.encoded.count : lines.length;
}

function schemaOf(section: OffloadSection, lines: readonly string[]) {
  if (section.lineSchema) return section.lineSchema;
  if (section.items) return inferLineSchema(section.items);
  const sample = section.encoded ? firstEncodedLines(section.encoded, SCHEMA_SAMPLE) : lines;
  return inferLineSchema(sample.slice(0, SCHEMA_SAMPLE).map((l) => JSON.parse(l) as unknown));
}

/** Up to `n` whole lines from the start of encoded lines (its first chunk, or more). */
function firstEncodedLines(encoded: EncodedLines, n: number): string[] {
  const out: string[] = [];
  let rest = "";
  for (const chunk of encoded.finish()) {
    const parts = (rest + Buffer.from(chunk).toString("utf8")).split("\n");
    rest = parts.pop() ?? "";
    out.push(...parts);
    if (out.length >= n) break;
  }
  return out.slice(0, n);
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
  const policy = thresholdPolicy(ctx.config, { force: input.force });
  if (!decide(tokens, policy)) {
    return {
      kind: "inline",
      estimatedTokens: tokens,
      lines: input.sections.map((s, i) => [
        ...stringLines(s, sectionLines[i] as readonly string[]),
      ]),
    };
  }

  const createdAt = ctx.now();
  const files: OffloadedFile[] = [];
  const count = input.sections.reduce(
    (n, s, i) => n + countOf(s, sectionLines[i] as readonly string[]),
    0,
  );
  try {
    const described: DescribedSection[] = [];
    for (const [i, section] of input.sections.entries()) {
      const lines = sectionLines[i] as readonly string[];
      // The section's share of a caller's estimate: all of it, or its bytes / 4 when encoded.
      const sectionTokens =
        estimates[i]?.tokens ??
        (input.sections.length === 1
          ? tokens
          : section.encoded
            ? Math.ceil(section.encoded.bytes / 4)
            : 0);
      const n = countOf(section, lines);
      const file = await writeLinesFile(ctx, {
        operation: input.operation,
        createdAt,
        header: headerOf(input, section, n, createdAt, sectionTokens),
        lines,
        ...(section.encoded ? { encoded: section.encoded } : {}),
      });
      files.push(file);
      described.push({
        key: section.key,
        filePath: file.path,
        count: n,
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
    for (const f of files) {
      await ctx.fs.unlink(f.path).catch(() => {});
      await unpublish(ctx.store, f.path);
    }
    await unpublishFailed(ctx.store, err);
    const error = asLroError(err);
    emitFailed(ctx, input.operation, error, count, tokens);
    const reason = failureReason(error);
    const allLines = input.sections.map((s, i) =>
      stringLines(s, sectionLines[i] as readonly string[]),
    );
    /** Lines kept of each section: the leading ones, section after section, within one budget. */
    const keptOf: number[] = [];
    const fitted = fitToThreshold(
      policy.threshold,
      count,
      (kept) => truncationWarning(reason, kept, count, policy.threshold),
      (budget) => {
        let left = budget;
        for (const [i, lines] of allLines.entries()) {
          const estimate = estimates[i] ?? { tokenized: new Map<number, number>() };
          const fit = linesThatFit(lines, estimate, left);
          left -= fit.tokens;
          keptOf.push(fit.count);
        }
        // Counted as returned: a section's `items`, when given, bound its lines.
        return input.sections.reduce(
          (n, s, i) =>
            n + Math.min(keptOf[i] as number, s.items?.length ?? Number.POSITIVE_INFINITY),
          0,
        );
      },
    );
    const sections = input.sections.map((s, i) => {
      const lines = allLines[i] as readonly string[];
      const items = s.items ?? lines.map((l) => JSON.parse(l) as unknown);
      return { key: s.key, items: items.slice(0, keptOf[i]), total: lines.length };
    });
    return {
      kind: "truncated",
      estimatedTokens: tokens,
      sections,
      warning: fitted.warning,
      error,
    };
  }
}
