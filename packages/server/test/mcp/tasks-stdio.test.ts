/**
 * Tasks that help, over stdio, on both protocol generations: a task recall
 * is answered with its handle before the search runs while the store takes
 * 6 s (longer than the old 5 s task TTL), the task shows its progress, the
 * result (the offload descriptor) is kept past 5 s after completion,
 * cancelling stops the work and leaves no offload file, and a plain call
 * creates no task. The server is atlatl's stdio serving in its own process
 * (`slow-stdio-server.ts`), over a real SQLite store slowed down.
 *
 * - 2025-11-25: the SDK 1.x client's `experimental.tasks.callToolStream` and
 *   the task methods (`params.task`).
 * - 2026-07-28: raw JSON-RPC lines with the `_meta` envelope and no
 *   `initialize`; the request declares the `io.modelcontextprotocol/tasks`
 *   extension and gets `resultType: "task"` (the SDK 2.x client refuses that
 *   result type, so no client stands in).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { serverRoot } from "../e2e/spawn-server.js";
import { makeMemory } from "../store/fixtures.js";

const MEMORIES = 30;
const FIXTURE = [
  "--conditions=source",
  "--import",
  "tsx",
  join(serverRoot, "test/mcp/slow-stdio-server.ts"),
];
const recallArgs = { query: "beacon", detail: "full" };

/** A database of `MEMORIES` beacons and the environment of a slowed server on it. */
async function fixture(dir: string): Promise<{ env: Record<string, string>; outputDir: string }> {
  const dbPath = join(dir, "atlatl.db");
  const store = await openSqliteStore({ path: dbPath });
  await store.upsertMany(
    Array.from({ length: MEMORIES }, (_, i) =>
      makeMemory({ content: `beacon ${i} ${"signal ".repeat(10)}` }),
    ),
  );
  await store.close();
  const outputDir = join(dir, "offload");
  return {
    outputDir,
    env: {
      ...(process.env as Record<string, string>),
      ATLATL_CONFIG: "",
      ATLATL_STORE__PATH: dbPath,
      ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outputDir,
      ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS: "50",
      ATLATL_TEST_DELAY_MS: "1000",
    },
  };
}

function text(result: CallToolResult | undefined): string {
  const first = result?.content[0];
  return first?.type === "text" ? first.text : "";
}

const files = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe("task recalls over stdio, 2025-11-25 (SDK 1.x client)", () => {
  let dir: string;
  let outputDir: string;
  let client: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "atlatl-tasks-stdio-"));
    const f = await fixture(dir);
    outputDir = f.outputDir;
    client = new Client({ name: "tasks-stdio", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: FIXTURE,
        env: f.env,
        cwd: serverRoot,
        stderr: "ignore",
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const getTask = (taskId: string) =>
    client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema);

  it("creates no task for a plain call", async () => {
    const plain = (await client.callTool({
      name: "recall_memories",
      arguments: recallArgs,
    })) as CallToolResult;
    expect(JSON.parse(text(plain)).offloaded).toBe(true);
    const listed = await client.request(
      { method: "tasks/list", params: {} },
      ListTasksResultSchema,
    );
    expect(listed.tasks).toEqual([]);
    for (const name of files(outputDir)) rmSync(join(outputDir, name));
  }, 20_000);

  it("streams the task: created at once, working with progress, completed with the descriptor, kept past 5 s", async () => {
    const started = performance.now();
    let createdAfter: number | undefined;
    const seen: { type: string; status?: string; statusMessage?: string }[] = [];
    let result: CallToolResult | undefined;
    let taskId = "";
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "recall_memories", arguments: recallArgs },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      if (message.type === "taskCreated") {
        createdAfter = performance.now() - started;
        taskId = message.task.taskId;
      }
      if (message.type === "result") result = message.result as CallToolResult;
      if (message.type === "error") throw message.error;
      const task = "task" in message ? message.task : undefined;
      seen.push({ type: message.type, status: task?.status, statusMessage: task?.statusMessage });
    }
    // The handle comes back before the search runs (a bound on this one call, not a benchmark).
    expect(createdAfter).toBeLessThan(100);
    expect(seen[0]).toMatchObject({ type: "taskCreated", status: "working" });
    expect(seen).toContainEqual({
      type: "taskStatus",
      status: "working",
      statusMessage: "querying the memory store",
    });
    expect(seen.at(-2)).toMatchObject({ type: "taskStatus", status: "completed" });
    const descriptor = JSON.parse(text(result));
    expect(descriptor.offloaded).toBe(true);
    expect(existsSync(descriptor.file_path)).toBe(true);

    const done = await getTask(taskId);
    expect(Date.parse(done.lastUpdatedAt) - Date.parse(done.createdAt)).toBeGreaterThan(5_000);
    await sleep(5_100);
    expect((await getTask(taskId)).status).toBe("completed");
    const again = await client.request(
      { method: "tasks/result", params: { taskId } },
      CallToolResultSchema,
    );
    expect(JSON.parse(text(again as CallToolResult))).toEqual(descriptor);
  }, 30_000);

  it("stops the work on tasks/cancel and leaves no offload file", async () => {
    const before = files(outputDir);
    const { task } = await client.request(
      {
        method: "tools/call",
        params: { name: "recall_memories", arguments: recallArgs, task: {} },
      },
      CreateTaskResultSchema,
    );
    let current: Task = task;
    while (current.statusMessage !== "querying the memory store") {
      await sleep(50);
      current = await getTask(task.taskId);
    }
    const cancelled = await client.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
    expect(cancelled.status).toBe("cancelled");
    // Past the time the whole recall would have taken: nothing was written.
    await sleep(6_500);
    expect(files(outputDir)).toEqual(before);
    expect((await getTask(task.taskId)).status).toBe("cancelled");
  }, 30_000);
});

