/** A JSON-RPC id to answer with: the request's own, when the body is a request that has one. */
export type JsonRpcId = string | number | null;

/** A JSON-RPC 2.0 error response. */
export function jsonRpcErrorResponse(
  status: number,
  code: number,
  message: string,
  options: { headers?: Record<string, string>; id?: JsonRpcId } = {},
): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code, message }, id: options.id ?? null },
    { status, ...(options.headers ? { headers: options.headers } : {}) },
  );
}

/** The id of a parsed JSON-RPC request body, when it is one request with an id. */
export function requestIdOf(body: unknown): JsonRpcId {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
