/**
 * atlatl's own table of MCP Tasks: the SDK 2.x line has no task runtime, so
 * the table is ours on every protocol generation (the 2025-11-25 wire form is
 * `task-wire.ts`; the `io.modelcontextprotocol/tasks` extension can read the
 * same records). A task belongs to an owner (a key the server chooses: its
 * session today, the authenticated principal later) and is visible to that
 * owner only. Its work runs detached, on the event-loop turn after the task
 * was created, with its own `AbortController` (never the request's signal: the
 * request is answered at once). A working task never expires; a finished one
 * is kept `ttlMs` counted from the moment it ended.
 */
import { randomUUID } from "node:crypto";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** True for the statuses a task never leaves. */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/**
 * How a task's work ended: the underlying request's result (`failed` when the
 * result itself says so, e.g. a tool result with `isError`), or the protocol
 * error the request raised.
 */
export type TaskOutcome<R> =
  | { kind: "result"; value: R; failed: boolean; message?: string | undefined }
  | { kind: "error"; error: unknown };

/** A task as its owner sees it (a copy: the table's record changes on). */
export interface TaskSnapshot<R = unknown> {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string | undefined;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** How long the task is kept once it has ended (milliseconds). */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** When the task ended (epoch ms); absent while it works. */
  readonly endedAt?: number | undefined;
  /** Set once the task completed or failed (a cancelled task keeps none). */
  readonly outcome?: TaskOutcome<R> | undefined;
}

/** What a task's work gets: its cancellation signal and a way to say how far it got. */
export interface TaskRun {
  readonly taskId: string;
  readonly signal: AbortSignal;
  /** The task's `statusMessage` (and `lastUpdatedAt`) while it works. */
  progress(message: string): void;
}

/** A task's work; a throw is stored as the outcome's error. */
export type TaskWork<R> = (run: TaskRun) => Promise<TaskOutcome<R>>;

/** How long a finished task is kept when the client asks no TTL. */
export const TASK_TTL_MS = 10 * 60 * 1000;
/** The longest a finished task is kept, whatever the client asks. */
export const TASK_MAX_TTL_MS = 60 * 60 * 1000;
/** Tasks one owner may have working at once. */
export const TASK_MAX_RUNNING = 16;
/** Tasks (finished ones included) kept per owner; the oldest finished go first. */
export const TASK_MAX_KEPT = 256;
/** The polling interval suggested to clients. */
export const TASK_POLL_INTERVAL_MS = 1000;

export interface TaskTableOptions {
  defaultTtlMs?: number;
  /** Requested TTLs above it are lowered to it. */
  maxTtlMs?: number;
  maxRunningPerOwner?: number;
  maxKeptPerOwner?: number;
  pollIntervalMs?: number;
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

/** Why a task cannot be created: its owner has its maximum of tasks working. */
export class TaskLimitError extends Error {
  constructor(readonly limit: number) {
    super(
      `BUSY: ${limit} of your tasks are working, the most allowed; wait for one to end or call without a task`,
    );
    this.name = "TaskLimitError";
  }
}

/** See the module comment. */
export class TaskTable<R = unknown> {
  private readonly entries = new Map<string, Entry<R>>();
  /** Task ids per owner, oldest first. */
  private readonly byOwner = new Map<string, string[]>();
  private readonly o: Required<TaskTableOptions>;

  constructor(options: TaskTableOptions = {}) {
    this.o = {
      defaultTtlMs: options.defaultTtlMs ?? TASK_TTL_MS,
      maxTtlMs: options.maxTtlMs ?? TASK_MAX_TTL_MS,
      maxRunningPerOwner: options.maxRunningPerOwner ?? TASK_MAX_RUNNING,
      maxKeptPerOwner: options.maxKeptPerOwner ?? TASK_MAX_KEPT,
      pollIntervalMs: options.pollIntervalMs ?? TASK_POLL_INTERVAL_MS,
      now: options.now ?? Date.now,
    };
  }

  /** The TTL a task gets when `requested` is asked (undefined: the default). */
  ttlFor(requested: number | undefined): number {
    const ttl = requested ?? this.o.defaultTtlMs;
    return Math.max(0, Math.min(ttl, this.o.maxTtlMs));
  }

  /**
   * Create a working task of `owner` and start `work` on the next turn of the
   * event loop (after the caller has answered with the task). Throws
   * {@link TaskLimitError} when the owner has its maximum of tasks working.
   */
  start(owner: string, requestedTtlMs: number | undefined, work: TaskWork<R>): TaskSnapshot<R> {
    const ids = this.byOwner.get(owner) ?? [];
    const running = ids.filter((id) => this.entries.get(id)?.record.status === "working").length;
    if (running >= this.o.maxRunningPerOwner) throw new TaskLimitError(running);
    const now = this.o.now();
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
        ttlMs: this.ttlFor(requestedTtlMs),
        pollIntervalMs: this.o.pollIntervalMs,
      },
    };
    const id = entry.record.taskId;
    this.entries.set(id, entry);
    ids.push(id);
    this.byOwner.set(owner, ids);
    this.evictOver(owner);
    setImmediate(() => void this.run(entry, work));
    return { ...entry.record };
  }

  /** `owner`'s task `taskId`, or undefined (unknown, another owner's, or expired). */
  get(owner: string, taskId: string): TaskSnapshot<R> | undefined {
    const entry = this.entryOf(owner, taskId);
    return entry ? { ...entry.record } : undefined;
  }

  /** `owner`'s tasks, oldest first. */
  list(owner: string): TaskSnapshot<R>[] {
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
  cancel(owner: string, taskId: string): TaskSnapshot<R> | undefined {
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
  close(): void {
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

  private async run(entry: Entry<R>, work: TaskWork<R>): Promise<void> {
    if (isTerminal(entry.record.status)) return; // cancelled before it started
    const run: TaskRun = {
      taskId: entry.record.taskId,
      signal: entry.controller.signal,
      progress: (message) => {
        if (entry.record.status !== "working") return;
        entry.record.statusMessage = message;
        entry.record.lastUpdatedAt = this.o.now();
      },
    };
    let outcome: TaskOutcome<R>;
    try {
      outcome = await work(run);
    } catch (error) {
      outcome = { kind: "error", error };
    }
    // A cancelled task stays cancelled whatever its work still produced.
    if (isTerminal(entry.record.status)) return;
    const failed = outcome.kind === "error" || outcome.failed;
    const message =
      outcome.kind === "error"
        ? outcome.error instanceof Error
          ? outcome.error.message
          : String(outcome.error)
        : outcome.message;
    this.finish(entry, failed ? "failed" : "completed", message, outcome);
  }

  private finish(
    entry: Entry<R>,
    status: "completed" | "failed" | "cancelled",
    message: string | undefined,
    outcome: TaskOutcome<R> | undefined,
  ): void {
    const now = this.o.now();
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
    if (r.endedAt !== undefined && this.o.now() >= r.endedAt + r.ttlMs) {
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
    let over = ids.length - this.o.maxKeptPerOwner;
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
