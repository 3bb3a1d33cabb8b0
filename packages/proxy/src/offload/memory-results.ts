/**
 * Inline results of an atlatl upstream (the server returns them inline to a
 * proxy): `{count, records, next_cursor?}` JSON from its memory read tools. The
 * proxy writes them with the memory profile (the specification's descriptor and
 * ten recipes), as the specification's "Local LRO Proxy" section describes.
 */
import type { DetailLevel } from "@atlatl/lro";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** atlatl's memory read tools and the LRO operation of each. */
const OPERATIONS: Readonly<Record<string, string>> = {
  recall_memories: "recall",
  search_memories: "search",
  list_memories: "list",
  inject_context: "inject",
};

const DETAILS: readonly string[] = ["light", "medium", "full"];

/** The memory result set of `result`, or undefined when it is not one. */
export function memoryRecordsOf(
  result: CallToolResult,
  tool: string,
  args: Record<string, unknown> | undefined,
): { operation: string; query: string | null; detail: DetailLevel; records: object[] } | undefined {
  const operation = OPERATIONS[tool];
  const first = result.content[0];
  if (!operation || result.content.length !== 1 || first?.type !== "text") return undefined;
  if (!first.text.startsWith('{"count":')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(first.text);
  } catch {
    return undefined;
  }
  const records = (parsed as { records?: unknown }).records;
  if (!Array.isArray(records)) return undefined;
  const detail =
    typeof args?.detail === "string" && DETAILS.includes(args.detail) ? args.detail : "light";
  const query = typeof args?.query === "string" ? args.query : null;
  return { operation, query, detail: detail as DetailLevel, records };
}
