/**
 * Guidance prompts of the specification's templates: the shell one (jq recipes)
 * and the native one (the `lro_extract` tool). Advisory, never imperative, so a
 * client without shell or extraction tool can skip it without an error.
 */
import { LRO_EXTRACT_TOOL_NAME } from "../../extract/tool-name.js";
import type { DetailLevel } from "../../types.js";

/** What the guidance templates fill in. */
export interface GuidanceInput {
  count: number;
  tokens: number;
  path: string;
  detail: DetailLevel;
  /** Example namespace for the native template (defaults to `_semantic`). */
  namespace?: string | undefined;
}

/** The specification's guidance template for shell-capable clients. */
export function shellGuidance(g: GuidanceInput): string {
  return [
    `Results offloaded to JSONL (${g.count} memories, ~${g.tokens} tokens saved).`,
    `File: ${g.path}`,
    `Detail level: ${g.detail}`,
    "",
    "Use the jq recipes above to extract specific data. Common patterns:",
    "- Browse: recipe #1 (titles with namespaces)",
    "- Filter: recipe #2 (by namespace) or #3 (by keyword)",
    "- Analyze: recipe #6 (count by namespace)",
    "",
    "Read the file directly only if you need the complete dataset.",
    "The header line (line 1) contains metadata; memory objects start at line 2.",
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
 * Recipes 9 and 10 named by what they do at `detail` (the specification's
 * table), where its template says only "detail-adaptive".
 */
const adaptiveNames: Record<DetailLevel, string> = {
  light: "9=list unique namespaces, 10=count by memory_type.",
  medium: "9=sort by confidence desc, 10=search content.",
  full: "9=sort by confidence desc (.provenance.confidence), 10=search content.",
};

/** The specification's native-extraction template (examples calling `tool`, `lro_extract` by default). */
export function nativeGuidance(g: GuidanceInput, tool: string = LRO_EXTRACT_TOOL_NAME): string {
  const file = `file_path=${JSON.stringify(g.path)}`;
  const ns = JSON.stringify({ namespace: g.namespace ?? "_semantic" }).replace(":", ": ");
  return [
    `Results offloaded to JSONL (${g.count} memories, ~${g.tokens} tokens saved).`,
    `Detail level: ${g.detail}`,
    "",
    `Use the \`${tool}\` tool to query this result set. Examples:`,
    `- Browse: ${tool}(${file}, recipe=1)`,
    `- Filter by namespace: ${tool}(${file}, recipe=2, params=${ns})`,
    `- Search by keyword: ${tool}(${file}, recipe=3, params={"keyword": "your term"})`,
    `- Custom filter: ${tool}(${file}, query=${JSON.stringify(customFilter[g.detail])})`,
    "",
    "Available recipes: 1=titles+namespaces, 2=filter namespace, 3=search titles,",
    "4=IDs+titles, 5=filter type, 6=count by namespace, 7=filter tag, 8=sort by date,",
    adaptiveNames[g.detail],
  ].join("\n");
}
