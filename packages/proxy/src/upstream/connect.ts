/**
 * Connect the SDK `Client` to the upstream: a child process over stdio (its
 * stderr passed through to ours; see `stdio-transport.ts` for why not the SDK's), or a URL over Streamable HTTP with the SDK's
 * fallback to the older HTTP+SSE transport when the server only has that.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ChildStdioTransport } from "./stdio-transport.js";
import type { UpstreamTarget } from "./target.js";

/**
 * Largest message read from a stdio upstream. The SDK's default (10 MiB) would
 * close the upstream on a large result, the very results the proxy is for.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024 * 1024;

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
  const requestInit = { headers: target.headers };
  try {
    const transport = new StreamableHTTPClientTransport(target.url, { requestInit });
    await client.connect(transport);
    return { transport, kind: "streamable-http" };
  } catch (err) {
    // The SDK's documented fallback: a server without Streamable HTTP answers the
    // POST with 4xx; try the HTTP+SSE transport of protocol version 2024-11-05.
    const transport = new SSEClientTransport(target.url, { requestInit });
    try {
      await client.connect(transport);
    } catch (sseErr) {
      throw new Error(
        `neither Streamable HTTP (${(err as Error).message}) nor SSE (${(sseErr as Error).message}) reached ${target.url.href}`,
      );
    }
    return { transport, kind: "sse" };
  }
}
