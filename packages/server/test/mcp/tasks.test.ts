/**
 * Task-capable tools: a plain call gets its result without a task being stored
 * or announced; a task-augmented call gets a real task whose result
 * `tasks/result` returns.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolRegistry } from "../../src/mcp/tool-registry.js";

describe("ToolRegistry task tools", () => {
  let client: Client;
  let store: InMemoryTaskStore;
  const announced: unknown[] = [];

  beforeEach(async () => {
    store = new InMemoryTaskStore();
    const server = new Server(
      { name: "t", version: "1" },
      {
        capabilities: {
          tools: {},
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        taskStore: store,
      },
    );
    const tools = new ToolRegistry([], new Set(["echo"]));
    tools.register(
      "echo",
      { description: "echoes", inputSchema: { note: z.string() } },
      async ({ note }) => {
        await new Promise((r) => setTimeout(r, 20));
        return { content: [{ type: "text", text: `got ${note}` }] };
      },
    );
    tools.mount(server);
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: "c", version: "1" });
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void announced.push(n));
    await Promise.all([server.connect(a), client.connect(b)]);
    announced.length = 0;
  });
  afterEach(async () => {
    await client.close();
    store.cleanup();
  });

  it("lists the tool as task-capable (optional)", async () => {
    const { tools } = await client.listTools();
    expect(tools[0]?.execution).toEqual({ taskSupport: "optional" });
  });

  it("answers a plain call with its result, storing and announcing no task", async () => {
    const results = await Promise.all(
      ["a", "b", "c"].map(
        (note) => client.callTool({ name: "echo", arguments: { note } }) as Promise<CallToolResult>,
      ),
    );
    expect(results.map((r) => r.content)).toEqual(
      ["a", "b", "c"].map((n) => [{ type: "text", text: `got ${n}` }]),
    );
    const listed = await client.request(
      { method: "tasks/list", params: {} },
      ListTasksResultSchema,
    );
    expect(listed.tasks).toEqual([]);
    expect(announced).toEqual([]);
  });

  it("gives a task-augmented call a stored task whose result tasks/result returns", async () => {
    const created = await client.request(
      {
        method: "tools/call",
        params: { name: "echo", arguments: { note: "x" }, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    expect(created.task.status).toBe("completed");
    const result = await client.request(
      { method: "tasks/result", params: { taskId: created.task.taskId } },
      CallToolResultSchema,
    );
    expect(result.content).toEqual([{ type: "text", text: "got x" }]);
  });
});
