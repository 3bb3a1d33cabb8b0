/**
 * Floors for the server-http benchmark, run as their own process (like the
 * server under test): `mcp` is a minimal SDK McpServer over the same Streamable
 * HTTP transport and Hono, one session, one tool returning a constant; `hono` is
 * a bare Hono route returning a constant (and, given a file, `/page` returning
 * its bytes). Prints `PORT <n>` once listening on
 * 127.0.0.1.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";

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
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  web.all("/mcp", async (c) => {
    const id = c.req.header("mcp-session-id");
    const known = id ? transports.get(id) : undefined;
    if (known) return known.handleRequest(c.req.raw);
    const server = new McpServer({ name: "floor", version: "1.0.0" });
    server.registerTool("constant", { description: "returns a constant" }, async () => ({
      content: [{ type: "text", text: '{"count":0,"records":[]}' }],
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => void transports.set(sid, transport),
    });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });
}
const server = serve({ fetch: web.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) => {
  process.stdout.write(`PORT ${info.port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
