/**
 * The generic (multi-section) descriptor, after the Python library's
 * `offload_if_needed` response: for results of arbitrary tools (proxy, large
 * extractions) whose lines are not memory records.
 */
import { shellQuote } from "../../recipes/shell-quote.js";
import type { GenericOffloadResponse, JsonSchema } from "../../types.js";

/** Default description of a section file's layout. */
export const GENERIC_SCHEMA_DESCRIPTION = "Line 1 is header metadata. Lines 2+ are data objects.";

/** One written section, as the descriptor describes it. */
export interface DescribedSection {
  key: string;
  filePath: string;
  count: number;
  lineSchema: JsonSchema;
  description?: string | undefined;
  /** Summary of the section (default `{count}`). */
  summary?: Record<string, unknown> | undefined;
  /**
   * Custom recipes by name; `{key_file}` placeholders (e.g. `{results_file}`) are
   * replaced by the section's shell-quoted path. Default: list, count, first 10.
   */
  recipes?: Record<string, string> | undefined;
}

/** Default recipes of a section, with the `{key_file}` placeholder. */
export function defaultSectionRecipes(key: string): Record<string, string> {
  const file = `{${key}_file}`;
  return {
    [`list_all_${key}`]: `tail -n +2 ${file} | jq '.'`,
    [`count_${key}`]: `tail -n +2 ${file} | jq -s 'length'`,
    [`first_10_${key}`]: `tail -n +2 ${file} | head -10 | jq '.'`,
  };
}

/**
 * Replace every `{key_file}` placeholder of `sections` by the shell-quoted path.
 * Placeholders already wrapped in single quotes (`'{key_file}'`, the Python
 * library's habit) are replaced with the quotes, so the result stays one word.
 */
export function fillFilePlaceholders(
  command: string,
  sections: readonly Pick<DescribedSection, "key" | "filePath">[],
): string {
  let out = command;
  for (const s of sections) {
    const quoted = shellQuote(s.filePath);
    out = out.replaceAll(`'{${s.key}_file}'`, quoted).replaceAll(`{${s.key}_file}`, quoted);
  }
  return out;
}

/** The guidance text of the generic profile (plain text). */
export function genericGuidance(
  sections: readonly Pick<DescribedSection, "key" | "filePath">[],
): string {
  return [
    `Results offloaded to JSONL (${sections.length} section(s): ${sections.map((s) => s.key).join(", ")}).`,
    "Files:",
    ...sections.map((s) => `  - ${s.key}: ${s.filePath}`),
    "",
    "Use the jq_recipes above to extract specific data, or read files directly.",
    "Header line (line 1) contains metadata; data objects start at line 2.",
  ].join("\n");
}

/** Build the multi-section descriptor; `inline` keys are copied in after `offloaded`. */
export function buildGenericDescriptor(
  sections: readonly DescribedSection[],
  inline: Record<string, unknown> = {},
): GenericOffloadResponse {
  const summary: Record<string, Record<string, unknown>> = {};
  const files: Record<string, string> = {};
  const schemas: Record<string, { description: string; line_schema: JsonSchema }> = {};
  const recipes: Record<string, string> = {};
  for (const s of sections) {
    summary[s.key] = s.summary ?? { count: s.count };
    files[s.key] = s.filePath;
    schemas[s.key] = {
      description: s.description ?? GENERIC_SCHEMA_DESCRIPTION,
      line_schema: s.lineSchema,
    };
    for (const [name, cmd] of Object.entries(s.recipes ?? defaultSectionRecipes(s.key))) {
      recipes[name] = fillFilePlaceholders(cmd, sections);
    }
  }
  const reserved = new Set(["offloaded", "summary", "files", "schemas", "jq_recipes", "guidance"]);
  const inlineKeys = Object.fromEntries(Object.entries(inline).filter(([k]) => !reserved.has(k)));
  return {
    offloaded: true,
    ...inlineKeys,
    summary,
    files,
    schemas,
    jq_recipes: recipes,
    guidance: genericGuidance(sections),
  };
}
