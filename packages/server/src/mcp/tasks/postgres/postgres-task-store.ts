/**
 * MCP Tasks kept in PostgreSQL (`mcp_tasks`), for several instances on one
 * database (`[offload_store] backend = "postgres"`): any instance answers
 * `tasks/get`, `tasks/list`, `tasks/result` and `tasks/cancel` for a task
 * another instance runs, for the task's principal only.
 *
 * - The row is committed before `start` returns, so the handle a client gets
 *   is readable everywhere at once (SEP-2663).
 * - The instance that runs the work writes its progress and its outcome, each
 *   only while the row is still `working`.
 * - `cancel` on any instance marks the row `cancelled`. The running instance
 *   notices when its next progress write finds the row no longer working (its
 *   work's steps) and, between steps, by reading the row every poll interval;
 *   then it aborts the work and discards what the work still produced.
 * - At most `maxRunningPerOwner` tasks of one principal work at once on each
 *   instance (a count of this process's own running tasks: a row left
 *   `working` by an instance killed with -9 blocks no one).
 * - The running instance refreshes the row's heartbeat at every poll; a
 *   working task whose heartbeat is older than `lostAfterMs` (its instance was
 *   killed) is failed when read, its error naming that.
 * - `sweep` deletes the finished tasks past their TTL (`DELETE`: each row once,
 *   whichever instance gets it); every instance sweeps every minute.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type pg from "pg";
import {
  endOf,
  isTerminal,
  type TaskDiscard,
  TaskLimitError,
  type TaskOutcome,
  type TaskRun,
  type TaskSnapshot,
  type TaskStore,
  type TaskStoreOptions,
  type TaskStoreSettings,
  type TaskWork,
  taskStoreSettings,
  ttlFor,
} from "../task-store.js";
import { outcomeJson, snapshotOf, TASK_COLUMNS, type TaskRow } from "./task-rows.js";

/** A working task whose heartbeat is this old lost its instance. */
const TASK_LOST_AFTER_MS = 30_000;
/** How often each instance deletes expired finished tasks. */
const TASK_SWEEP_INTERVAL_MS = 60_000;

/** Options of {@link PostgresTaskStore}: every task store's, and how lost tasks and sweeps go. */
export type PostgresTaskStoreOptions = TaskStoreOptions & {
  /** Default {@link TASK_LOST_AFTER_MS}. */
  lostAfterMs?: number;
  /** Sweep every {@link TASK_SWEEP_INTERVAL_MS} (default true). */
  sweep?: boolean;
};

interface Running {
  owner: string;
  controller: AbortController;
  ended: Promise<void>;
}

const LIVE = "(expires_at IS NULL OR expires_at > now())";
/** The SET of a row that ends now. */
const ENDED_NOW =
  "updated_at = now(), ended_at = now(), expires_at = now() + ttl_ms * interval '1 millisecond'";

