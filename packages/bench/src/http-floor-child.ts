/**
 * Floors for the server-http benchmark, run as their own process (like the
 * server under test). `mcp` is a bare SDK 2.x server with one tool returning
 * a constant, served both MCP generations the way atlatl serves them: a
 * 2026-07-28 request (no session) through `createMcpHandler` (a fresh
 * `McpServer` per request), a 2025-11-25 client through a sessionful
 * `WebStandardStreamableHTTPServerTransport` (`isLegacyRequest` routes its
 * `initialize`; its `Mcp-Session-Id` routes the rest), on Hono. `hono` is a
 * bare Hono route returning a constant (and, given a file, `/page` returning
 * its bytes). Prints `PORT <n>` once listening on 127.0.0.1.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { Hono } from "hono";

/** The floor's server: one tool returning a constant as small as an empty page. */
function floorServer(): McpServer {
  const server = new McpServer({ name: "floor", version: "1.0.0" });
  server.registerTool("constant", { description: "returns a constant" }, async () => ({
    content: [{ type: "text", text: '{"count":0,"records":[]}' }],
  }));
  return server;
}

const kind = process.argv[2];
const web = new Hono();
if (kind === "hono") {
  const body = { items: [], limit: 50, offset: 0, next_offset: null };
  web.get("/v1/memories", (c) => c.json(body));
  // A peer, not the floor: a constant as large as the real page (its bytes
  // from the file argv[3] names), to show what moving those bytes costs.
  const page = process.argv[3] ? readFileSync(process.argv[3]) : undefined;
  if (page) web.get("/page", (c) => c.body(page, 200, { "content-type": "application/json" }));
} else {
  const modern = createMcpHandler(floorServer, { legacy: "reject" });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  web.all("/mcp", async (c) => {
    const request = c.req.raw;
    const id = c.req.header("mcp-session-id");
    const known = id ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(request);
    if (!(await isLegacyRequest(request))) return modern.fetch(request);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    await floorServer().connect(transport);
    return transport.handleRequest(request);
  });
}
const server = serve({ fetch: web.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) => {
  process.stdout.write(`PORT ${info.port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
