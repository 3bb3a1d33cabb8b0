/**
 * The task store contract on PostgreSQL (each test in a schema of its own,
 * a second store on the same schema as the other instance), and the sweep:
 * an expired finished task is deleted once across instances; a working task
 * whose instance stopped beating (killed) is failed when read; every time of
 * a row is the database's, whatever the instance's clock says. Declared when
 * `ATLATL_TEST_PG_URL` is set or CI requires it: on CI without the URL these
 * tests fail.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { openPostgresTaskStore } from "../../../src/mcp/tasks/postgres/open-postgres-task-store.js";
import type { TaskStoreOptions } from "../../../src/mcp/tasks/task-store.js";
import {
  dropSchema,
  freshSchema,
  instancePool,
  PG_ENABLED,
  pgUrl,
} from "../../backends/backends.js";
import { taskStoreContract } from "./task-store.contract.js";

/** The store on `schema`, on a pool of its own (as each instance has). */
async function openOn(schema: string, options: TaskStoreOptions & { lostAfterMs?: number } = {}) {
  const { pool, closing } = await instancePool(schema);
  return closing(await openPostgresTaskStore<string>({ pool, sweep: false, ...options }));
}

describe.runIf(PG_ENABLED)("postgres task store", () => {
  taskStoreContract({
    name: "postgres",
    shared: true,
    async open(options) {
      const schema = freshSchema();
      return {
        store: await openOn(schema, options),
        again: () => openOn(schema, options),
        cleanup: () => dropSchema(schema),
      };
    },
  });

  it("postgres: the sweep deletes an expired finished task once, whichever instance runs it; a working one never", async () => {
    const schema = freshSchema();
    const a = await openOn(schema);
    const b = await openOn(schema);
    try {
      const finished = await a.start("alice", 50, async () => ({
        kind: "result",
        value: "v",
        failed: false,
      }));
      await a.settled("alice", finished.taskId);
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const working = await a.start("alice", 50, async () => {
        await gate;
        return { kind: "result", value: "w", failed: false };
      });
      await sleep(150);
      const swept = await Promise.all([a.sweep(), b.sweep()]);
      expect(swept.reduce((x, y) => x + y, 0)).toBe(1);
      expect(await a.sweep()).toBe(0);
      expect((await b.get("alice", working.taskId))?.status).toBe("working");
      release();
    } finally {
      await a.close();
      await b.close();
      await dropSchema(schema);
    }
  });

  it("postgres: a working task whose instance stopped beating is failed when read; one that beats is not", async () => {
    const schema = freshSchema();
    // `dead` never beats within the test (its poll is a minute), as an instance killed with -9.
    const dead = await openOn(schema, { pollIntervalMs: 60_000 });
    const alive = await openOn(schema, { pollIntervalMs: 50 });
    const reader = await openOn(schema, { lostAfterMs: 400 });
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const work = async () => {
      await gate;
      return { kind: "result" as const, value: "late", failed: false };
    };
    try {
      const lost = await dead.start("alice", undefined, work);
      const beating = await alive.start("alice", undefined, work);
      await sleep(700);
      const failed = await reader.get("alice", lost.taskId);
      expect(failed?.status).toBe("failed");
      expect(failed?.statusMessage).toMatch(/instance running this task stopped/);
      expect(failed?.outcome?.kind).toBe("error");
      expect((await reader.get("alice", beating.taskId))?.status).toBe("working");
      expect((await reader.list("alice")).map((t) => t.status).sort()).toEqual([
        "failed",
        "working",
      ]);
    } finally {
      release();
      await dead.close();
      await alive.close();
      await reader.close();
      await dropSchema(schema);
    }
  });

  it("postgres: a task's times are the database's clock, not the instance's (one an hour ahead)", async () => {
    const schema = freshSchema();
    const store = await openOn(schema);
    const db = new pg.Client({ connectionString: pgUrl() });
    await db.connect();
    try {
      const dbNow = async () =>
        (await db.query<{ ms: string }>("SELECT extract(epoch FROM now()) * 1000 AS ms")).rows[0]
          ?.ms;
      const before = Math.floor(Number(await dbNow()));
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3_600_000 });
      const task = await store.start("alice", undefined, async () => ({
        kind: "result",
        value: "v",
        failed: false,
      }));
      const ended = await store.settled("alice", task.taskId);
      vi.useRealTimers();
      const after = Number(await dbNow());
      expect(task.createdAt).toBeGreaterThanOrEqual(before);
      expect(task.createdAt).toBeLessThanOrEqual(after);
      expect(ended?.endedAt).toBeGreaterThanOrEqual(task.createdAt);
      expect(ended?.endedAt).toBeLessThanOrEqual(after);
    } finally {
      vi.useRealTimers();
      await db.end();
      await store.close();
      await dropSchema(schema);
    }
  });
});
