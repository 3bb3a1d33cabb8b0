import { jsonRpcErrorHttpResponse } from "@atlatl/lro/node";
import type { ErrorHandler } from "hono";
import { type McpBodyVariables, requestIdOf } from "./mcp/json-rpc-body.js";
import { INTERNAL_PROBLEM, problem } from "./problem.js";

/**
 * The whole app's last resort (Hono's `onError`; `/v1` maps its own errors
 * first): a throw no route answered (a message nested too deep for the SDK's
 * validation, a bug) gets a JSON body, never Hono's plain-text 500: under
 * `mcpPath` a JSON-RPC error (`-32603` with the request's id, as stdio
 * answers), elsewhere problem+json with the code `INTERNAL`. The error's own text goes to `log` only:
 * it may name internals.
 */
export function appError<E extends { Variables: McpBodyVariables }>(
  mcpPath: string,
  log: (err: Error) => void,
): ErrorHandler<E> {
  return (err, c) => {
    log(err);
    if (c.req.path === mcpPath) {
      return jsonRpcErrorHttpResponse(500, requestIdOf(c.get("mcpBody")), {
        code: -32603,
        message: "Internal server error",
      });
    }
    return problem(INTERNAL_PROBLEM);
  };
}
