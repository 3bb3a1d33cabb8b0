import { type JsonRpcId, jsonRpcErrorHttpResponse } from "@atlatl/lro/node";
import type { MiddlewareHandler } from "hono";

/** What {@link jsonRpcBody} puts on the context: the parsed body of a JSON POST to `/mcp`. */
export interface McpBodyVariables {
  mcpBody?: unknown;
}

/**
 * Whether a parsed body is a 2026-07-28 `subscriptions/listen` request: a
 * long-lived POST whose SSE response carries change notifications.
 */
export function isListenRequest(body: unknown): boolean {
  return (
    typeof body === "object" &&
    body !== null &&
    (body as { method?: unknown }).method === "subscriptions/listen"
  );
}

/** The id of a parsed JSON-RPC request body, when it is one request with an id. */
export function requestIdOf(body: unknown): JsonRpcId {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** `application/json` (any parameters), as the SDK transport requires. */
const isJson = (type: string | undefined) =>
  type !== undefined && type.split(";")[0]?.trim().toLowerCase() === "application/json";

/**
 * Read a JSON POST to `/mcp` once, before the SDK transport: an empty batch
 * (`[]`) is answered `-32600 Invalid Request` as JSON-RPC 2.0 requires (the
 * transport would accept it as "no requests" with 202), and the parsed body is
 * handed on (`parsedBody`), so it is not read twice. Other requests (GET,
 * DELETE, another content type) pass untouched; the transport answers them.
 */
export function jsonRpcBody(): MiddlewareHandler<{ Variables: McpBodyVariables }> {
  return async (c, next) => {
    if (c.req.method !== "POST" || !isJson(c.req.header("content-type"))) return next();
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return jsonRpcErrorHttpResponse(400, null, {
        code: -32700,
        message: "Parse error: Invalid JSON",
      });
    }
    if (Array.isArray(body) && body.length === 0) {
      return jsonRpcErrorHttpResponse(400, null, {
        code: -32600,
        message:
          "Invalid Request: an empty batch ([]) is not a JSON-RPC request; send at least one message",
      });
    }
    c.set("mcpBody", body);
    return next();
  };
}
