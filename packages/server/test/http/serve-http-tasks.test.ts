/**
 * Tasks that help, over raw HTTP at 2026-07-28 (issue 21, "Done when": the
 * tasks extension `io.modelcontextprotocol/tasks`): a recall whose request
 * declares the extension is answered with its task handle before the search
 * runs, while the store takes seconds; `tasks/get` (its own independent
 * request, `Mcp-Name` the task id) polls it to `completed` with the offload
 * descriptor; another token's `tasks/get` of the same id is not found; a
 * request without the extension gets its result directly; the token's
 * 2025-11-25 session reads the same task. The HTTP server is
 * the real one, in this process so that its store can be slowed down: the
 * SQLite store hands its hits over in batches with a pause before each.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { GetTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, openApp } from "../../src/app/open-app.js";
import { loadHttpConfig } from "../../src/http/http-config.js";
import { type RunningHttpServer, startHttpServer } from "../../src/http/start-http.js";
import { createServices } from "../../src/services/create-services.js";
import { slowed } from "../mcp/slowed-store.js";
import { makeMemory } from "../store/fixtures.js";
import { type ModernResponse, modern } from "./raw-request.js";

const A = "tasks-token-a";
const B = "tasks-token-b";
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const MEMORIES = 30;
/** Pause before each batch of 5 hits: 6 batches, a recall of 6 s (longer than the old 5 s task TTL). */
const DELAY_MS = 1000;

const text = (r: ModernResponse) => r.message.result?.content?.[0]?.text as string;

describe("atlatl serve --http: a task-augmented recall over raw HTTP (2026-07-28)", () => {
  let dir: string;
  let app: App;
  let server: RunningHttpServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "atlatl-http-tasks-"));
    app = await openApp({
      env: { ATLATL_CONFIG: "" },
      dbPath: join(dir, "atlatl.db"),
      offload: { outputDir: join(dir, "offload"), thresholdTokens: 50 },
      logEvents: false,
    });
    await app.store.upsertMany(
      Array.from({ length: MEMORIES }, (_, i) =>
        makeMemory({ content: `beacon ${i} ${"signal ".repeat(10)}` }),
      ),
    );
    const slow: App = { ...app, services: createServices(slowed(app.store, DELAY_MS)) };
    server = await startHttpServer(
      slow,
      loadHttpConfig(null, { ATLATL_SERVER__HTTP__TOKENS: `${A},${B}` }, { port: 0 }),
    );
    // A running server: the first call of the process is not the one timed.
    const warm = await modern(
      server.url,
      "tools/call",
      { name: "list_memories", arguments: { limit: 1 } },
      { token: A },
    );
    expect(warm.status, warm.body).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const recall = (token: string, capabilities: Record<string, unknown>) =>
    modern(
      server.url,
      "tools/call",
      { name: "recall_memories", arguments: { query: "beacon", detail: "full" } },
      { token, capabilities },
    );
  const getTask = (token: string, taskId: string) =>
    modern(server.url, "tasks/get", { taskId }, { token, capabilities: TASKS });

  it("answers with the task handle at once while the search takes seconds; tasks/get polls it to completed; another token gets not-found", async () => {
    const started = performance.now();
    const created = await recall(A, TASKS);
    // The handle comes back before the search runs (a bound on this one call, not a benchmark).
    expect(performance.now() - started).toBeLessThan(100);
    expect(created.status, created.body).toBe(200);
    const task = created.message.result as Record<string, unknown>;
    expect(task).toMatchObject({
      resultType: "task",
      taskId: expect.any(String),
      status: "working",
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
    });
    const taskId = task.taskId as string;

    // Another principal: the same id names nothing it owns.
    const foreign = await getTask(B, taskId);
    expect(foreign.message.error?.code, foreign.body).toBe(-32602);

    // Independent requests, polled until the 6 s search is done.
    let last: Record<string, unknown> = task;
    const end = Date.now() + 30_000;
    while (last.status === "working" && Date.now() < end) {
      await sleep(250);
      const polled = await getTask(A, taskId);
      expect(polled.status, polled.body).toBe(200);
      last = polled.message.result as Record<string, unknown>;
      expect(last.taskId).toBe(taskId);
    }
    expect(last.status).toBe("completed");
    const result = last.result as { content: { type: string; text?: string }[] };
    const descriptor = JSON.parse(result.content[0]?.text as string);
    expect(descriptor.offloaded).toBe(true);
    expect(existsSync(descriptor.file_path)).toBe(true);
    expect(performance.now() - started).toBeGreaterThan(5 * DELAY_MS);

    // Still not B's once completed.
    expect((await getTask(B, taskId)).message.error?.code).toBe(-32602);

    // The task is the principal's, not the generation's: A's 2025-11-25 session reads it too.
    const session = new Client({ name: "tasks-legacy", version: "1.0.0" });
    await session.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${A}` } },
      }),
    );
    try {
      const legacy = await session.request(
        { method: "tasks/get", params: { taskId } },
        GetTaskResultSchema,
      );
      expect(legacy).toMatchObject({ taskId, status: "completed" });
    } finally {
      await session.close();
    }
  }, 60_000);

  it("gives a request without the tasks extension its result directly, no task", async () => {
    const plain = await recall(A, {});
    expect(plain.status, plain.body).toBe(200);
    expect(plain.message.result?.resultType).toBe("complete");
    expect(plain.message.result?.taskId).toBeUndefined();
    expect(JSON.parse(text(plain)).offloaded).toBe(true);
  }, 60_000);
});
