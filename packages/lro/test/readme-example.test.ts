/**
 * The README's "Using the engine in your own MCP server" example, run for real:
 * if this breaks, the README is wrong.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, expect, it } from "vitest";
import { z } from "zod";
import { registerLroExtract, registerOffloadResources, withOffload } from "../src/mcp.js";
import { loadOffloadConfig, Offloader } from "../src/node.js";

const dir = mkdtempSync(join(tmpdir(), "lro-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const db = {
  async orders(customer: string) {
    return Array.from({ length: 400 }, (_, i) => ({
      id: `ord-${i}`,
      customer,
      total: (i * 37) % 500,
      items: ["widget", "gadget"].slice(0, (i % 2) + 1),
    }));
  },
};

it("offloads a large result of a plain MCP tool and extracts from it without a shell", async () => {
  const offloader = new Offloader({
    config: loadOffloadConfig({ env: { ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: dir } }),
  });
  const offload = withOffload({ offloader, resourceLinks: true });
  const server = new McpServer({ name: "my-server", version: "1.0.0" });

  server.registerTool(
    "find_orders",
    { inputSchema: { customer: z.string() } },
    offload(async ({ customer }) => ({
      operation: "search",
      query: customer,
      detail: "full",
      records: await db.orders(customer),
    })),
  );
  const extract = registerLroExtract(server, { offloader });
  registerOffloadResources(server, { config: offloader.config });

  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "readme", version: "1.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    const result = (await client.callTool({
      name: "find_orders",
      arguments: { customer: "acme" },
    })) as CallToolResult;
    const first = result.content[0];
    const descriptor = JSON.parse(first?.type === "text" ? first.text : "{}");
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.summary.count).toBe(400);
    const lines = readFileSync(descriptor.file_path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(401);

    const big = (await client.callTool({
      name: "lro_extract",
      arguments: {
        file_path: descriptor.file_path,
        query: "select(.total >= $min) | .id",
        params: { min: 490 },
      },
    })) as CallToolResult;
    expect(big.isError).toBeFalsy();
    const out = big.content[0];
    const ids = (out?.type === "text" ? out.text : "")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const expected = (await db.orders("acme")).filter((o) => o.total >= 490).map((o) => o.id);
    expect(ids).toEqual(expected);
  } finally {
    await client.close();
    await extract.close();
  }
});
