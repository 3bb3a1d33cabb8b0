/**
 * The upstream of the `token-economy` benchmark: a stdio MCP server whose tools
 * return the benchmark's deterministic data sets as JSON text, as many servers do.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { DATASETS } from "./token-economy-data.js";

serveStdio(() => {
  const server = new McpServer({ name: "token-economy-fixture", version: "1.0.0" });
  for (const [name, data] of Object.entries(DATASETS)) {
    const text = JSON.stringify(data());
    server.registerTool(name, { description: `Returns the ${name.replace("_", " ")}.` }, () => ({
      content: [{ type: "text", text }],
    }));
  }
  return server;
});
