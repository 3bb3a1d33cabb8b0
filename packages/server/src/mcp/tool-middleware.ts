/**
 * Tool middleware (`(next) => handler`, named factories) and its composition,
 * built once per tool at registration: {@link toolRegistrar} registers each of
 * atlatl's tools through the SDK's documented `registerTool` (or
 * `experimental.tasks.registerToolTask`) with its callback already composed;
 * `lro_extract` gets the same composition through its `middleware` option.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { isServiceError } from "../services/errors.js";
import { type AtlatlTaskStore, optionalTaskHandler } from "./tasks.js";
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

/**
 * Strict arguments: a raw shape becomes a strict object, so an argument the
 * schema does not name is refused. The SDK's default (zod's) drops them
 * silently, so a model that sends `filter: {namespace}` where the tool takes
 * `namespace` would get unfiltered results and never learn why; now it gets
 * `INVALID_ARGUMENT` naming the key. The listed schemas say so too
 * (`additionalProperties: false`).
 */
function strict(shape: unknown): unknown {
  const raw = shape !== undefined && !(shape instanceof z.ZodType);
  return raw ? z.strictObject(shape as z.ZodRawShape) : shape;
}

/** Options of {@link toolRegistrar}. */
export interface ToolRegistrarOptions {
  /** Around every tool's callback, outermost first. */
  middleware: ToolMiddleware[];
  /** Tools that may run as MCP Tasks (`taskSupport: "optional"`), and their store. */
  taskTools: ReadonlySet<string>;
  taskStore: AtlatlTaskStore;
}

/**
 * `registerTool` for atlatl's tools: the callback composed once with the
 * middleware, the input schema strict, task-capable tools registered through
 * the SDK's `experimental.tasks.registerToolTask`.
 */
export function toolRegistrar(
  server: McpServer,
  options: ToolRegistrarOptions,
): McpServer["registerTool"] {
  const wrap = compose(...options.middleware);
  const register = (name: string, config: { inputSchema?: unknown }, cb: ToolHandler) => {
    const handler = wrap(cb);
    const inputSchema = strict(config.inputSchema) as z.ZodRawShape;
    if (options.taskTools.has(name)) {
      return server.experimental.tasks.registerToolTask(
        name,
        { ...config, inputSchema, execution: { taskSupport: "optional" } },
        optionalTaskHandler(handler, options.taskStore),
      );
    }
    return server.registerTool(name, { ...config, inputSchema }, handler);
  };
  return register as McpServer["registerTool"];
}

/** How the SDK words a failed input-schema check (before any handler runs). */
const SDK_VALIDATION =
  /^MCP error -32602: Input validation error: Invalid arguments for tool [^:]+: ([\s\S]*)$/;

/**
 * The SDK checks tool arguments against the input schema before any middleware
 * runs and reports a failure as plain text. Give those failures the shape of every
 * other tool error: `INVALID_ARGUMENT`, the first offending argument as `field`.
 * (The SDK offers no hook for this; its `createToolError` is the one place they pass.)
 */
export function useCodedValidationErrors(server: McpServer): void {
  const target = server as unknown as { createToolError(message: string): CallToolResult };
  const plain = target.createToolError.bind(server);
  target.createToolError = (message: string) => {
    const issues = SDK_VALIDATION.exec(message)?.[1];
    if (issues === undefined) return plain(message);
    const firstLine = issues.split("\n")[0] ?? "";
    const field =
      / at ([^.\s[\]]+)[^\s]*$/.exec(firstLine)?.[1] ??
      /^Unrecognized keys?: "([^"]+)"/.exec(firstLine)?.[1];
    return toolError({
      code: "INVALID_ARGUMENT",
      message: issues.replace(/\n/g, "; "),
      field,
    });
  };
}
