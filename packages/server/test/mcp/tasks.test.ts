/**
 * The task runtime of `ToolRegistry` on the SDK 2.x low-level `Server`, driven
 * by the SDK 2.x `Client` on a 2025-11-25 connection: task
 * tools are listed `taskSupport: "optional"`; a plain call gets its result and
 * creates no task; a task-augmented call is answered with a working task whose
 * result `tasks/result` waits for; an owner with its maximum of tasks working
 * is refused (`BUSY`); a tool that is no task tool refuses task augmentation.
 */

import { Client } from "@modelcontextprotocol/client";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/core";
import {
  type CallToolResult,
  InMemoryTransport,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from "@modelcontextprotocol/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { TaskTable } from "../../src/mcp/tasks/memory/memory-task-store.js";
import { mountTaskMethods } from "../../src/mcp/tasks/task-methods.js";
import { ToolRegistry } from "../../src/mcp/tool-registry.js";

describe("ToolRegistry task tools", () => {
  let client: Client;
  let table: TaskTable<CallToolResult>;
  /** Releases the echo calls waiting on it. */
  let release: () => void;
  let gate: Promise<void>;

  beforeEach(async () => {
    gate = new Promise((r) => {
      release = r;
    });
    table = new TaskTable<CallToolResult>({ maxRunningPerOwner: 2 });
    const server = new Server(
      { name: "t", version: "1" },
      {
        capabilities: {
          tools: {},
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
      },
    );
    const tools = new ToolRegistry([], new Set(["echo"]));
    tools.register(
      "echo",
      { description: "echoes once released", inputSchema: { note: z.string() } },
      async ({ note }) => {
        await gate;
        return { content: [{ type: "text", text: `got ${note}` }] };
      },
    );
    tools.register("plain", { description: "no task tool", inputSchema: {} }, async () => ({
      content: [],
    }));
    tools.mount(server, { table, ownerOf: () => "owner" });
    mountTaskMethods(server, table, () => "owner");
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: "c", version: "1" });
    await Promise.all([server.connect(a), client.connect(b)]);
  });
  afterEach(async () => {
    release();
    await client.close();
    table.close();
  });

  const asTask = (name: string, note?: string) =>
    client.request(
      {
        method: "tools/call",
        params: { name, arguments: note === undefined ? {} : { note }, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );

  it("lists the task tool as task-capable (optional), and the other not", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.execution])).toEqual([
      ["echo", { taskSupport: "optional" }],
      ["plain", undefined],
    ]);
  });

  it("answers a plain call with its result, creating no task", async () => {
    release();
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
  });

  it("answers a task-augmented call with a working task; tasks/result waits for its result", async () => {
    const created = await asTask("echo", "x");
    expect(created.task.status).toBe("working");
    const pending = client.request(
      { method: "tasks/result", params: { taskId: created.task.taskId } },
      CallToolResultSchema,
    );
    release();
    expect((await pending).content).toEqual([{ type: "text", text: "got x" }]);
  });

  it("refuses a task beyond the owner's working maximum with BUSY, and a task of a no-task tool", async () => {
    await asTask("echo", "1");
    await asTask("echo", "2");
    const refused = await asTask("echo", "3").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProtocolError);
    expect((refused as ProtocolError).code).toBe(ProtocolErrorCode.InvalidRequest);
    expect((refused as ProtocolError).message).toMatch(/BUSY/);
    const noTask = await asTask("plain").catch((e: unknown) => e);
    expect((noTask as ProtocolError).code).toBe(ProtocolErrorCode.MethodNotFound);
    // Once one has ended, the owner may start another.
    release();
    for (const t of await table.list("owner")) await table.settled("owner", t.taskId);
    expect((await asTask("echo", "4")).task.status).toBe("working");
  });
});
