/**
 * Tool middleware (`(next) => handler`, named factories) and their
 * composition, built once per tool at registration (`ToolRegistry` for
 * atlatl's tools, `registerLroExtract`'s `middleware` option for `lro_extract`).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { isServiceError } from "../services/errors.js";
import { toolError } from "./tools/json-result.js";

// biome-ignore lint/suspicious/noExplicitAny: tool callbacks differ in their argument lists.
export type ToolHandler = (...args: any[]) => CallToolResult | Promise<CallToolResult>;
export type ToolMiddleware = (next: ToolHandler) => ToolHandler;

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : undefined;
}

/**
 * A thrown failure becomes an `isError` result carrying its code and field (the SDK
 * would reduce it to its message). `ServiceError`s keep code and field; other coded
 * errors (LRO, store) keep their code; anything else is `INTERNAL`. Protocol errors
 * (`McpError`) are left to the SDK.
 */
export const withToolErrors: ToolMiddleware =
  (next) =>
  async (...args) => {
    try {
      return await next(...args);
    } catch (err) {
      if (err instanceof McpError) throw err;
      if (isServiceError(err)) {
        return toolError({ code: err.code, message: err.message, field: err.field });
      }
      const message = err instanceof Error ? err.message : String(err);
      return toolError({ code: codeOf(err) ?? "INTERNAL", message });
    }
  };

/** `middlewares` (outermost first) around `handler`. */
export function compose(...middlewares: ToolMiddleware[]): ToolMiddleware {
  return (handler) => middlewares.reduceRight((h, m) => m(h), handler);
}
