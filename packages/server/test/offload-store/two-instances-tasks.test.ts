/**
 * MCP Tasks across instances (issue 22): two real `atlatl serve --http`
 * processes on one PostgreSQL database with the shared offload store. The
 * recall is held in PostgreSQL (the test locks the `memories` table) so the
 * task is still working while the other instance is asked about it: a
 * 2026-07-28 task created on A is read on B at once and polled there to
 * `completed` with its descriptor, whose file B extracts; A's 2025-11-25
 * session on B lists it and gets its result; a cancel on B stops A's work
 * (cancelled on both, no offload file); another token gets not-found on
 * both. Declared when `ATLATL_TEST_PG_URL` is set or CI requires it (then
 * they fail without it).
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  CallToolResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, PG_ENABLED, type StoreTarget } from "../backends/backends.js";
import { firstIds } from "../http/offload-file.js";
import { type ModernResponse, modern } from "../http/raw-request.js";
import { type HttpServer, startHttpServer } from "../http/spawn-http.js";

const A = "tasks-scale-token-a";
const B = "tasks-scale-token-b";
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
type Task = Record<string, unknown> & { taskId: string; status: string };

describe.runIf(PG_ENABLED)("MCP Tasks across two instances on one PostgreSQL", () => {
  let target: StoreTarget;
  let a: HttpServer;
  let b: HttpServer;
  let admin: pg.Client;
  beforeAll(async () => {
    const postgres = BACKENDS.find((x) => x.name === "postgres");
    if (!postgres) throw new Error("the postgres backend is not declared");
    target = await postgres.serverConfig("");
    const start = (seed?: number) =>
      startHttpServer({
        tokens: `${A},${B}`,
        store: target,
        env: { ATLATL_OFFLOAD_STORE__BACKEND: "postgres" },
        ...(seed ? { seed } : {}),
      });
    a = await start(400);
    b = await start();
    admin = new pg.Client({ connectionString: target.config.url as string });
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    for (const s of [a, b]) if (s && s.child.exitCode === null) await s.stop();
    await target?.cleanup();
  });

  /** Hold every read of the memories until the returned release is called. */
  const holdMemories = async () => {
    await admin.query("BEGIN");
    await admin.query("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE");
    return () => admin.query("COMMIT");
  };
  const recallTask = async (s: HttpServer): Promise<Task> => {
    const r = await modern(
      s.url,
      "tools/call",
      { name: "recall_memories", arguments: { query: "", limit: 300, detail: "full" } },
      { token: A, capabilities: TASKS },
    );
    expect(r.status, r.body).toBe(200);
    expect(r.message.result?.resultType, r.body).toBe("task");
    return r.message.result as Task;
  };
  const ask = (s: HttpServer, method: string, taskId: string, token = A) =>
    modern(s.url, method, { taskId }, { token, capabilities: TASKS });
  const getTask = async (s: HttpServer, taskId: string): Promise<Task> => {
    const r: ModernResponse = await ask(s, "tasks/get", taskId);
    expect(r.message.error, r.body).toBeUndefined();
    return r.message.result as Task;
  };
  const notFoundForB = async (taskId: string) => {
    for (const s of [a, b]) {
      const r = await ask(s, "tasks/get", taskId, B);
      expect(r.message.error?.code, r.body).toBe(-32602);
      const c = await ask(s, "tasks/cancel", taskId, B);
      expect(c.message.error?.code, c.body).toBe(-32602);
    }
  };

  it("a task created on A is read on B at once, polled there to completed with its descriptor, whose file B extracts; A's 2025 session on B lists it and gets its result", async () => {
    const release = await holdMemories();
    let task: Task;
    try {
      task = await recallTask(a);
      expect(task.status).toBe("working");
      // Durable before the handle was returned: B knows it while A's recall waits.
      expect((await getTask(b, task.taskId)).status).toBe("working");
      await notFoundForB(task.taskId);
      const session = await b.connect({ token: A });
      const listed = await session.request(
        { method: "tasks/list", params: {} },
        ListTasksResultSchema,
      );
      expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);
    } finally {
      await release();
    }
    let last = task;
    const end = Date.now() + 30_000;
    while (last.status === "working" && Date.now() < end) {
      await sleep(200);
      last = await getTask(b, task.taskId);
    }
    expect(last.status).toBe("completed");
    const result = last.result as { content: { type: string; text?: string }[] };
    const descriptor = JSON.parse(result.content[0]?.text as string);
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.file_path.startsWith(a.outputDir)).toBe(true);

    const extracted = await modern(
      b.url,
      "tools/call",
      {
        name: "lro_extract",
        arguments: { file_path: descriptor.file_path, query: ".id", limit: 3 },
      },
      { token: A },
    );
    expect(extracted.message.result?.isError, extracted.body).toBeFalsy();
    expect(extracted.message.result?.content?.[0]?.text).toBe(firstIds(descriptor.file_path, 3));

    // The 2025-11-25 forms on B: tasks/get and tasks/result of A's task.
    const session = await b.connect({ token: A });
    const legacy = await session.request(
      { method: "tasks/get", params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    expect(legacy).toMatchObject({ taskId: task.taskId, status: "completed" });
    const payload = await session.request(
      { method: "tasks/result", params: { taskId: task.taskId } },
      CallToolResultSchema,
    );
    expect(JSON.parse((payload.content[0] as { text: string }).text).file_path).toBe(
      descriptor.file_path,
    );
    await notFoundForB(task.taskId);
  }, 120_000);

  it("a cancel on B stops the work on A: cancelled on both, no offload file; another token cannot cancel it", async () => {
    const files = async () =>
      Number((await admin.query("SELECT count(*) AS n FROM offload_files")).rows[0].n);
    const before = await files();
    // A's events on its stderr: a recall that ran to its end would announce its file.
    const created = () => (a.stderr().match(/"OffloadCreated"/g) ?? []).length;
    const createdBefore = created();
    expect(createdBefore).toBeGreaterThan(0); // the first test's offload on A
    const release = await holdMemories();
    let task: Task;
    try {
      task = await recallTask(a);
      await notFoundForB(task.taskId);
      const cancel = await ask(b, "tasks/cancel", task.taskId);
      expect(cancel.message.error, cancel.body).toBeUndefined();
      for (const s of [a, b]) expect((await getTask(s, task.taskId)).status).toBe("cancelled");
      // A notices at its next poll of the row (1 s) while its recall still waits.
      await sleep(1500);
    } finally {
      await release();
    }
    // A's recall, released, finds its signal aborted: no file is published.
    await sleep(3000);
    expect(await files()).toBe(before);
    expect(created()).toBe(createdBefore);
    for (const s of [a, b]) {
      const t = await getTask(s, task.taskId);
      expect(t.status).toBe("cancelled");
      expect(t.result).toBeUndefined();
    }
  }, 120_000);
});