/** Raw JSON-RPC lines to a server process, answers matched by id. */
class Lines {
  private nextId = 1;
  private readonly waiting = new Map<number, (message: Record<string, unknown>) => void>();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as { id?: number };
      if (message.id !== undefined) this.waiting.get(message.id)?.(message);
    });
  }

  /** Send a request with the 2026-07-28 envelope; its response. */
  request(
    method: string,
    params: Record<string, unknown>,
    capabilities: Record<string, unknown> = {},
  ): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
    const id = this.nextId++;
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": capabilities,
      "io.modelcontextprotocol/clientInfo": { name: "raw-lines", version: "1.0.0" },
    };
    const answered = new Promise<Record<string, unknown>>((resolve) =>
      this.waiting.set(id, resolve),
    );
    this.child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } })}\n`,
    );
    return answered;
  }
}

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

describe("task recalls over stdio, 2026-07-28 (raw JSON-RPC lines, the tasks extension)", () => {
  let dir: string;
  let outputDir: string;
  let child: ChildProcessWithoutNullStreams;
  let lines: Lines;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "atlatl-tasks-stdio-modern-"));
    const f = await fixture(dir);
    outputDir = f.outputDir;
    child = spawn(process.execPath, FIXTURE, { cwd: serverRoot, env: f.env });
    lines = new Lines(child);
    // The opening request, without initialize: the connection is 2026-07-28 from here on.
    const { result } = await lines.request("tools/list", {});
    expect((result?.tools as unknown[] | undefined)?.length).toBeGreaterThan(0);
  }, 60_000);

  afterAll(() => {
    child?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const getTask = async (taskId: string) =>
    (await lines.request("tasks/get", { taskId }, TASKS)).result as Record<string, unknown>;

  it("answers a plain call (no tasks extension) with its result", async () => {
    const { result } = await lines.request("tools/call", {
      name: "recall_memories",
      arguments: recallArgs,
    });
    expect(result?.resultType).toBe("complete");
    expect(JSON.parse(text(result as unknown as CallToolResult)).offloaded).toBe(true);
    for (const name of files(outputDir)) rmSync(join(outputDir, name));
  }, 20_000);

  it("answers with the task at once, shows progress, completes with the descriptor kept past 5 s", async () => {
    const started = performance.now();
    const { result: created } = await lines.request(
      "tools/call",
      { name: "recall_memories", arguments: recallArgs },
      TASKS,
    );
    // The handle comes back before the search runs (a bound on this one call, not a benchmark).
    expect(performance.now() - started).toBeLessThan(100);
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      taskId: expect.any(String),
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number),
    });
    const taskId = created?.taskId as string;

    let task = await getTask(taskId);
    while (task.statusMessage !== "querying the memory store" && task.status === "working") {
      await sleep(50);
      task = await getTask(taskId);
    }
    expect(task).toMatchObject({ resultType: "complete", status: "working" });
    while (task.status === "working") {
      await sleep(200);
      task = await getTask(taskId);
    }
    expect(task.status).toBe("completed");
    const descriptor = JSON.parse(text(task.result as CallToolResult));
    expect(descriptor.offloaded).toBe(true);
    expect(existsSync(descriptor.file_path)).toBe(true);
    expect(
      Date.parse(task.lastUpdatedAt as string) - Date.parse(task.createdAt as string),
    ).toBeGreaterThan(5_000);

    await sleep(5_100);
    const later = await getTask(taskId);
    expect(later.status).toBe("completed");
    expect(JSON.parse(text(later.result as CallToolResult))).toEqual(descriptor);
  }, 30_000);

  it("stops the work on tasks/cancel (acknowledged empty) and leaves no offload file", async () => {
    const before = files(outputDir);
    const { result: created } = await lines.request(
      "tools/call",
      { name: "recall_memories", arguments: recallArgs },
      TASKS,
    );
    const taskId = created?.taskId as string;
    let task = await getTask(taskId);
    while (task.statusMessage !== "querying the memory store") {
      await sleep(50);
      task = await getTask(taskId);
    }
    const ack = await lines.request("tasks/cancel", { taskId }, TASKS);
    expect(ack.result).toEqual(expect.objectContaining({ resultType: "complete" }));
    expect(
      Object.keys(ack.result ?? {}).filter((k) => k !== "_meta" && k !== "resultType"),
    ).toEqual([]);
    expect((await getTask(taskId)).status).toBe("cancelled");
    await sleep(6_500);
    expect(files(outputDir)).toEqual(before);
  }, 30_000);

  it("answers an unknown task id with not found", async () => {
    const { error } = await lines.request("tasks/get", { taskId: "no-such-task" }, TASKS);
    expect(error?.code).toBe(-32602);
  });
});
