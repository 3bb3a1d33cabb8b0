/**
 * Guidance prompts after the specification's templates: the shell one (jq
 * recipes) and the native one (the `lro_extract` tool), each with what the
 * template says and no more: the path is in `file_path` (and in every
 * recipe), the count and tokens saved in `summary`, so neither repeats them. Advisory, never imperative, so a client without shell or
 * extraction tool can skip it without an error.
 */
import { LRO_EXTRACT_TOOL_NAME } from "../../extract/tool-name.js";
import type { DetailLevel } from "../../types.js";

/** What the guidance templates fill in (count, tokens and path are the descriptor's own fields). */
export interface GuidanceInput {
  detail: DetailLevel;
}

/**
 * The templates' opening, without the count and tokens saved (they are the
 * summary's, just above): the detail level (the specification asks for it)
 * and the header line a hand-written filter must skip.
 */
function head(g: GuidanceInput): string {
  return `Results offloaded to JSONL. Detail level: ${g.detail}. Line 1 is a header.`;
}

/** The specification's guidance template for shell-capable clients, lean. */
export function shellGuidance(g: GuidanceInput): string {
  // The template's pointers to recipes 1, 2, 3 and 6 (the paper's evaluation names them too).
  return `${head(g)}\nUse the jq recipes above on file_path: browse #1, filter #2 or #3, count #6.`;
}

/**
 * The specification's native-extraction template (calling `tool`,
 * `lro_extract` by default), lean: no path (it is `file_path`), the recipes
 * by number (their descriptions are above); the tool's schema says the rest,
 * and a recipe called without its params gets an error naming them.
 */
export function nativeGuidance(g: GuidanceInput, tool: string = LRO_EXTRACT_TOOL_NAME): string {
  return `${head(g)}\nUse the jq recipes above, or \`${tool}\` with file_path and recipe=N or query.`;
}
