/**
 * Large extractions are offloaded again: an output above the threshold becomes
 * a derived file `atlatl-extract-{ulid}.jsonl` (header line, then one value per
 * line) described by the generic descriptor, never a flood in the context.
 *
 * Written with the engine's own primitives (`writeJsonlFile`: temporary name,
 * 0600, rename; `buildGenericDescriptor`; the offloader's events) rather than
 * `Offloader.offloadSections`, because the output lines are already
 * serialized and measured: re-parsing and re-estimating them (the tokenizer on
 * every non-Latin line) cost more than the extraction itself.
 */

import { inferLineSchema } from "../descriptor/infer-schema.js";
import { LroError } from "../errors.js";
import { offloadIdFactory } from "../materialize/file-name.js";
import { nodeOffloadFs, type OffloadFs } from "../materialize/offload-fs.js";
import { ensureOutputDir, WriteFailedError, writeJsonlFile } from "../materialize/write-jsonl.js";
import type { Offloader } from "../offload/offloader.js";
import { reserveFor, truncationWarning } from "../offload/truncate.js";
import { buildGenericDescriptor } from "../profiles/sections/sections-descriptor.js";
import { DETAIL_LEVELS, MIF_SCHEMA_VERSION } from "../types.js";
import type { Reoffload, ReoffloadInput, ReoffloadOutcome } from "./extractor.js";

/** Operation name of derived files: `atlatl-extract-{ulid}.jsonl`. */
export const EXTRACT_OPERATION = "extract";

/** Records used to infer the derived file's line schema. */
const SCHEMA_SAMPLE = 200;

/**
 * The lines of the derived file: the output values, except that a single array
 * output (what slurping recipes such as 8 produce) is split into its elements,
 * so each line is one record again and the file can be queried like the source.
 */
function derivedLines(input: ReoffloadInput): { lines: readonly string[]; split: boolean } {
  if (input.elements) return { lines: input.elements, split: true };
  const only = input.lines.length === 1 ? (input.lines[0] as string) : undefined;
  if (only?.startsWith("[")) {
    return { lines: (JSON.parse(only) as unknown[]).map((v) => JSON.stringify(v)), split: true };
  }
  return { lines: input.lines, split: false };
}

function nativeHint(path: string): string {
  const file = `file_path=${JSON.stringify(path)}`;
  return [
    "",
    "Without a shell, query it with the `lro_extract` tool, for example:",
    `- First values: lro_extract(${file}, query=".", limit=20)`,
    `- Count: lro_extract(${file}, query="length", slurp=true)`,
    "Recipes 1-8 also apply when its lines are memory records.",
  ].join("\n");
}

/** Options of {@link offloaderReoffload}. */
export interface OffloaderReoffloadOptions {
  /** Clock, epoch ms (ULIDs, timestamps). */
  now?: () => number;
  /** File-system primitives (fault tests). */
  fs?: OffloadFs;
}

/**
 * A {@link Reoffload} writing derived files into `offloader`'s output
 * directory and reporting them through its events. If writing fails, the
 * leading output values that fit the threshold come back inline with a
 * warning (and `OffloadWriteFailed` is emitted), as for any offload.
 */
export function offloaderReoffload(
  offloader: Offloader,
  options: OffloaderReoffloadOptions = {},
): Reoffload {
  const nextUlid = offloadIdFactory();
  const now = options.now ?? Date.now;
  const fs = options.fs ?? nodeOffloadFs;
  return async (input: ReoffloadInput): Promise<ReoffloadOutcome> => {
    const { config, events } = offloader;
    const { lines, split } = derivedLines(input);
    const createdAt = now();
    const memoryRecords = (DETAIL_LEVELS as readonly string[]).includes(input.detail);
    const header = {
      type: "lro_header" as const,
      operation: EXTRACT_OPERATION,
      query: input.description,
      count: lines.length,
      schema_version: memoryRecords ? MIF_SCHEMA_VERSION : "generic",
      timestamp: new Date(createdAt).toISOString(),
      estimated_tokens: input.estimatedTokens,
      detail: input.detail,
      section: "results",
    };
    let path: string | undefined;
    try {
      await ensureOutputDir(fs, config.outputDir);
      const written = await writeJsonlFile({
        fs,
        dir: config.outputDir,
        operation: EXTRACT_OPERATION,
        id: nextUlid(createdAt),
        headerLine: JSON.stringify(header),
        lines,
      });
      path = written.path;
      const sample = lines.slice(0, SCHEMA_SAMPLE).map((l) => JSON.parse(l) as unknown);
      const response = buildGenericDescriptor(
        [
          {
            key: "results",
            filePath: written.path,
            count: lines.length,
            lineSchema: inferLineSchema(sample),
            description: `Extraction from ${input.source.name}. Line 1 is header metadata; lines 2+ are ${split ? "the elements of the output array" : "the output values"}.`,
            summary: { count: lines.length, source_detail: input.source.header.detail },
          },
        ],
        {
          extraction: {
            source_file: input.source.path,
            filter: input.description,
            output_values: input.lines.length,
            estimated_tokens: input.estimatedTokens,
            lines: split
              ? "the filter's single array output, one element per line"
              : "one output value per line",
          },
        },
      );
      response.guidance = `${response.guidance}\n${nativeHint(written.path)}`;
      events.emit({
        type: "OffloadCreated",
        time: new Date(now()).toISOString(),
        path: written.path,
        operation: EXTRACT_OPERATION,
        count: lines.length,
        bytes: written.bytes,
        estimated_tokens: input.estimatedTokens,
        detail: input.detail,
      });
      return { text: JSON.stringify(response), paths: [written.path] };
    } catch (err) {
      if (path) await fs.unlink(path).catch(() => {});
      const error =
        err instanceof LroError
          ? err
          : new LroError("WRITE_FAILED", (err as Error)?.message ?? String(err), { cause: err });
      const cause = (error as { cause?: { code?: unknown } }).cause;
      const code = typeof cause?.code === "string" ? cause.code : error.code;
      events.emit({
        type: "OffloadWriteFailed",
        time: new Date(now()).toISOString(),
        operation: EXTRACT_OPERATION,
        path: error instanceof WriteFailedError ? error.path : null,
        code,
        error: error.message,
        count: input.lines.length,
        estimated_tokens: input.estimatedTokens,
      });
      return truncatedInline(input.lines, code, config.thresholdTokens);
    }
  };
}

/** The leading output values that fit the threshold (chars / 4), with the warning. */
function truncatedInline(
  lines: readonly string[],
  code: string,
  threshold: number,
): ReoffloadOutcome {
  const draft = truncationWarning(code, lines.length, lines.length, threshold);
  const budget = (threshold - reserveFor(draft)) * 4;
  let used = 0;
  let kept = 0;
  while (kept < lines.length && used + (lines[kept] as string).length + 1 <= budget) {
    used += (lines[kept] as string).length + 1;
    kept++;
  }
  const body = lines.slice(0, kept).join("\n");
  const warning = truncationWarning(code, kept, lines.length, threshold);
  return { text: `${body}${body ? "\n" : ""}\n> Warning: ${warning}\n`, paths: [] };
}
