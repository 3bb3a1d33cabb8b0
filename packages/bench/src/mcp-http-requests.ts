/**
 * The MCP requests of the server-http benchmark, by hand (autocannon sends
 * raw HTTP): a 2025-11-25 session (`initialize` once, then `tools/call`s
 * with its `Mcp-Session-Id`) and independent 2026-07-28 `tools/call`s (the
 * standard headers and the `_meta` envelope, no session).
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import type autocannon from "autocannon";

const MCP_ACCEPT = "application/json, text/event-stream";
/** The protocol revisions measured: the stateless one and the last with sessions. */
export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";

/** Initialize a session by hand (the session id is all autocannon needs). */
async function openSession(base: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", accept: MCP_ACCEPT },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }),
  });
  await res.text();
  const sid = res.headers.get("mcp-session-id");
  if (!sid) throw new Error(`no session: ${res.status}`);
  await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      ...headers,
      "mcp-session-id": sid,
      "content-type": "application/json",
      accept: MCP_ACCEPT,
    },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  }).then((r) => r.text());
  return sid;
}

/** The JSON-RPC body of a `tools/call`. */
type CallBody = (id: number) => string;

/** autocannon options POSTing `body` (a fresh JSON-RPC id per request) with `headers`. */
function posts(base: string, headers: Record<string, string>, body: CallBody): autocannon.Options {
  let id = 1;
  return {
    url: `${base}/mcp`,
    method: "POST",
    headers: { ...headers, "content-type": "application/json", accept: MCP_ACCEPT },
    requests: [{ setupRequest: (req) => ({ ...req, body: body(id++) }) }],
  };
}

/** A 2025-11-25 `tools/call`. */
const legacyCall =
  (tool: string, args: object): CallBody =>
  (id) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: tool, arguments: args },
    });

/** A 2026-07-28 `tools/call`: the per-request `_meta` envelope, no session. */
const modernCall =
  (tool: string, args: object): CallBody =>
  (id) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: tool,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
        },
      },
    });

/** The 2026-07-28 headers of a `tools/call` of `tool`. */
const modernHeaders = (tool: string) => ({
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": tool,
});

/** autocannon options for `tools/call` in one 2025-11-25 session. */
export async function legacyCalls(
  base: string,
  auth: Record<string, string>,
  tool: string,
  args: object,
): Promise<autocannon.Options> {
  const sid = await openSession(base, auth);
  return posts(base, { ...auth, "mcp-session-id": sid }, legacyCall(tool, args));
}

/** autocannon options for independent 2026-07-28 `tools/call`s (no session). */
export function modernCalls(
  base: string,
  auth: Record<string, string>,
  tool: string,
  args: object,
): autocannon.Options {
  return posts(base, { ...auth, ...modernHeaders(tool) }, modernCall(tool, args));
}

/** The JSON-RPC message of a response, JSON or one SSE event. */
async function rpcMessage(res: Response): Promise<{ result?: CallToolResult; error?: unknown }> {
  const text = await res.text();
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return JSON.parse(text);
  }
  const data = text.split("\n").find((l) => l.startsWith("data: "));
  return data ? JSON.parse(data.slice(6)) : {};
}

/**
 * One 2026-07-28 `tools/call` of `tool` as the modern runs send it: its
 * result, or undefined (with why) when the server does not answer that
 * revision.
 */
export async function modernResult(
  base: string,
  auth: Record<string, string>,
  tool: string,
  args: object,
): Promise<{ result?: CallToolResult; why?: string }> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      ...auth,
      ...modernHeaders(tool),
      "content-type": "application/json",
      accept: MCP_ACCEPT,
    },
    body: modernCall(tool, args)(0),
  });
  const message = await rpcMessage(res).catch(() => ({}) as { result?: CallToolResult });
  if (res.ok && message.result?.resultType === "complete") return { result: message.result };
  return { why: `HTTP ${res.status}: ${JSON.stringify(message).slice(0, 160)}` };
}

/** The records of an inline recall page, or undefined when it offloaded. */
export function inlineRecords(result: CallToolResult): { id: string }[] | undefined {
  const body = JSON.parse((result.content[0] as { text: string }).text);
  return body.offloaded ? undefined : body.records;
}
