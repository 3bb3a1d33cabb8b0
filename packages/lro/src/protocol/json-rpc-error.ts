/**
 * JSON-RPC 2.0 error responses, built here only: as a message (for a stream
 * such as stdio) and as an HTTP response carrying one (for `/mcp`).
 */

/** A request's id; `null` answers a message whose id is unknown or absent. */
export type JsonRpcId = string | number | null;

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC error response: `error` answering request `id`. */
export interface JsonRpcErrorResponse<
  I extends JsonRpcId = JsonRpcId,
  E extends JsonRpcErrorObject = JsonRpcErrorObject,
> {
  jsonrpc: "2.0";
  id: I;
  error: E;
}

/**
 * `error`'s code, message and data (when set) as a plain object, so an `Error`
 * (a `ProtocolError`, whose `message` JSON leaves out) serves too.
 */
export function jsonRpcErrorObject<E extends JsonRpcErrorObject>(
  error: E,
): Pick<E, keyof JsonRpcErrorObject> {
  const { code, message, data } = error;
  return { code, message, ...(data !== undefined ? { data } : {}) } as Pick<
    E,
    keyof JsonRpcErrorObject
  >;
}

/** `error` ({@link jsonRpcErrorObject}) as the answer to request `id`. */
export function jsonRpcErrorResponse<I extends JsonRpcId, E extends JsonRpcErrorObject>(
  id: I,
  error: E,
): JsonRpcErrorResponse<I, Pick<E, keyof JsonRpcErrorObject>> {
  return { jsonrpc: "2.0", id, error: jsonRpcErrorObject(error) };
}

/** The HTTP response (JSON, `status`) carrying {@link jsonRpcErrorResponse}. */
export function jsonRpcErrorHttpResponse(
  status: number,
  id: JsonRpcId,
  error: JsonRpcErrorObject,
  headers?: Record<string, string>,
): Response {
  return Response.json(jsonRpcErrorResponse(id, error), {
    status,
    ...(headers ? { headers } : {}),
  });
}
