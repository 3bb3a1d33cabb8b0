/**
 * The `fetch` given to the SDK's HTTP client transports (their documented
 * `fetch` option), bounding what an upstream URL can make the proxy hold:
 *
 * - an SSE body is cut into events, each passed on whole; an event over the
 *   bound is dropped. On a POST's stream (which answers that POST's requests),
 *   an event over the bound, or more than the bound in all, ends the stream with
 *   an error response for each request of the POST. On a GET stream (the
 *   standalone stream, or every response of the older HTTP+SSE transport) a
 *   dropped event that was a response gets an error response in its place.
 * - any other body (a JSON response) errors past the bound, failing the call.
 *
 * Errors thrown by fetch itself, and error bodies (which the SDK quotes), are
 * stripped of the URL's secrets.
 */
import { MessageFramer } from "@atlatl/lro/node";
import type { FetchLike, JSONRPCMessage, RequestId } from "@modelcontextprotocol/client";
import {
  droppedNotice,
  droppedResponseId,
  tooLargeError,
  tooLargeResponse,
} from "./message-bound.js";
import { SseEventBoundary } from "./sse-event-boundary.js";

/** Options of {@link boundedFetch}. */
interface BoundedFetchOptions {
  maxBytes: number;
  /** `message` without secrets of the upstream's URL. */
  redact: (message: string) => string;
  /** Diagnostics (each event dropped over the bound). */
  log: (message: string) => void;
}

/** The ids of the requests in a POST's body (the SDK sends JSON-RPC messages as JSON text). */
function requestIds(init: RequestInit | undefined): RequestId[] {
  if (init?.method !== "POST" || typeof init.body !== "string") return [];
  try {
    const parsed = JSON.parse(init.body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) =>
      m && typeof m === "object" && "method" in m && "id" in m ? [m.id as RequestId] : [],
    );
  } catch {
    return [];
  }
}

/** An SSE event carrying `message`. */
function sseEvent(message: JSONRPCMessage): Buffer {
  return Buffer.from(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** The data of an SSE event's first bytes: what follows its first `data:` field name. */
function dataOf(head: string): string {
  const m = /(?:^|[\r\n])data: ?/.exec(head);
  return m ? head.slice(m.index + m[0].length) : "";
}

/** `body` cut into SSE events within the bound (see the file's comment). */
function boundedSse(
  body: ReadableStream<Uint8Array>,
  postIds: RequestId[],
  options: BoundedFetchOptions,
): ReadableStream<Uint8Array> {
  const { maxBytes } = options;
  const reader = body.getReader();
  let total = 0;
  let stopped = false;
  let framer: MessageFramer;
  let out: ReadableStreamDefaultController<Uint8Array>;
  /** Chunks passed on so far. */
  let passed = 0;
  const put = (chunk: Uint8Array) => {
    passed++;
    out.enqueue(chunk);
  };
  // Answer the POST's requests with an error and end the stream.
  const stop = () => {
    stopped = true;
    for (const id of postIds) put(sseEvent(tooLargeResponse(id, maxBytes)));
    out.close();
    reader.cancel().catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
      framer = new MessageFramer(maxBytes, new SseEventBoundary(), {
        message: (parts) => {
          if (!stopped) for (const p of parts) put(p);
        },
        overflow: () => {
          options.log(droppedNotice(maxBytes).message);
          if (postIds.length > 0 && !stopped) stop();
        },
        dropped: (head, tail) => {
          const id = droppedResponseId(dataOf(head.toString("utf8")), tail.toString("utf8"));
          if (id !== undefined && !stopped) put(sseEvent(tooLargeResponse(id, maxBytes)));
        },
      });
    },
    async pull(controller) {
      // A pull that enqueues nothing is not called again: read until something is.
      const before = passed;
      while (!stopped && passed === before) {
        const { value, done } = await reader.read();
        if (stopped) return;
        if (done) return controller.close();
        total += value.byteLength;
        framer.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        // A POST's stream answers its requests: more than the bound in all ends it too.
        if (!stopped && postIds.length > 0 && total > maxBytes) stop();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** `body` passed on as it came, erroring past the bound. */
function boundedBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): ReadableStream<Uint8Array> {
  let total = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) controller.error(tooLargeError(maxBytes));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** `fetch` (or `base`) with every response body bounded, for the SDK's HTTP transports. */
export function boundedFetch(options: BoundedFetchOptions, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    let response: Response;
    try {
      response = await base(url, init);
    } catch (err) {
      throw redactedError(err, options.redact);
    }
    // Redirects keep their own Response (the SDK reads its url and type).
    if (!response.body || (response.status >= 300 && response.status < 400)) return response;
    const head = {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    };
    if (!response.ok) {
      // The SDK puts an error body into its message: a server may echo the URL there.
      const text = await new Response(boundedBody(response.body, options.maxBytes)).text();
      return new Response(options.redact(text), head);
    }
    const type = response.headers.get("content-type") ?? "";
    const body =
      type.split(";")[0]?.trim().toLowerCase() === "text/event-stream"
        ? boundedSse(response.body, requestIds(init), options)
        : boundedBody(response.body, options.maxBytes);
    return new Response(body, head);
  };
}

/** `err` without the URL's secrets in its message or its cause's (fetch quotes both). */
function redactedError(err: unknown, redact: (message: string) => string): unknown {
  if (!(err instanceof Error)) return err;
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  const clean = (m: string | undefined) => m === undefined || redact(m) === m;
  if (clean(err.message) && clean(cause)) return err;
  const out = new Error(
    redact(err.message),
    cause === undefined ? undefined : { cause: new Error(redact(cause)) },
  );
  out.name = err.name;
  return out;
}
