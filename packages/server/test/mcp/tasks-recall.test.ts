/**
 * Tasks that help (2025-11-25 form, the SDK 2.x client on a 2025-11-25
 * connection; the SDK 1.x client's `callToolStream` over stdio is
 * `tasks-stdio.test.ts`): a task-augmented
 * `recall_memories` / `inject_context` is answered with a working task before
 * the search runs; `tasks/get` shows how far it got, `tasks/result` waits for
 * and returns the result (the offload descriptor), kept for its TTL counted
 * from completion; `tasks/cancel` stops the read and leaves no file; a plain
 * call creates no task; another session's task is not found. The store is
 * the real SQLite store, slowed down: it hands its hits over in batches with
 * a pause before each, so a recall takes longer than the old 5 s task TTL.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { LroEvents } from "@atlatl/lro";
import { nodeOffloadFs, Offloader, type OffloadFs } from "@atlatl/lro/node";
import { Client } from "@modelcontextprotocol/client";
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/core";
import {
  type CallToolResult,
  InMemoryTransport,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Task,
} from "@modelcontextprotocol/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AtlatlServer, createAtlatlServer } from "../../src/mcp/create-server.js";
import { TaskTable } from "../../src/mcp/tasks/memory/memory-task-store.js";
import { createServices } from "../../src/services/create-services.js";
import type { MemoryStore } from "../../src/store/store.js";
import { BACKENDS } from "../backends/backends.js";
import { testClock } from "../services/helpers.js";
import { makeMemory } from "../store/fixtures.js";

const MEMORIES = 30;

/** How the slowed store hands its hits over, and what it did. */
interface Pace {
  /** Pause before each batch of hits. */
  delayMs: number;
  batch: number;
  /** Hits handed over by the last whole-set read. */
  yielded: number;
  /** True once the last whole-set read was closed (finished or left). */
  closed: boolean;
}

async function* paced<T>(hits: AsyncIterable<T>, pace: Pace): AsyncGenerator<T> {
  pace.yielded = 0;
  pace.closed = false;
  try {
    let i = 0;
    for await (const hit of hits) {
      if (i++ % pace.batch === 0 && pace.delayMs > 0) await sleep(pace.delayMs);
      pace.yielded++;
      yield hit;
    }
  } finally {
    pace.closed = true;
  }
}

