import type { ServerResponse } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { problem } from "../problem.js";
import type { AuthVariables } from "./bearer-auth.js";

/**
 * Release `done` once `res`'s body has been sent or abandoned (a streamed
 * response, e.g. SSE, keeps its slot until it ends), by wrapping the body in
 * a stream that reports its end. Only where there is no Node response to
 * watch (see {@link perTokenConcurrency}): the wrapper costs a web stream per
 * response and takes @hono/node-server off its direct path for string bodies.
 */
function onBodyEnd(res: Response, done: () => void): Response {
  if (!res.body) {
    done();
    return res;
  }
  let released = false;
  const release = () => {
    if (!released) {
      released = true;
      done();
    }
  };
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        release();
        controller.error(err);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/**
 * At most `max` requests in flight per token; more get 429 with `Retry-After`.
 * `exempt` requests (long-lived MCP streams) are not counted.
 */
export function perTokenConcurrency<V extends AuthVariables>(
  max: number,
  exempt: (c: Context<{ Variables: V }>) => boolean = () => false,
): MiddlewareHandler<{ Variables: V }> {
  const inFlight = new Map<string, number>();
  return async (c, next) => {
    if (exempt(c)) return next();
    const token = c.get("tokenId");
    const n = inFlight.get(token) ?? 0;
    if (n >= max) {
      return problem(
        {
          title: "Too Many Requests",
          status: 429,
          detail: `This token already has ${max} requests in flight; wait for one to finish and retry.`,
        },
        { "retry-after": "1" },
      );
    }
    inFlight.set(token, n + 1);
    const release = () => {
      const left = (inFlight.get(token) ?? 1) - 1;
      if (left <= 0) inFlight.delete(token);
      else inFlight.set(token, left);
    };
    try {
      await next();
    } catch (err) {
      release();
      throw err;
    }
    // Under @hono/node-server the Node response is at hand: its `close` comes
    // once the body has been written out or the connection has gone.
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing) {
      if (outgoing.closed) release();
      else outgoing.once("close", release);
    } else c.res = onBodyEnd(c.res, release);
  };
}
