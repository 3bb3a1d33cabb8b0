import type { CallToolResult } from "@modelcontextprotocol/server";

/** A successful tool result carrying one JSON value as text. */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

/** The one tool error shape, `@atlatl/lro`'s (`CODE (field): message` and `structuredContent.error`). */
export { type ToolErrorInfo, toolErrorResult as toolError } from "@atlatl/lro/mcp";
