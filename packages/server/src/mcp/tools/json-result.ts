import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A successful tool result carrying one JSON value as text. */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

/** What a failed tool call tells the client: a stable code, what to do, and the argument at fault. */
export interface ToolErrorInfo {
  code: string;
  message: string;
  field?: string | undefined;
}

/**
 * A tool error a model can act on: the text leads with the code and the argument
 * at fault (`INVALID_ARGUMENT (query): ...`), and `structuredContent.error`
 * carries the same for programs.
 */
export function toolError(error: ToolErrorInfo): CallToolResult {
  const field = error.field !== undefined ? ` (${error.field})` : "";
  return {
    content: [{ type: "text", text: `${error.code}${field}: ${error.message}` }],
    structuredContent: {
      error: {
        code: error.code,
        message: error.message,
        ...(error.field !== undefined ? { field: error.field } : {}),
      },
    },
    isError: true,
  };
}