/** See the module comment. */
export class PostgresTaskStore<R = unknown> implements TaskStore<R> {
  private readonly running = new Map<string, Running>();
  private readonly settings: TaskStoreSettings;
  private readonly lostAfterMs: number;
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresTaskStoreOptions = {},
  ) {
    this.settings = taskStoreSettings(options);
    this.lostAfterMs = options.lostAfterMs ?? TASK_LOST_AFTER_MS;
    if (options.sweep !== false) {
      this.sweeper = setInterval(() => void this.sweep().catch(() => 0), TASK_SWEEP_INTERVAL_MS);
      this.sweeper.unref();
    }
  }

  async start(
    owner: string,
    requestedTtlMs: number | undefined,
    work: TaskWork<R>,
    discard?: TaskDiscard<R>,
  ): Promise<TaskSnapshot<R>> {
    const mine = [...this.running.values()].filter((r) => r.owner === owner).length;
    if (mine >= this.settings.maxRunningPerOwner) throw new TaskLimitError(mine);
    // Room first: a failure here leaves no task behind.
    await this.evictOver(owner);
    // The database's clock, as every later write of the row: one clock for every instance.
    const { rows } = await this.pool.query<TaskRow>(
      `INSERT INTO mcp_tasks (principal, task_id, status, status_message, created_at, updated_at,
         heartbeat_at, ttl_ms, poll_ms)
       VALUES ($1, $2, 'working', 'queued', now(), now(), now(), $3, $4) RETURNING ${TASK_COLUMNS}`,
      [owner, randomUUID(), ttlFor(this.settings, requestedTtlMs), this.settings.pollIntervalMs],
    );
    const task = snapshotOf<R>(rows[0] as TaskRow);
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const running: Running = { owner, controller: new AbortController(), ended };
    this.running.set(task.taskId, running);
    // A final write that fails leaves the row working: its heartbeat stops, so it is failed as lost.
    setImmediate(
      () =>
        void this.run(task.taskId, running, work, discard)
          .catch(() => undefined)
          .finally(end),
    );
    return task;
  }

  async get(owner: string, taskId: string): Promise<TaskSnapshot<R> | undefined> {
    await this.failLost(owner, taskId);
    const { rows } = await this.pool.query<TaskRow>(
      `SELECT ${TASK_COLUMNS} FROM mcp_tasks WHERE principal = $1 AND task_id = $2 AND ${LIVE}`,
      [owner, taskId],
    );
    return rows[0] ? snapshotOf<R>(rows[0]) : undefined;
  }

  async list(owner: string): Promise<TaskSnapshot<R>[]> {
    await this.failLost(owner, null);
    const { rows } = await this.pool.query<TaskRow>(
      `SELECT ${TASK_COLUMNS} FROM mcp_tasks WHERE principal = $1 AND ${LIVE}
       ORDER BY created_at, task_id`,
      [owner],
    );
    return rows.map((row) => snapshotOf<R>(row));
  }

  async cancel(owner: string, taskId: string): Promise<TaskSnapshot<R> | undefined> {
    const row = await this.endRow(owner, taskId, "cancelled", "cancelled by the client", null);
    if (!row) return this.get(owner, taskId);
    // Running here: stop it now rather than at its next poll.
    this.running.get(taskId)?.controller.abort();
    return snapshotOf<R>(row);
  }

  async settled(
    owner: string,
    taskId: string,
    signal?: AbortSignal,
  ): Promise<TaskSnapshot<R> | undefined> {
    for (;;) {
      signal?.throwIfAborted();
      const task = await this.get(owner, taskId);
      if (!task || isTerminal(task.status)) return task;
      const here = this.running.get(taskId);
      const wait = sleep(task.pollIntervalMs, undefined, signal ? { signal } : {});
      await (here ? Promise.race([here.ended, wait]) : wait).catch(() => undefined);
    }
  }

  /** Delete the finished tasks past their TTL; how many this call deleted. */
  async sweep(): Promise<number> {
    const { rowCount } = await this.pool.query("DELETE FROM mcp_tasks WHERE expires_at <= now()");
    return rowCount ?? 0;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const ids = [...this.running.keys()];
    for (const r of this.running.values()) r.controller.abort();
    if (ids.length > 0) {
      await this.pool
        .query(
          `UPDATE mcp_tasks SET status = 'cancelled', status_message = 'the server closed', ${ENDED_NOW}
           WHERE task_id = ANY($1) AND status = 'working'`,
          [ids],
        )
        .catch(() => undefined);
    }
    // The pool is the instance's: its opener ends it.
    this.running.clear();
  }

  private async run(
    taskId: string,
    running: Running,
    work: TaskWork<R>,
    discard: TaskDiscard<R> | undefined,
  ): Promise<void> {
    const { owner, controller } = running;
    const watch = setInterval(
      () => void this.watch(owner, taskId, controller),
      this.settings.pollIntervalMs,
    );
    watch.unref();
    let writes = Promise.resolve();
    const run: TaskRun = {
      taskId,
      signal: controller.signal,
      progress: (message) => {
        // In order, one at a time; a row no longer working means it was cancelled.
        writes = writes.then(() => this.progress(owner, taskId, message, controller));
      },
    };
    let outcome: TaskOutcome<R>;
    try {
      outcome = controller.signal.aborted ? abortedOutcome() : await work(run);
    } catch (error) {
      outcome = { kind: "error", error };
    } finally {
      clearInterval(watch);
    }
    await writes;
    try {
      const { status, message } = endOf(outcome);
      const row = controller.signal.aborted
        ? undefined
        : await this.endRow(owner, taskId, status, message ?? null, outcomeJson(outcome));
      // Cancelled (here or elsewhere) or the server closed: the outcome is dropped.
      if (!row) await discard?.(outcome);
    } finally {
      this.running.delete(taskId);
    }
  }

  /** End a working row; undefined when it is not `owner`'s working task (any more). */
  private async endRow(
    owner: string,
    taskId: string,
    status: "completed" | "failed" | "cancelled",
    message: string | null,
    outcome: string | null,
  ): Promise<TaskRow | undefined> {
    const { rows } = await this.pool.query<TaskRow>(
      `UPDATE mcp_tasks SET status = $3, status_message = $4, outcome = $5::jsonb, ${ENDED_NOW}
       WHERE principal = $1 AND task_id = $2 AND status = 'working'
       RETURNING ${TASK_COLUMNS}`,
      [owner, taskId, status, message, outcome],
    );
    return rows[0];
  }

  private async progress(
    owner: string,
    taskId: string,
    message: string,
    controller: AbortController,
  ): Promise<void> {
    if (controller.signal.aborted) return;
    const { rowCount } = await this.pool
      .query(
        `UPDATE mcp_tasks SET status_message = $3, updated_at = now()
         WHERE principal = $1 AND task_id = $2 AND status = 'working'`,
        [owner, taskId, message],
      )
      .catch(() => ({ rowCount: 1 }));
    if (rowCount === 0) controller.abort();
  }

  /**
   * Between the work's steps, every poll interval: refresh the heartbeat, and
   * abort when the row is no longer working (cancelled elsewhere).
   */
  private async watch(owner: string, taskId: string, controller: AbortController): Promise<void> {
    if (controller.signal.aborted) return;
    const { rowCount } = await this.pool
      .query(
        `UPDATE mcp_tasks SET heartbeat_at = now()
         WHERE principal = $1 AND task_id = $2 AND status = 'working'`,
        [owner, taskId],
      )
      .catch(() => ({ rowCount: 1 }));
    if (rowCount === 0) controller.abort();
  }

  /** Fail `owner`'s working tasks (`taskId`'s, or all) whose instance stopped beating. */
  private async failLost(owner: string, taskId: string | null): Promise<void> {
    await this.pool.query(
      `UPDATE mcp_tasks SET status = 'failed', status_message = $4, outcome = $5::jsonb, ${ENDED_NOW}
       WHERE principal = $1 AND ($2::text IS NULL OR task_id = $2) AND status = 'working'
         AND heartbeat_at < now() - $3 * interval '1 millisecond'`,
      [owner, taskId, this.lostAfterMs, LOST, outcomeJson({ kind: "error", error: lostError() })],
    );
  }

  /** Drop `owner`'s oldest finished tasks so that one more is within the kept maximum. */
  private async evictOver(owner: string): Promise<void> {
    await this.pool.query(
      `DELETE FROM mcp_tasks WHERE principal = $1 AND status <> 'working' AND task_id IN (
         SELECT task_id FROM mcp_tasks WHERE principal = $1 AND status <> 'working'
         ORDER BY created_at, task_id
         LIMIT greatest(0, (SELECT count(*) FROM mcp_tasks WHERE principal = $1) + 1 - $2))`,
      [owner, this.settings.maxKeptPerOwner],
    );
  }
}

const LOST = "the instance running this task stopped before it ended";

function lostError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, LOST);
}

/** A task cancelled before its work started. */
function abortedOutcome<R>(): TaskOutcome<R> {
  return { kind: "error", error: new Error("cancelled before it started") };
}
