/**
 * Guidance prompts after the specification's templates: the shell one (jq
 * recipes) and the native one (the `lro_extract` tool), each with what the
 * template says and no more: the path is in `file_path` (and in every
 * recipe), so the shell guidance does not repeat it and the native one names
 * it once. Advisory, never imperative, so a client without shell or
 * extraction tool can skip it without an error.
 */
import { LRO_EXTRACT_TOOL_NAME } from "../../extract/tool-name.js";
import type { DetailLevel } from "../../types.js";

/** What the guidance templates fill in. */
export interface GuidanceInput {
  count: number;
  tokens: number;
  path: string;
  detail: DetailLevel;
}

/** The specification's guidance template for shell-capable clients, lean. */
export function shellGuidance(g: GuidanceInput): string {
  return [
    `Results offloaded to JSONL (${g.count} memories, ~${g.tokens} tokens saved). Detail level: ${g.detail}.`,
    "Use the jq recipes above on file_path: browse #1, filter #2 or #3, count #6. Line 1 is a header.",
  ].join("\n");
}

/**
 * A custom-filter example that only uses fields present at `detail`
 * (confidence is flattened at medium, nested at full, absent at light).
 */
const customFilter: Record<DetailLevel, string> = {
  light: "select(.tags | length > 2)",
  medium: "select(.confidence > 0.8)",
  full: "select(.provenance.confidence > 0.8)",
};

/**
 * The specification's native-extraction template (calling `tool`,
 * `lro_extract` by default), lean: no path (it is `file_path`), the recipes
 * by number (their descriptions are above), one example of params and one of
 * a query.
 */
export function nativeGuidance(g: GuidanceInput, tool: string = LRO_EXTRACT_TOOL_NAME): string {
  return [
    `Results offloaded to JSONL (${g.count} memories, ~${g.tokens} tokens saved). Detail level: ${g.detail}.`,
    `Use the jq recipes above, or \`${tool}\` with file_path and recipe=N (e.g. recipe=3, params={"keyword":"your term"}) or query=${JSON.stringify(customFilter[g.detail])}.`,
  ].join("\n");
}
