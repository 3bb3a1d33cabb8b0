/**
 * The one shape of a tool error, on every path (atlatl's tools, `lro_extract`,
 * the proxy's): the text leads with the code and the argument at fault
 * (`INVALID_ARGUMENT (query): ...`), and `structuredContent.error` carries the
 * same for programs.
 */
import type { CallToolResult } from "../../protocol/mcp-types.js";

/** What a failed tool call tells the client: a stable code, what to do, and the argument at fault. */
export interface ToolErrorInfo {
  code: string;
  message: string;
  field?: string | undefined;
}

/** The `isError` result of `error`. */
export function toolErrorResult(error: ToolErrorInfo): CallToolResult {
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
