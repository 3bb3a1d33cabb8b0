import { request } from "node:http";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * One HTTP request with exactly the headers given (node:http, so `Host` can be
 * forged the way a DNS-rebinding page would send it).
 */
export function raw(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<RawResponse> {
  const url = new URL(path, base);
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === "string"
        ? options.body
        : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? "GET",
        headers: {
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            json: <T>() => JSON.parse(text) as T,
          }),
        );
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The JSON-RPC `initialize` an MCP client sends first. */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};

export const MCP_HEADERS = { accept: "application/json, text/event-stream" };

/** The protocol revision without sessions (issue 21). */
export const MODERN = "2026-07-28";

/** The per-request `_meta` envelope a 2026-07-28 client sends instead of `initialize`. */
export function envelope(
  capabilities: Record<string, unknown> = {},
  version = MODERN,
): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
  };
}

/** Methods whose `Mcp-Name` header names `params.name` / `params.uri` / `params.taskId`. */
const NAMED: Record<string, "name" | "uri" | "taskId"> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

export interface ModernResponse extends RawResponse {
  /** The JSON-RPC response (the last SSE `data:` answering the id, or the JSON body). */
  message: {
    result?: Record<string, unknown> & {
      content?: { type: string; text?: string; uri?: string }[];
    };
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

let nextId = 1;

/**
 * One 2026-07-28 request over raw HTTP: no `initialize`, no session; the
 * envelope in `params._meta`, `MCP-Protocol-Version`, `Mcp-Method` and (for
 * named methods) `Mcp-Name` headers as the spec's transport section requires.
 * `headers` are added last (a test may override or remove one with "").
 */
export async function modern(
  base: string,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    token?: string;
    headers?: Record<string, string>;
    capabilities?: Record<string, unknown>;
    version?: string;
  } = {},
): Promise<ModernResponse> {
  const id = nextId++;
  const key = NAMED[method];
  const name = key ? params[key] : undefined;
  const headers: Record<string, string> = {
    ...MCP_HEADERS,
    "mcp-protocol-version": options.version ?? MODERN,
    "mcp-method": method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...options.headers,
  };
  for (const [k, v] of Object.entries(headers)) if (v === "") delete headers[k];
  const { _meta, ...rest } = params as { _meta?: Record<string, unknown> };
  const res = await raw(base, "/mcp", {
    method: "POST",
    headers,
    body: {
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...rest,
        _meta: { ...envelope(options.capabilities, options.version), ...(_meta ?? {}) },
      },
    },
  });
  const sse = String(res.headers["content-type"] ?? "").startsWith("text/event-stream");
  const messages = sse
    ? res.body
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { id?: number })
    : res.body === ""
      ? []
      : [res.json<{ id?: number }>()];
  const message = (messages.find((m) => m.id === id) ??
    messages.at(-1) ??
    {}) as ModernResponse["message"];
  return { ...res, message };
}

/**
 * Read an SSE response body as text: `until(text)` reads until the text holds
 * it (or the stream ends); `rest()` reads to the end. Both return all text so far.
 */
export function sseText(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const readWhile = async (more: () => boolean): Promise<string> => {
    while (more()) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    return seen;
  };
  return {
    until: (text: string) => readWhile(() => !seen.includes(text)),
    rest: () => readWhile(() => true),
  };
}

/** The JSON-RPC messages of a response: its SSE `data:` lines, or its JSON body. */
function messagesOf(res: RawResponse): { id?: number | string }[] {
  if (!String(res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
    return res.body === "" ? [] : [res.json()];
  }
  return res.body
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim())
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { id?: number });
}

/**
 * A 2025-11-25 session over raw HTTP: `initialize` with exactly the
 * `clientInfo` and `capabilities` given (no client in between to validate
 * them), then `notifications/initialized`; `request` answers by id.
 */
export async function legacySession(
  base: string,
  token: string,
  init: { clientInfo: Record<string, unknown>; capabilities?: Record<string, unknown> },
) {
  const headers = { ...MCP_HEADERS, authorization: `Bearer ${token}` };
  const opened = await raw(base, "/mcp", {
    method: "POST",
    headers,
    body: {
      ...INITIALIZE,
      params: {
        protocolVersion: "2025-11-25",
        capabilities: init.capabilities ?? {},
        clientInfo: init.clientInfo,
      },
    },
  });
  const session = opened.headers["mcp-session-id"] as string;
  const inSession = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
  await raw(base, "/mcp", {
    method: "POST",
    headers: inSession,
    body: { jsonrpc: "2.0", method: "notifications/initialized" },
  });
  let id = 100;
  return {
    session,
    async request(method: string, params: Record<string, unknown>) {
      const mine = id++;
      const res = await raw(base, "/mcp", {
        method: "POST",
        headers: inSession,
        body: { jsonrpc: "2.0", id: mine, method, params },
      });
      return messagesOf(res).find((m) => m.id === mine) as {
        result?: Record<string, unknown>;
        error?: { code: number; message: string };
      };
    },
    end: () => raw(base, "/mcp", { method: "DELETE", headers: inSession }),
  };
}
