/**
 * Forward one request from one side of the proxy to the other, as it came:
 * params untouched (the progress token is swapped for the SDK's own and mapped
 * back on each progress notification), cancellation followed through the abort
 * signal, the result passed as it arrived and JSON-RPC errors re-thrown with
 * their code, message and data.
 */
import type { Protocol, RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  McpError,
  type Notification,
  type Request,
  type Result,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** Any result, kept as it arrived (no keys added, dropped or reordered). */
export const AnyResult = z.looseObject({});

/** What a handler receives besides the request (the SDK's `RequestHandlerExtra`, in part). */
export interface ForwardExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number; [key: string]: unknown } | undefined;
  sendNotification: (notification: never) => Promise<void>;
}

/** An error that the SDK sends as a JSON-RPC error with exactly this code, message and data. */
export function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) });
}

/** `err` as the JSON-RPC error the other side sent: the SDK's message prefix removed. */
export function unwrapError(err: unknown): unknown {
  if (!(err instanceof McpError)) return err;
  const prefix = `MCP error ${err.code}: `;
  const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return rpcError(err.code, message, err.data);
}

/** Send `request` through `to` on behalf of a handler of the other side. */
export async function forwardRequest(
  to: Protocol<Request, Notification, Result>,
  request: Request,
  extra: ForwardExtra,
  timeoutMs: number,
): Promise<Result> {
  const token = extra._meta?.progressToken;
  const options: RequestOptions = {
    signal: extra.signal,
    timeout: timeoutMs,
    resetTimeoutOnProgress: true,
  };
  if (token !== undefined) {
    options.onprogress = (progress) => {
      const notification = {
        method: "notifications/progress",
        params: { ...progress, progressToken: token },
      };
      extra.sendNotification(notification as never).catch(() => {});
    };
  }
  return (await to.request(
    { method: request.method, ...(request.params ? { params: request.params } : {}) },
    AnyResult,
    options,
  )) as Result;
}
