/**
 * Task-capable tools answer plain calls through a short-lived task: a call that
 * runs longer than that task's TTL must still get its result.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { taskOptional } from "../../src/mcp/tasks.js";

const TTL_MS = 50;

describe("taskOptional", () => {
  it("answers a plain call that runs longer than the plain-call task TTL", async () => {
    const server = new McpServer(
      { name: "t", version: "1" },
      {
        capabilities: {
          tools: {},
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        taskStore: new InMemoryTaskStore(),
      },
    );
    const tool = server.registerTool(
      "slow",
      { description: "sleeps", inputSchema: { note: z.string().optional() } },
      async () => {
        await new Promise((r) => setTimeout(r, 4 * TTL_MS));
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    taskOptional(tool, () => false, TTL_MS);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "c", version: "1" });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const result = (await client.callTool({ name: "slow", arguments: {} })) as CallToolResult;
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.content).toEqual([{ type: "text", text: "done" }]);
    } finally {
      await client.close();
    }
  });
});
