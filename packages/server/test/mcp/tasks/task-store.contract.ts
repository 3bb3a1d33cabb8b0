/**
 * What every task store does (the `TaskStore` seam), run by the in-memory
 * table and by PostgreSQL: a task is created working and readable at once;
 * its progress and outcome are read back (an error as the same JSON-RPC
 * error); another owner sees nothing; cancelling aborts the work and drops
 * (discards) what it still produced; a finished task goes after its TTL,
 * which is bounded (the configured maximum, at least 0); an owner's working
 * tasks are bounded. A shared store (`again`: a second
 * instance on the same data) also answers for, and cancels, the other
 * instance's tasks.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ProtocolError } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import {
  TASK_MAX_TTL_MS,
  TASK_TTL_MS,
  TaskLimitError,
  type TaskOutcome,
  type TaskRun,
  type TaskStore,
  type TaskStoreOptions,
} from "../../../src/mcp/tasks/task-store.js";

export interface OpenedTaskStore {
  store: TaskStore<string>;
  /** Another instance on the same data (shared stores only). */
  again?: () => Promise<TaskStore<string>>;
  cleanup: () => Promise<void>;
}

export interface TaskStoreContract {
  name: string;
  /** Instances share the tasks (`again` must be given). */
  shared?: boolean;
  open: (options?: TaskStoreOptions) => Promise<OpenedTaskStore>;
}

const done = (value: string): TaskOutcome<string> => ({ kind: "result", value, failed: false });

/** A work that runs until `release()` or its abort, then answers `value`. */
function gated(value: string) {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let seen: TaskRun | undefined;
  const work = async (run: TaskRun) => {
    seen = run;
    run.progress("halfway");
    await Promise.race([gate, new Promise((r) => run.signal.addEventListener("abort", r))]);
    return done(value);
  };
  return { work, release: () => release(), run: () => seen };
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await sleep(20);
  }
}

