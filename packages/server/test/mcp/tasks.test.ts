/**
 * Task-capable tools: a plain call gets its result without a task being stored
 * or announced; a task-augmented call gets a real task whose result
 * `tasks/result` returns.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AtlatlTaskStore, optionalTaskHandler } from "../../src/mcp/tasks.js";

describe("optionalTaskHandler", () => {
  let client: Client;
  let store: AtlatlTaskStore;
  const announced: unknown[] = [];

  beforeEach(async () => {
    store = new AtlatlTaskStore();
    const server = new McpServer(
      { name: "t", version: "1" },
      {
        capabilities: {
          tools: {},
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        taskStore: store,
      },
    );
    server.experimental.tasks.registerToolTask(
      "echo",
      {
        description: "echoes",
        inputSchema: { note: z.string() },
        execution: { taskSupport: "optional" },
      },
      optionalTaskHandler(async (args) => {
        await new Promise((r) => setTimeout(r, 20));
        return { content: [{ type: "text", text: `got ${(args as { note: string }).note}` }] };
      }, store),
    );
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
