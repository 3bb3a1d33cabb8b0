/**
 * Large extractions are offloaded again: an output above the threshold becomes
 * a derived file `atlatl-extract-{ulid}.jsonl` (header line, then one value per
 * line) described by the generic descriptor, never a flood in the context.
 */
import type { Offloader } from "../offload/offloader.js";
import type { Reoffload, ReoffloadInput, ReoffloadOutcome } from "./extractor.js";

/** Operation name of derived files: `atlatl-extract-{ulid}.jsonl`. */
export const EXTRACT_OPERATION = "extract";

/**
 * The items of the derived file: the output values, except that a single array
 * output (what slurping recipes such as 8 produce) is split into its elements,
 * so each line is one record again and the file can be queried like the source.
 */
function derivedItems(lines: readonly string[]): { items: unknown[]; split: boolean } {
  if (lines.length === 1 && (lines[0] as string).startsWith("[")) {
    return { items: JSON.parse(lines[0] as string) as unknown[], split: true };
  }
  return { items: lines.map((l) => JSON.parse(l) as unknown), split: false };
}

function nativeHint(path: string): string {
  return [
    "",
    "Without a shell, query it with the `lro_extract` tool, for example:",
    `- First values: lro_extract(file_path=${JSON.stringify(path)}, query=".", limit=20)`,
    `- Count: lro_extract(file_path=${JSON.stringify(path)}, query="length", slurp=true)`,
    "Recipes 1-8 also apply when its lines are memory records.",
  ].join("\n");
}

/** A {@link Reoffload} writing derived files with `offloader` (its config, events, clock). */
export function offloaderReoffload(offloader: Offloader): Reoffload {
  return async (input: ReoffloadInput): Promise<ReoffloadOutcome | undefined> => {
    const { items, split } = derivedItems(input.lines);
    const outcome = await offloader.offloadSections({
      operation: EXTRACT_OPERATION,
      query: input.description,
      detail: input.detail,
      force: true,
      inline: {
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
      sections: [
        {
          key: "results",
          items,
          summary: { count: items.length, source_detail: input.source.header.detail },
          description: `Extraction from ${input.source.name}. Line 1 is header metadata; lines 2+ are ${split ? "the elements of the output array" : "the output values"}.`,
        },
      ],
    });
    if (outcome.kind === "offloaded") {
      const paths = outcome.files.map((f) => f.path);
      const response = { ...outcome.response };
      response.guidance = `${response.guidance}\n${nativeHint(paths[0] ?? "")}`;
      return { text: JSON.stringify(response), paths };
    }
    if (outcome.kind === "truncated") {
      const kept = outcome.sections[0]?.items ?? [];
      const body = kept.map((v) => JSON.stringify(v)).join("\n");
      return { text: `${body}${body ? "\n" : ""}\n> Warning: ${outcome.warning}\n`, paths: [] };
    }
    return undefined;
  };
}