export function taskStoreContract(c: TaskStoreContract): void {
  describe(`task store contract: ${c.name}`, () => {
    const opened: OpenedTaskStore[] = [];
    const stores: TaskStore<string>[] = [];
    const open = async (options?: TaskStoreOptions) => {
      const o = await c.open(options);
      opened.push(o);
      stores.push(o.store);
      return o;
    };
    afterEach(async () => {
      for (const s of stores.splice(0)) await s.close();
      for (const o of opened.splice(0)) await o.cleanup();
    });

    it(`${c.name}: a task is working at once, shows its progress, ends with its outcome, its owner's only`, async () => {
      const { store } = await open();
      const g = gated("the result");
      const task = await store.start("alice", undefined, g.work);
      expect(task).toMatchObject({ status: "working", statusMessage: "queued" });
      expect((await store.get("alice", task.taskId))?.status).toBe("working");
      expect(await store.get("bob", task.taskId)).toBeUndefined();
      expect(await store.list("bob")).toEqual([]);
      const progressed = await until(
        async () => store.get("alice", task.taskId),
        (t) => t?.statusMessage === "halfway",
      );
      expect(progressed?.statusMessage).toBe("halfway");
      g.release();
      const ended = await store.settled("alice", task.taskId);
      expect(ended).toMatchObject({ taskId: task.taskId, status: "completed" });
      expect(ended?.outcome).toEqual(done("the result"));
      expect(ended?.endedAt).toBeGreaterThanOrEqual(task.createdAt);
      expect((await store.list("alice")).map((t) => t.taskId)).toEqual([task.taskId]);
      expect(await store.settled("bob", task.taskId)).toBeUndefined();
    });

    it(`${c.name}: a work's protocol error is the task's, the same JSON-RPC error when read back`, async () => {
      const { store } = await open();
      const task = await store.start("alice", undefined, async () => {
        throw new ProtocolError(-32602, "no such thing", { field: "x" });
      });
      const ended = await store.settled("alice", task.taskId);
      expect(ended?.status).toBe("failed");
      const outcome = ended?.outcome;
      expect(outcome?.kind).toBe("error");
      const error = outcome?.kind === "error" ? outcome.error : undefined;
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ code: -32602, data: { field: "x" } });
      expect((error as Error).message).toContain("no such thing");
    });

    it(`${c.name}: cancel aborts the work and discards what it still produced; another owner cannot`, async () => {
      const { store } = await open();
      const g = gated("late");
      const discarded: TaskOutcome<string>[] = [];
      const task = await store.start("alice", undefined, g.work, async (o) => {
        discarded.push(o);
      });
      await until(
        async () => g.run(),
        (r) => r !== undefined,
      );
      expect(await store.cancel("bob", task.taskId)).toBeUndefined();
      const cancelled = await store.cancel("alice", task.taskId);
      expect(cancelled?.status).toBe("cancelled");
      expect(g.run()?.signal.aborted).toBe(true);
      await until(
        async () => discarded.length,
        (n) => n > 0,
      );
      expect(discarded).toEqual([done("late")]);
      const after = await store.get("alice", task.taskId);
      expect(after?.status).toBe("cancelled");
      expect(after?.outcome).toBeUndefined();
      // A finished task is returned unchanged.
      expect((await store.cancel("alice", task.taskId))?.status).toBe("cancelled");
    });

    it(`${c.name}: a finished task is gone after its TTL`, async () => {
      const { store } = await open();
      const task = await store.start("alice", 100, async () => done("short"));
      expect((await store.settled("alice", task.taskId))?.status).toBe("completed");
      await sleep(250);
      expect(await store.get("alice", task.taskId)).toBeUndefined();
      expect(await store.list("alice")).toEqual([]);
    });

    it(`${c.name}: a requested TTL past the maximum is cut to it; none asked, the default`, async () => {
      const { store } = await open();
      const long = await store.start("alice", TASK_MAX_TTL_MS * 24, async () => done("long"));
      expect(long.ttlMs).toBe(TASK_MAX_TTL_MS);
      expect((await store.settled("alice", long.taskId))?.ttlMs).toBe(TASK_MAX_TTL_MS);
      expect((await store.get("alice", long.taskId))?.ttlMs).toBe(TASK_MAX_TTL_MS);
      const plain = await store.start("alice", undefined, async () => done("plain"));
      expect((await store.get("alice", plain.taskId))?.ttlMs).toBe(TASK_TTL_MS);
    });

    it(`${c.name}: requested TTLs are bounded by the configured maximum and at 0; none asked, the configured default`, async () => {
      const { store } = await open({ defaultTtlMs: 5_000, maxTtlMs: 60_000 });
      const ttlOf = async (requested: number | undefined) =>
        (await store.start("alice", requested, async () => done("t"))).ttlMs;
      expect(await ttlOf(undefined)).toBe(5_000);
      expect(await ttlOf(3_600_000)).toBe(60_000);
      expect(await ttlOf(-5)).toBe(0);
    });

    it(`${c.name}: an owner's working tasks are bounded; another owner's are not`, async () => {
      const { store } = await open({ maxRunningPerOwner: 2 });
      const g = gated("x");
      await store.start("alice", undefined, g.work);
      await store.start("alice", undefined, g.work);
      // Thrown or rejected: the memory table refuses before it creates anything.
      const third = (async () => store.start("alice", undefined, g.work))();
      await expect(third).rejects.toBeInstanceOf(TaskLimitError);
      await store.start("bob", undefined, g.work);
      g.release();
    });

    it(`${c.name}: an owner keeps its newest tasks, its oldest finished ones dropped first`, async () => {
      const { store } = await open({ maxKeptPerOwner: 2 });
      const ids: string[] = [];
      for (const value of ["1", "2", "3"]) {
        const task = await store.start("alice", undefined, async () => done(value));
        await store.settled("alice", task.taskId);
        ids.push(task.taskId);
        await sleep(5); // distinct creation times
      }
      expect((await store.list("alice")).map((t) => t.taskId)).toEqual(ids.slice(1));
      expect(await store.get("alice", ids[0] as string)).toBeUndefined();
    });

    it(`${c.name}: settled rejects when its signal aborts first`, async () => {
      const { store } = await open();
      const g = gated("x");
      const task = await store.start("alice", undefined, g.work);
      const signal = AbortSignal.timeout(100);
      await expect(store.settled("alice", task.taskId, signal)).rejects.toBeDefined();
      g.release();
    });

    it.runIf(c.shared)(
      `${c.name}: shared: another instance reads the task and its outcome, and its cancel stops the work here`,
      async () => {
        const first = await open({ pollIntervalMs: 100 });
        if (!first.again) throw new Error("a shared store's contract needs `again`");
        const other = await first.again();
        stores.push(other);
        const g = gated("here");
        const task = await first.store.start("alice", undefined, g.work);
        expect((await other.get("alice", task.taskId))?.status).toBe("working");
        expect(await other.get("bob", task.taskId)).toBeUndefined();
        g.release();
        expect((await other.settled("alice", task.taskId))?.outcome).toEqual(done("here"));

        const h = gated("never kept");
        const discarded: TaskOutcome<string>[] = [];
        const running = await first.store.start("alice", undefined, h.work, async (o) => {
          discarded.push(o);
        });
        await until(
          async () => h.run(),
          (r) => r !== undefined,
        );
        expect((await other.cancel("alice", running.taskId))?.status).toBe("cancelled");
        // The running instance notices at its next poll of the row and aborts.
        await until(
          async () => h.run()?.signal.aborted,
          (a) => a === true,
          5_000,
        );
        expect(h.run()?.signal.aborted).toBe(true);
        await until(
          async () => discarded.length,
          (n) => n > 0,
        );
        expect(discarded).toEqual([done("never kept")]);
        expect((await first.store.get("alice", running.taskId))?.status).toBe("cancelled");
      },
    );
  });
}
