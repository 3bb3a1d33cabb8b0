/**
 * atlatl's own table of MCP Tasks: the SDK 2.x line has no task runtime, so
 * the table is ours on every protocol generation (the 2025-11-25 wire form is
 * `task-wire.ts`; the `io.modelcontextprotocol/tasks` extension can read the
 * same records). A task belongs to an owner (a key the server chooses: its
 * principal) and is visible to that owner only. Its work runs detached, on the event-loop turn after the task
 * was created, with its own `AbortController` (never the request's signal: the
 * request is answered at once). A working task never expires; a finished one
 * is kept `ttlMs` counted from the moment it ended. The in-process
 * implementation of the {@link TaskStore} seam (the default).
 */
import { randomUUID } from "node:crypto";
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

/** The options of every task store, and the table's clock (tests advance it). */
interface TaskTableOptions extends TaskStoreOptions {
  /** Epoch ms (default `Date.now`). */
  now?: () => number;
}

interface Entry<R> {
  record: Mutable<TaskSnapshot<R>>;
  owner: string;
  controller: AbortController;
  /** Resolved once the task is terminal. */
  ended: Promise<void>;
  end: () => void;
  expiry?: NodeJS.Timeout;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** See the module comment. */
export class TaskTable<R = unknown> implements TaskStore<R> {
  private readonly entries = new Map<string, Entry<R>>();
  /** Task ids per owner, oldest first. */
  private readonly byOwner = new Map<string, string[]>();
  private readonly settings: TaskStoreSettings;
  private readonly now: () => number;

  constructor(options: TaskTableOptions = {}) {
    this.settings = taskStoreSettings(options);
    this.now = options.now ?? Date.now;
  }

  /**
   * Create a working task of `owner` and start `work` on the next turn of the
   * event loop (after the caller has answered with the task). Throws
   * {@link TaskLimitError} when the owner has its maximum of tasks working.
   */
  async start(
    owner: string,
    requestedTtlMs: number | undefined,
    work: TaskWork<R>,
    discard?: TaskDiscard<R>,
  ): Promise<TaskSnapshot<R>> {
    const ids = this.byOwner.get(owner) ?? [];
    const running = ids.filter((id) => this.entries.get(id)?.record.status === "working").length;
    if (running >= this.settings.maxRunningPerOwner) throw new TaskLimitError(running);
    const now = this.now();
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const entry: Entry<R> = {
      owner,
      controller: new AbortController(),
      ended,
      end,
      record: {
        taskId: randomUUID(),
        status: "working",
        statusMessage: "queued",
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs: ttlFor(this.settings, requestedTtlMs),
        pollIntervalMs: this.settings.pollIntervalMs,
      },
    };
    const id = entry.record.taskId;
    this.entries.set(id, entry);
    ids.push(id);
    this.byOwner.set(owner, ids);
    this.evictOver(owner);
    setImmediate(() => void this.run(entry, work, discard));
    return { ...entry.record };
  }

  /** `owner`'s task `taskId`, or undefined (unknown, another owner's, or expired). */
  async get(owner: string, taskId: string): Promise<TaskSnapshot<R> | undefined> {
    const entry = this.entryOf(owner, taskId);
    return entry ? { ...entry.record } : undefined;
  }

  /** `owner`'s tasks, oldest first. */
  async list(owner: string): Promise<TaskSnapshot<R>[]> {
    return (this.byOwner.get(owner) ?? []).flatMap((id) => {
      const entry = this.entries.get(id);
      return entry ? [{ ...entry.record }] : [];
    });
  }

  /**
   * Cancel `owner`'s working task: it is `cancelled` at once, its work is
   * aborted and whatever the work still returns is dropped. Undefined when the
   * task is not the owner's; a finished task is returned unchanged (the caller
   * refuses it).
   */
  async cancel(owner: string, taskId: string): Promise<TaskSnapshot<R> | undefined> {
    const entry = this.entryOf(owner, taskId);
    if (!entry) return undefined;
    if (!isTerminal(entry.record.status)) {
      this.finish(entry, "cancelled", "cancelled by the client", undefined);
      entry.controller.abort();
    }
    return { ...entry.record };
  }

