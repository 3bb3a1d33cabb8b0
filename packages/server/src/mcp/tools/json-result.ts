import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A successful tool result carrying one JSON value as text. */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

/** A tool error a model can act on: the message says what was wrong and what to do. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
