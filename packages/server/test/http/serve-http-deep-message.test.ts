/**
 * Issue 29 item 8: `clientCapabilities` nested 10,000 levels deep under
 * `experimental` overflow the stack in the SDK's envelope validation, outside
 * any handler. The client gets a JSON-RPC error with its request's id (as on
 * stdio), not a plain-text 500, and stderr gets one log line, not a stack
 * trace per request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_HEADERS, MODERN, raw } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const DEPTH = 10_000;

/** A `tools/list` whose envelope's capabilities nest `DEPTH` objects (built as text: too deep to stringify). */
function deepToolsList(id: number): string {
  const deep = `${'{"a":'.repeat(DEPTH)}{}${"}".repeat(DEPTH)}`;
  const meta =
    `{"io.modelcontextprotocol/protocolVersion":"${MODERN}",` +
    '"io.modelcontextprotocol/clientInfo":{"name":"deep","version":"1"},' +
    `"io.modelcontextprotocol/clientCapabilities":{"experimental":${deep}}}`;
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${meta}}}`;
}

describe.each([
  ["with 2025-era sessions", "true"],
  ["without sessions", "false"],
])("atlatl serve --http (%s): a message nested too deep", (_name, legacySessions) => {
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({ env: { ATLATL_SERVER__HTTP__LEGACY_SESSIONS: legacySessions } });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("is answered with a JSON-RPC error carrying its id, and logs no stack trace", async () => {
    for (const id of [7, 8]) {
      const r = await raw(s.url, "/mcp", {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
        body: deepToolsList(id),
      });
      expect(r.headers["content-type"]).toMatch(/^application\/json/);
      expect(r.json()).toEqual({
        jsonrpc: "2.0",
        id,
        error: { code: -32603, message: "Internal server error" },
      });
    }
    expect(s.stderr()).not.toMatch(/\n\s+at /);
    // The server goes on serving.
    const ok = await raw(s.url, "/healthz");
    expect(ok.status).toBe(200);
  });
});
