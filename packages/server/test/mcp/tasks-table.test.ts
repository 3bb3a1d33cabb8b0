/**
 * The task table's own rules, on an injected clock: a finished task is kept
 * its TTL counted from its end and never past it (whatever its timer does); a
 * working task never expires; an owner keeps at
 * most its maximum of tasks, losing its oldest finished ones first; closing
 * the table cancels the working tasks and wakes whoever waits on them.
 */
import { setImmediate as turn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { TaskTable } from "../../src/mcp/tasks/memory/memory-task-store.js";
import type { TaskOutcome } from "../../src/mcp/tasks/task-store.js";

const done = (value: string): TaskOutcome<string> => ({ kind: "result", value, failed: false });

function clocked() {
  let now = 1_000_000;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("TaskTable", () => {
  it("keeps a finished task its TTL from its end, and a working one however long it works", async () => {
    const clock = clocked();
    const table = new TaskTable<string>({ now: clock.now });
    let finish: () => void = () => {};
    const gate = new Promise<void>((r) => {
      finish = r;
    });
    const task = await table.start("o", 1_000, async () => {
      await gate;
      return done("v");
    });
    clock.advance(60_000); // far past the TTL, still working
    expect((await table.get("o", task.taskId))?.status).toBe("working");
    finish();
    const ended = await table.settled("o", task.taskId);
    expect(ended?.status).toBe("completed");
    expect(ended?.outcome).toEqual(done("v"));
    clock.advance(999);
    expect((await table.get("o", task.taskId))?.status).toBe("completed");
    clock.advance(1);
    expect(await table.get("o", task.taskId)).toBeUndefined();
    expect(await table.list("o")).toEqual([]);
    await table.close();
  });

  it("keeps an owner's newest tasks, dropping its oldest finished ones first", async () => {
    const table = new TaskTable<string>({ maxKeptPerOwner: 3 });
    const never = new Promise<TaskOutcome<string>>(() => {});
    const working = await table.start("o", undefined, () => never);
    const first = await table.start("o", undefined, async () => done("1"));
    const second = await table.start("o", undefined, async () => done("2"));
    await table.settled("o", second.taskId);
    const third = await table.start("o", undefined, async () => done("3"));
    const other = await table.start("p", undefined, async () => done("p"));
    expect((await table.list("o")).map((t) => t.taskId)).toEqual([
      working.taskId,
      second.taskId,
      third.taskId,
    ]);
    expect(await table.get("o", first.taskId)).toBeUndefined();
    expect((await table.list("p")).map((t) => t.taskId)).toEqual([other.taskId]);
    await table.close();
  });

  it("cancels working tasks on close, aborting their work and waking their waiters", async () => {
    const table = new TaskTable<string>();
    let signal: AbortSignal | undefined;
    const task = await table.start("o", undefined, (run) => {
      signal = run.signal;
      return new Promise<TaskOutcome<string>>(() => {});
    });
    await turn();
    const waiting = table.settled("o", task.taskId);
    await table.close();
    expect((await waiting)?.status).toBe("cancelled");
    expect(signal?.aborted).toBe(true);
    expect(await table.get("o", task.taskId)).toBeUndefined();
  });
});
