/**
 * Forward one request from one side of the proxy to the other, as it came:
 * params untouched (the progress token is swapped for the SDK's own and mapped
 * back on each progress notification), cancellation followed through the abort
 * signal, the result passed as it arrived and JSON-RPC errors re-thrown with
 * their code, message and data. Errors the SDK raises locally (a timeout, a
 * closed connection: `SdkError`, whose code is a string) become JSON-RPC
 * errors with the codes the 2025 SDK gave them.
 */
import {
  type Notification,
  ProtocolError,
  ProtocolErrorCode,
  type Request,
  type RequestOptions,
  type Result,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import { z } from "zod";

/** Any result, kept as it arrived (no keys added, dropped or reordered). */
const AnyResult = z.looseObject({});

/** JSON-RPC code of a request that got no answer in time (SDK 1.x's `ErrorCode.RequestTimeout`). */
export const REQUEST_TIMEOUT = -32001;
/** JSON-RPC code of a request whose connection closed (SDK 1.x's `ErrorCode.ConnectionClosed`). */
export const CONNECTION_CLOSED = -32000;
/** JSON-RPC "Method not found". */
export const METHOD_NOT_FOUND: number = ProtocolErrorCode.MethodNotFound;
/** JSON-RPC "Invalid params". */
export const INVALID_PARAMS: number = ProtocolErrorCode.InvalidParams;
/** JSON-RPC "Internal error". */
export const INTERNAL_ERROR: number = ProtocolErrorCode.InternalError;

/** What a handler of either side receives besides the request (`ctx.mcpReq`, in part). */
export interface ForwardContext {
  mcpReq: {
    signal: AbortSignal;
    _meta?: { progressToken?: string | number | undefined; [key: string]: unknown } | undefined;
    notify: (notification: Notification) => Promise<void>;
  };
}

/** An error that the SDK sends as a JSON-RPC error with exactly this code, message and data. */
export function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) });
}

const SDK_CODES: Partial<Record<string, number>> = {
  [SdkErrorCode.RequestTimeout]: REQUEST_TIMEOUT,
  [SdkErrorCode.ConnectionClosed]: CONNECTION_CLOSED,
};

/** `err` as the JSON-RPC error to send the other side. */
export function unwrapError(err: unknown): unknown {
  if (err instanceof ProtocolError) return rpcError(err.code, err.message, err.data);
  if (err instanceof SdkError) {
    return rpcError(SDK_CODES[err.code] ?? INTERNAL_ERROR, err.message, err.data);
  }
  return err;
}

/** Either side's SDK object (`Client` or `Server`), as far as forwarding needs it. */
interface Requester {
  request(
    request: Request,
    resultSchema: typeof AnyResult,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>>;
}

/** Send `request` through `to` on behalf of a handler of the other side. */
export async function forwardRequest(
  to: Requester,
  request: Request,
  ctx: ForwardContext,
  timeoutMs: number,
  extra: RequestOptions = {},
): Promise<Result> {
  const token = ctx.mcpReq._meta?.progressToken;
  const options: RequestOptions = {
    signal: ctx.mcpReq.signal,
    timeout: timeoutMs,
    resetTimeoutOnProgress: true,
    ...extra,
  };
  if (token !== undefined) {
    options.onprogress = (progress) => {
      const notification = {
        method: "notifications/progress",
        params: { ...progress, progressToken: token },
      };
      ctx.mcpReq.notify(notification).catch(() => {});
    };
  }
  return (await to.request(
    { method: request.method, ...(request.params ? { params: request.params } : {}) },
    AnyResult,
    options,
  )) as Result;
}