/** `store` whose whole-set recall (`rankAll`) is paced by `pace`. */
function slowed(store: MemoryStore, pace: Pace): MemoryStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === "rankAll") {
        return (query: Parameters<MemoryStore["rankAll"]>[0]) => paced(target.rankAll(query), pace);
      }
      const value = Reflect.get(target, key, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** An MCP error's code, or what happened instead. */
async function errorCode(promise: Promise<unknown>): Promise<number | string> {
  try {
    await promise;
    return "resolved";
  } catch (err) {
    return err instanceof ProtocolError ? err.code : String(err);
  }
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe("task-augmented recall_memories and inject_context", () => {
  let raw: MemoryStore;
  let pace: Pace;
  let dir: string;
  let table: TaskTable<CallToolResult>;
  const servers: AtlatlServer[] = [];
  const clients: Client[] = [];

  /** A session: a server on the shared store and task table, and its client. */
  async function session(owner: string, fs: OffloadFs = nodeOffloadFs): Promise<Client> {
    const offloader = new Offloader({
      config: { enabled: true, thresholdTokens: 50, ttlSeconds: 3600, outputDir: dir },
      events: new LroEvents({ sink: null }),
      fs,
    });
    const services = createServices(slowed(raw, pace), { now: testClock().now });
    const atlatl = createAtlatlServer({ services, offloader, tasks: { table, owner } });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "tasks-test", version: "1.0.0" });
    await Promise.all([atlatl.server.connect(a), client.connect(b)]);
    servers.push(atlatl);
    clients.push(client);
    return client;
  }

  beforeEach(async () => {
    raw = await (BACKENDS[0] as (typeof BACKENDS)[number]).open();
    await raw.upsertMany(
      Array.from({ length: MEMORIES }, (_, i) =>
        makeMemory({ content: `beacon ${i} ${"signal ".repeat(10)}` }),
      ),
    );
    pace = { delayMs: 0, batch: 5, yielded: 0, closed: true };
    dir = mkdtempSync(join(tmpdir(), "atlatl-tasks-"));
    table = new TaskTable<CallToolResult>();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    for (const s of servers.splice(0)) await s.close();
    table.close();
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const recallArgs = { query: "beacon", detail: "full" };

  function startTask(client: Client, ttl?: number, name = "recall_memories", args = recallArgs) {
    return client.request(
      {
        method: "tools/call",
        params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } },
      },
      CreateTaskResultSchema,
    );
  }

  const getTask = (client: Client, taskId: string) =>
    client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema);
  const taskResult = (client: Client, taskId: string) =>
    client.request({ method: "tasks/result", params: { taskId } }, CallToolResultSchema);
  const listTasks = (client: Client) =>
    client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema);
  const cancelTask = (client: Client, taskId: string) =>
    client.request({ method: "tasks/cancel", params: { taskId } }, CancelTaskResultSchema);

  /** Poll `tasks/get` until `done` holds (or fail after `withinMs`). */
  async function until(
    client: Client,
    taskId: string,
    done: (t: Task) => boolean,
    withinMs = 15_000,
  ): Promise<Task> {
    const end = Date.now() + withinMs;
    for (;;) {
      const task = await getTask(client, taskId);
      if (done(task)) return task;
      if (Date.now() > end) throw new Error(`task never got there: ${JSON.stringify(task)}`);
      await sleep(50);
    }
  }

  it("answers with a working task at once, shows progress, and keeps the descriptor past the old 5 s TTL", async () => {
    pace.delayMs = 1000; // 6 batches of 5 hits: the recall takes 6 s
    const client = await session("session-a");
    const started = performance.now();
    const { task } = await startTask(client, 60_000);
    // The handle comes back before the search runs (a bound on this one call, not a benchmark).
    expect(performance.now() - started).toBeLessThan(100);
    expect(task.status).toBe("working");
    expect(task.ttl).toBe(60_000);

    const working = await until(client, task.taskId, (t) => t.statusMessage !== "queued");
    expect(working.status).toBe("working");
    expect(working.statusMessage).toBe("querying the memory store");

    // tasks/result waits for the end, then gives what the plain call would have.
    const result = await taskResult(client, task.taskId);
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
    const descriptor = JSON.parse(text(result));
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.file_path.startsWith(dir)).toBe(true);
    expect(existsSync(descriptor.file_path)).toBe(true);
    expect(result.content.some((c) => c.type === "resource_link")).toBe(true);
    expect(pace.yielded).toBe(MEMORIES);

    const done = await getTask(client, task.taskId);
    expect(done.status).toBe("completed");
    expect(Date.parse(done.lastUpdatedAt) - Date.parse(done.createdAt)).toBeGreaterThan(5_000);

    // Still there more than 5 s after completion (the TTL counts from there).
    await sleep(5_100);
    expect((await getTask(client, task.taskId)).status).toBe("completed");
    expect(JSON.parse(text(await taskResult(client, task.taskId)))).toEqual(descriptor);
    expect((await listTasks(client)).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
  }, 30_000);

  it("keeps a finished task for its TTL counted from completion, then forgets it", async () => {
    pace.delayMs = 500; // 3 s of work, longer than the task's 1 s TTL
    const client = await session("session-a");
    const { task } = await startTask(client, 1000);
    expect(task.status).toBe("working");
    const done = await until(client, task.taskId, (t) => t.status !== "working");
    expect(done.status).toBe("completed");
    // It worked longer than its TTL and was kept: a working task never expires.
    expect(Date.parse(done.lastUpdatedAt) - Date.parse(done.createdAt)).toBeGreaterThan(1000);
    expect(JSON.parse(text(await taskResult(client, task.taskId))).offloaded).toBe(true);
    // Finished tasks cannot be cancelled.
    expect(await errorCode(cancelTask(client, task.taskId))).toBe(ProtocolErrorCode.InvalidParams);
    await sleep(1_200);
    expect(await errorCode(getTask(client, task.taskId))).toBe(ProtocolErrorCode.InvalidParams);
    expect(await errorCode(taskResult(client, task.taskId))).toBe(ProtocolErrorCode.InvalidParams);
    expect((await listTasks(client)).tasks).toEqual([]);
  }, 20_000);

  it("stops the read on tasks/cancel and leaves no offload file", async () => {
    pace.delayMs = 1000;
    const client = await session("session-a");
    const { task } = await startTask(client);
    await until(client, task.taskId, (t) => t.statusMessage === "querying the memory store");
    const cancelled = await cancelTask(client, task.taskId);
    expect(cancelled.status).toBe("cancelled");
    // The read is left at the next batch the store hands over, not read to its end.
    const end = Date.now() + 3_000;
    while (!pace.closed && Date.now() < end) await sleep(20);
    expect(pace.closed).toBe(true);
    expect(pace.yielded).toBeLessThan(MEMORIES);
    await sleep(200);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    const after = await getTask(client, task.taskId);
    expect(after.status).toBe("cancelled");
    expect(await errorCode(taskResult(client, task.taskId))).toBe(ProtocolErrorCode.InvalidParams);
  }, 20_000);

  it("removes the offload file a task cancelled while it was being written still wrote", async () => {
    // The file's final rename waits until the task is cancelled.
    let renaming: () => void = () => {};
    const renameStarted = new Promise<void>((r) => {
      renaming = r;
    });
    let cancelled: () => void = () => {};
    const afterCancel = new Promise<void>((r) => {
      cancelled = r;
    });
    const fs: OffloadFs = {
      ...nodeOffloadFs,
      async rename(from, to) {
        renaming();
        await afterCancel;
        await nodeOffloadFs.rename(from, to);
      },
    };
    // Large enough (over 1 MiB) to be written asynchronously, through `rename`.
    await raw.upsertMany(
      Array.from({ length: 30 }, (_, i) =>
        makeMemory({ content: `beacon large ${i} ${"x".repeat(50_000)}` }),
      ),
    );
    const client = await session("session-a", fs);
    const { task } = await startTask(client);
    await renameStarted;
    expect((await cancelTask(client, task.taskId)).status).toBe("cancelled");
    cancelled();
    // The file appears, then the cancelled task's work removes it.
    const end = Date.now() + 3_000;
    let seen: string[] = [];
    while (Date.now() < end) {
      seen = readdirSync(dir);
      if (seen.length === 0 && (await table.get("session-a", task.taskId))?.status === "cancelled")
        break;
      await sleep(20);
    }
    expect(seen).toEqual([]);
    expect(pace.yielded).toBe(MEMORIES + 30);
  });

  it("runs inject_context as a task too, and creates no task for plain calls", async () => {
    const client = await session("session-a");
    const plain = (await client.callTool({
      name: "recall_memories",
      arguments: recallArgs,
    })) as CallToolResult;
    expect(JSON.parse(text(plain)).offloaded).toBe(true);
    await client.callTool({ name: "inject_context", arguments: { query: "beacon" } });
    expect((await listTasks(client)).tasks).toEqual([]);

    const { task } = await startTask(client, undefined, "inject_context", {
      query: "beacon",
      limit: 3,
      budget_tokens: 4000,
    } as never);
    expect(task.status).toBe("working");
    const { summary } = JSON.parse(text(await taskResult(client, task.taskId)));
    expect(summary).toMatchObject({ operation: "inject", count: 3, detail: "medium" });
    expect((await getTask(client, task.taskId)).status).toBe("completed");
    expect((await listTasks(client)).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
  }, 20_000);

  it("fails the task of a call with a bad argument, with the tool error as its result", async () => {
    const client = await session("session-a");
    const { task } = await startTask(client, undefined, "recall_memories", {
      query: "beacon",
      filter: { namespace: "x" },
    } as never);
    const result = await taskResult(client, task.taskId);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^INVALID_ARGUMENT \(filter\)/);
    const failed = await getTask(client, task.taskId);
    expect(failed.status).toBe("failed");
    expect(failed.statusMessage).toMatch(/^INVALID_ARGUMENT/);
  });

  it("does not show one session's task to another", async () => {
    pace.delayMs = 1000;
    const a = await session("session-a");
    const b = await session("session-b");
    const { task } = await startTask(a);
    expect(await errorCode(getTask(b, task.taskId))).toBe(ProtocolErrorCode.InvalidParams);
    expect(await errorCode(taskResult(b, task.taskId))).toBe(ProtocolErrorCode.InvalidParams);
    expect(await errorCode(cancelTask(b, task.taskId))).toBe(ProtocolErrorCode.InvalidParams);
    expect((await listTasks(b)).tasks).toEqual([]);
    // Untouched by b's attempts: still a's, still working.
    expect((await getTask(a, task.taskId)).status).toBe("working");
    expect((await listTasks(a)).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    expect((await cancelTask(a, task.taskId)).status).toBe("cancelled");
  }, 20_000);
});
