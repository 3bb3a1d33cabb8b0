/**
 * Tool middleware (`(next) => handler`, named factories) and their
 * composition, built once per tool at registration (`ToolRegistry` for
 * atlatl's tools, `registerLroExtract`'s `middleware` option for `lro_extract`).
 */

import { isCodedError } from "@atlatl/lro";
import { type CallToolResult, ProtocolError } from "@modelcontextprotocol/server";
import { toolError } from "./tools/json-result.js";

// biome-ignore lint/suspicious/noExplicitAny: tool callbacks differ in their argument lists.
export type ToolHandler = (...args: any[]) => CallToolResult | Promise<CallToolResult>;
export type ToolMiddleware = (next: ToolHandler) => ToolHandler;

/**
 * A thrown failure becomes an `isError` result carrying its code and field (the SDK
 * would reduce it to its message): a `CodedError` of any layer (services, store,
 * LRO, MIF) keeps both; anything else is `INTERNAL`. Protocol errors (`ProtocolError`)
 * are left to the SDK.
 */
export const withToolErrors: ToolMiddleware =
  (next) =>
  async (...args) => {
    try {
      return await next(...args);
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      if (isCodedError(err)) {
        return toolError({ code: err.code, message: err.message, field: err.field });
      }
      const message = err instanceof Error ? err.message : String(err);
      return toolError({ code: "INTERNAL", message });
    }
  };

/** `middlewares` (outermost first) around `handler`. */
export function compose(...middlewares: ToolMiddleware[]): ToolMiddleware {
  return (handler) => middlewares.reduceRight((h, m) => m(h), handler);
}
