/**
 * Large extractions are offloaded again: an output above the threshold becomes
 * a derived file `atlatl-extract-{ulid}.jsonl` (header line, then one value per
 * line) described by the sections descriptor, never a flood in the context.
 *
 * Judged (`decide`), written and (on a failed write) truncated
 * (`fitToThreshold`) like any result, with the lines as they are and the
 * output's text measured once: re-parsing and re-estimating every line (the
 * tokenizer on every non-Latin line) cost more than the extraction itself.
 */

import { estimateLines, estimateTextTokens, type LinesEstimate } from "../estimate/estimate.js";
import type { Reoffload, ReoffloadInput, ReoffloadOutcome } from "../extract/extractor.js";
import { LRO_EXTRACT_TOOL_NAME } from "../extract/tool-name.js";
import { headerProfileName, profileByName } from "../profiles/registry.js";
import type { GenericOffloadResponse } from "../types.js";
import { failureCode } from "./context.js";
import { decide, thresholdPolicy } from "./decide.js";
import type { Offloader } from "./offloader.js";
import { fitToThreshold, linesThatFit, truncationWarning } from "./truncate.js";
import type { OffloadSectionsInput } from "./types.js";

/** Operation name of derived files: `atlatl-extract-{ulid}.jsonl`. */
export const EXTRACT_OPERATION = "extract";

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

/** The extraction tool, for a client without a shell (the path is `files.results`, given once). */
function nativeHint(recipes: boolean, tool: string): string {
  const numbered = recipes ? "; the source's numbered recipes apply too" : "";
  return `Without a shell: \`${tool}\`(file_path=files.results, query=".", limit=20)${numbered}.`;
}

/**
 * The write-failure fallback of output values: the leading ones that fit (each
 * at its estimated cost: non-Latin values at their tokenized counts), and the warning.
 */
function truncatedValueLines(
  lines: readonly string[],
  estimate: Pick<LinesEstimate, "tokenized">,
  code: string,
  threshold: number,
): string {
  const fitted = fitToThreshold(
    threshold,
    lines.length,
    (kept) => truncationWarning(code, kept, lines.length, threshold),
    (budget) => linesThatFit(lines, estimate, budget).count,
  );
  const body = lines.slice(0, fitted.kept).join("\n");
  return `${body}${body ? "\n" : ""}\n> Warning: ${fitted.warning}\n`;
}

/** What {@link offloadOutput} made of an output: inline as it is, or its replacement text. */
type OutputResponse =
  | { kind: "inline" }
  | { kind: "offloaded"; response: GenericOffloadResponse; paths: string[] }
  | { kind: "truncated"; text: string };

/**
 * Output a tool already rendered as values (`lro_extract`'s jq output):
 * judged like any result; above the threshold written by
 * `sections(tokens)` as a derived file, and if the write fails, the leading
 * values that fit the threshold with a warning (`OffloadWriteFailed` comes
 * from the offloader).
 */
async function offloadOutput(
  offloader: Offloader,
  output: { text: string; lines: readonly string[] },
  sections: (estimatedTokens: number) => Omit<OffloadSectionsInput, "force" | "estimatedTokens">,
): Promise<OutputResponse> {
  const judgement = thresholdPolicy(offloader.config, {});
  if (judgement.off) return { kind: "inline" };
  const tokens = await estimateTextTokens(output.text, judgement.threshold);
  if (!decide(tokens, judgement)) return { kind: "inline" };
  const result = await offloader.offloadSections({
    ...sections(tokens),
    force: true,
    estimatedTokens: tokens,
  });
  if (result.kind === "offloaded") {
    return { kind: "offloaded", response: result.response, paths: result.files.map((f) => f.path) };
  }
  const code = result.kind === "truncated" ? failureCode(result.error) : "WRITE_FAILED";
  return {
    kind: "truncated",
    text: truncatedValueLines(
      output.lines,
      await estimateLines(output.lines),
      code,
      judgement.threshold,
    ),
  };
}

/**
 * Options of {@link offloaderReoffload} that have no effect (kept so callers
 * passing them compile): derived files use the offloader's own clock and file system.
 */
export interface OffloaderReoffloadOptions {
  now?: () => number;
  fs?: unknown;
}

/**
 * A {@link Reoffload} writing derived files through `offloader` (its
 * materializer, ULID source, clock, file system and events; and the input's
 * `onEvent`, the extraction's own listener). If writing fails,
 * the leading output values that fit the threshold come back inline with a
 * warning (and `OffloadWriteFailed` is emitted), as for any offload.
 */
export function offloaderReoffload(
  offloader: Offloader,
  _legacy?: OffloaderReoffloadOptions,
): Reoffload {
  return async (input: ReoffloadInput): Promise<ReoffloadOutcome | undefined> => {
    // Records of the source keep its profile (and recipes); other output is a plain section.
    const sourceProfile =
      input.detail === "raw" ? undefined : profileByName(headerProfileName(input.source.header));
    const lineProfile = sourceProfile?.recipe ? sourceProfile : undefined;
    const outcome = await offloadOutput(offloader, input, (estimatedTokens) => {
      // Only an output that is written is split into its lines.
      const { lines, split } = derivedLines(input);
      return {
        operation: EXTRACT_OPERATION,
        onEvent: input.onEvent,
        query: input.description,
        detail: input.detail,
        sections: [
          {
            key: "results",
            lines,
            ...(lineProfile ? { lineProfile } : {}),
            description: `Line 1 is a header; then ${split ? "the output array's elements" : "the output values"}, one per line.`,
            summary: { count: lines.length, source_detail: input.source.header.detail },
          },
        ],
        inline: {
          // The source is the file_path of the call this answers: not repeated.
          extraction: {
            filter: input.description,
            output_values: input.lines.length,
            estimated_tokens: estimatedTokens,
          },
        },
      };
    });
    if (outcome.kind === "inline") return undefined;
    if (outcome.kind === "truncated") return { text: outcome.text, paths: [] };
    const path = outcome.paths[0] as string;
    const tool = offloader.nativeExtraction || LRO_EXTRACT_TOOL_NAME;
    outcome.response.guidance = `${outcome.response.guidance}\n${nativeHint(lineProfile !== undefined, tool)}`;
    return { text: JSON.stringify(outcome.response), paths: [path] };
  };
}