  /**
   * `owner`'s task once it has ended (at once when it has), or undefined when it
   * is not the owner's. Rejects with `signal`'s reason when that aborts first.
   */
  async settled(
    owner: string,
    taskId: string,
    signal?: AbortSignal,
  ): Promise<TaskSnapshot<R> | undefined> {
    const entry = this.entryOf(owner, taskId);
    if (!entry) return undefined;
    if (!isTerminal(entry.record.status)) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal?.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        void entry.ended.then(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
    return { ...entry.record };
  }

  /** Abort every working task and forget every task (the table's server is closing). */
  async close(): Promise<void> {
    for (const entry of this.entries.values()) {
      if (!isTerminal(entry.record.status)) {
        this.finish(entry, "cancelled", "the server closed", undefined);
        entry.controller.abort();
      }
      clearTimeout(entry.expiry);
    }
    this.entries.clear();
    this.byOwner.clear();
  }

  private async run(entry: Entry<R>, work: TaskWork<R>, discard?: TaskDiscard<R>): Promise<void> {
    if (isTerminal(entry.record.status)) return; // cancelled before it started
    const run: TaskRun = {
      taskId: entry.record.taskId,
      signal: entry.controller.signal,
      progress: (message) => {
        if (entry.record.status !== "working") return;
        entry.record.statusMessage = message;
        entry.record.lastUpdatedAt = this.now();
      },
    };
    let outcome: TaskOutcome<R>;
    try {
      outcome = await work(run);
    } catch (error) {
      outcome = { kind: "error", error };
    }
    // A cancelled task stays cancelled whatever its work still produced.
    if (isTerminal(entry.record.status)) {
      await discard?.(outcome);
      return;
    }
    const { status, message } = endOf(outcome);
    this.finish(entry, status, message, outcome);
  }

  private finish(
    entry: Entry<R>,
    status: "completed" | "failed" | "cancelled",
    message: string | undefined,
    outcome: TaskOutcome<R> | undefined,
  ): void {
    const now = this.now();
    const r = entry.record;
    r.status = status;
    r.statusMessage = message;
    r.lastUpdatedAt = now;
    r.endedAt = now;
    r.outcome = outcome;
    entry.end();
    // Kept for its TTL counted from now; the timer holds no process open.
    entry.expiry = setTimeout(() => this.forget(r.taskId), r.ttlMs);
    entry.expiry.unref();
  }

  private entryOf(owner: string, taskId: string): Entry<R> | undefined {
    const entry = this.entries.get(taskId);
    if (!entry || entry.owner !== owner) return undefined;
    const r = entry.record;
    // The timer may lag behind the clock: an expired task is gone already.
    if (r.endedAt !== undefined && this.now() >= r.endedAt + r.ttlMs) {
      this.forget(taskId);
      return undefined;
    }
    return entry;
  }

  private forget(taskId: string): void {
    const entry = this.entries.get(taskId);
    if (!entry) return;
    clearTimeout(entry.expiry);
    this.entries.delete(taskId);
    const ids = this.byOwner.get(entry.owner)?.filter((id) => id !== taskId) ?? [];
    if (ids.length > 0) this.byOwner.set(entry.owner, ids);
    else this.byOwner.delete(entry.owner);
  }

  /** Drop `owner`'s oldest finished tasks beyond the kept maximum. */
  private evictOver(owner: string): void {
    const ids = this.byOwner.get(owner) ?? [];
    let over = ids.length - this.settings.maxKeptPerOwner;
    for (const id of [...ids]) {
      if (over <= 0) break;
      const status = this.entries.get(id)?.record.status;
      if (status !== undefined && isTerminal(status)) {
        this.forget(id);
        over--;
      }
    }
  }
}
