/**
 * The upstream of the `token-economy` benchmark: a stdio MCP server whose tools
 * return the benchmark's deterministic data sets as JSON text, as many servers do.
 * With `--rows N`, a `sized_report` tool returns N records (the size sweep).
 */
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { DATASETS, sizedReport } from "./token-economy-data.js";

const at = process.argv.indexOf("--rows");
const rows = at > 0 ? Number(process.argv[at + 1]) : undefined;

serveStdio(() => {
  const server = new McpServer({ name: "token-economy-fixture", version: "1.0.0" });
  for (const [name, data] of Object.entries(DATASETS)) {
    const text = JSON.stringify(data());
    server.registerTool(name, { description: `Returns the ${name.replace("_", " ")}.` }, () => ({
      content: [{ type: "text", text }],
    }));
  }
  if (rows !== undefined) {
    const text = JSON.stringify(sizedReport(rows));
    server.registerTool(
      "sized_report",
      { description: `Returns a report of ${rows} items.` },
      () => ({
        content: [{ type: "text", text }],
      }),
    );
  }
  return server;
});
