/**
 * Tool middleware (`(next) => handler`) and its composition at registration: every
 * tool registered on the server after {@link useToolMiddleware} (ours and the LRO
 * package's `lro_extract`) gets the same wrapping, so no tool body repeats it.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
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
 * An error result a tool built itself as `CODE: message` text (lro_extract does)
 * gets the same `structuredContent.error` as thrown failures.
 */
function withStructuredError(result: CallToolResult): CallToolResult {
  if (!result.isError || result.structuredContent !== undefined) return result;
  const first = result.content[0];
  const match = first?.type === "text" ? /^([A-Z][A-Z0-9_]+): ([\s\S]*)$/.exec(first.text) : null;
  if (!match?.[1] || match[2] === undefined) return result;
  return { ...result, structuredContent: { error: { code: match[1], message: match[2] } } };
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
      return withStructuredError(await next(...args));
    } catch (err) {
      if (err instanceof McpError) throw err;
      if (isServiceError(err)) {
        return toolError({ code: err.code, message: err.message, field: err.field });
      }
      const message = err instanceof Error ? err.message : String(err);
      return toolError({ code: codeOf(err) ?? "INTERNAL", message });
    }
  };

type Register = (
  name: string,
  config: { inputSchema?: unknown },
  cb: ToolHandler,
) => ReturnType<McpServer["registerTool"]>;

/** Route every later `registerTool` on `server` through `intercept` (which calls `register`). */
function interceptRegisterTool(
  server: McpServer,
  intercept: (register: Register, ...args: Parameters<Register>) => ReturnType<Register>,
): void {
  const register = server.registerTool.bind(server) as Register;
  server.registerTool = ((...args: Parameters<Register>) =>
    intercept(register, ...args)) as McpServer["registerTool"];
}

/**
 * Apply `middlewares` (outermost first) to every tool registered on `server` from
 * now on, by wrapping `registerTool`'s callback.
 */
export function useToolMiddleware(server: McpServer, ...middlewares: ToolMiddleware[]): void {
  const wrap = (cb: ToolHandler) => middlewares.reduceRight((h, m) => m(h), cb);
  interceptRegisterTool(server, (register, name, config, cb) => register(name, config, wrap(cb)));
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

/**
 * Tools registered from now on refuse arguments their schema does not name. The
 * SDK's default (zod's) drops them silently, so a model that sends
 * `filter: {namespace}` where the tool takes `namespace` would get unfiltered
 * results and never learn why; now it gets `INVALID_ARGUMENT` naming the key.
 * The listed schemas say so too (`additionalProperties: false`).
 */
export function useStrictArguments(server: McpServer): void {
  interceptRegisterTool(server, (register, name, config, cb) => {
    const shape = config.inputSchema;
    const raw = shape !== undefined && !(shape instanceof z.ZodType);
    const inputSchema = raw ? z.strictObject(shape as z.ZodRawShape) : shape;
    return register(name, { ...config, inputSchema }, cb);
  });
}
