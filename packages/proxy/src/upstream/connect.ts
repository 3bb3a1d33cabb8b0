/**
 * Connect the SDK `Client` to the upstream: a child process over stdio (its
 * stderr passed through to ours; see `stdio-transport.ts` for why not the SDK's),
 * or a URL over Streamable HTTP with the SDK's fallback to the older HTTP+SSE
 * transport when the server only has that. Either way no message read from the
 * upstream is over `MAX_MESSAGE_BYTES` (`bounded-fetch.ts` for HTTP), and no
 * message shows the URL's secrets.
 *
 * The protocol generation is the client's `versionNegotiation` (see
 * `upstream-protocol.ts`): with `auto` the `server/discover` probe runs on
 * the same connection (our stdio transport is not the SDK's, so no sibling
 * process is spawned); the HTTP+SSE fallback is 2025-only.
 */

import { redactUrl, redactUrlSecrets } from "@atlatl/lro/node";
import {
  type Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { boundedFetch } from "./bounded-fetch.js";
import { MAX_MESSAGE_BYTES } from "./message-bound.js";
import { ChildStdioTransport } from "./stdio-transport.js";
import type { UpstreamTarget } from "./target.js";
import { MODERN_PROTOCOL, type UpstreamProtocol } from "./upstream-protocol.js";

/** Which transport reached the upstream. */
export type UpstreamTransportKind = "stdio" | "streamable-http" | "sse";

/** The child's environment: ours (the wrapped server expects the user's variables), plus extras. */
function childEnv(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, ...extra };
}

/** Connect `client` to `target`; throws when the upstream cannot be reached. */
export async function connectUpstream(
  client: Client,
  target: UpstreamTarget,
  log: (message: string) => void,
  protocol: UpstreamProtocol,
): Promise<{ transport: Transport; kind: UpstreamTransportKind }> {
  if (target.kind === "stdio") {
    const transport = new ChildStdioTransport({
      command: target.command,
      args: target.args,
      env: childEnv(target.env),
      cwd: target.cwd,
      maxMessageBytes: MAX_MESSAGE_BYTES,
    });
    await client.connect(transport);
    return { transport, kind: "stdio" };
  }
  const url = target.url;
  const redact = (message: string) => redactUrlSecrets(message, url);
  const fetch = boundedFetch({ maxBytes: MAX_MESSAGE_BYTES, redact, log });
  const options = { requestInit: { headers: target.headers }, fetch };
  try {
    const transport = new StreamableHTTPClientTransport(url, options);
    await client.connect(transport);
    return { transport, kind: "streamable-http" };
  } catch (err) {
    if (protocol === MODERN_PROTOCOL) throw new Error(redact((err as Error).message));
    // The SDK's documented fallback: a server without Streamable HTTP answers the
    // POST with 4xx; try the HTTP+SSE transport of protocol version 2024-11-05,
    // which knows no `server/discover`.
    const transport = new SSEClientTransport(url, options);
    try {
      client.setVersionNegotiation({ mode: "legacy" });
      await client.connect(transport);
    } catch (sseErr) {
      throw new Error(
        redact(
          `neither Streamable HTTP (${(err as Error).message}) nor SSE (${(sseErr as Error).message}) reached ${redactUrl(url)}`,
        ),
      );
    }
    return { transport, kind: "sse" };
  }
}
