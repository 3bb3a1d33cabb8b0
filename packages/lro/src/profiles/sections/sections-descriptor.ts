/**
 * The generic (multi-section) descriptor, after the Python library's
 * `offload_if_needed` response: for results of arbitrary tools (proxy, large
 * extractions) whose lines are not memory records.
 */
import { compactShape } from "../../descriptor/infer-schema.js";
import { RECIPE_FILE_VAR, recipeFileAssignment } from "../../recipes/recipe-spec.js";
import { shellQuote, shellWord } from "../../recipes/shell-quote.js";
import type { GenericOffloadResponse, JsonSchema } from "../../types.js";

/** Default description of a section file's layout. */
export const GENERIC_SCHEMA_DESCRIPTION = "Line 1 is a header; then one value per line.";

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
   * replaced by the section's path (shell-quoted where it needs it). Default:
   * list, count, first 10; `{}`: none (a section only reassembly reads).
   */
  recipes?: Record<string, string> | undefined;
}

/** Default recipes of a section, with the `{key_file}` placeholder (no "print it all": that is the flood offloading avoids). */
export function defaultSectionRecipes(key: string): Record<string, string> {
  const file = `{${key}_file}`;
  return {
    [`count_${key}`]: `tail -n +2 ${file} | jq -s 'length'`,
    [`first_10_${key}`]: `tail -n +2 ${file} | head -10 | jq '.'`,
  };
}

/**
 * Replace every `{key_file}` placeholder of `sections` by the path, as one
 * shell word (bare when nothing in it is special). Placeholders already
 * wrapped in single quotes (`'{key_file}'`, the Python library's habit) are
 * replaced with the quotes, so the result stays one word.
 */
export function fillFilePlaceholders(
  command: string,
  sections: readonly Pick<DescribedSection, "key" | "filePath">[],
  /** The section whose path is `"$F"` (set by the guidance's `F=<path>`). */
  varKey?: string,
): string {
  let out = command;
  for (const s of sections) {
    if (s.key === varKey) {
      const v = `"$${RECIPE_FILE_VAR}"`;
      out = out.replaceAll(`'{${s.key}_file}'`, v).replaceAll(`{${s.key}_file}`, v);
      continue;
    }
    out = out
      .replaceAll(`'{${s.key}_file}'`, shellQuote(s.filePath))
      .replaceAll(`{${s.key}_file}`, shellWord(s.filePath));
  }
  return out;
}

/** The guidance text of the generic profile (plain text); `varSection`'s path is `F`. */
export function genericGuidance(
  sections: readonly Pick<DescribedSection, "key" | "filePath">[],
  varSection?: Pick<DescribedSection, "filePath">,
): string {
  const assign = varSection ? `${recipeFileAssignment(varSection.filePath)}\n` : "";
  return `${assign}JSONL in files (${sections.map((s) => s.key).join(", ")}), line 1 of each a header. Run a jq recipe above, or your own jq.`;
}

/** Build the multi-section descriptor; `inline` keys are copied in after `offloaded`. */
export function buildGenericDescriptor(
  sections: readonly DescribedSection[],
  inline: Record<string, unknown> = {},
): GenericOffloadResponse {
  const summary: Record<string, Record<string, unknown>> = {};
  const files: Record<string, string> = {};
  const schemas: GenericOffloadResponse["schemas"] = {};
  const recipes: Record<string, string> = {};
  const recipesOf = (s: DescribedSection) => s.recipes ?? defaultSectionRecipes(s.key);
  // The first section with recipes is read through `"$F"`.
  const varSection = sections.find((s) => Object.keys(recipesOf(s)).length > 0);
  for (const s of sections) {
    summary[s.key] = s.summary ?? { count: s.count };
    files[s.key] = s.filePath;
    const own = Object.entries(recipesOf(s));
    // A section without recipes is there for reassembly: no schema to read.
    if (own.length === 0) continue;
    schemas[s.key] = {
      description: s.description ?? GENERIC_SCHEMA_DESCRIPTION,
      line_schema: compactShape(s.lineSchema),
    };
    for (const [name, cmd] of own) {
      recipes[name] = fillFilePlaceholders(cmd, sections, varSection?.key);
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
    guidance: genericGuidance(sections, varSection),
  };
}
