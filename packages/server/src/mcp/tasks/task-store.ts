/**
 * The seam of MCP Tasks: where a server's tasks live. `memory/` keeps them in
 * the process (the default: one instance); `postgres/` keeps them in the
 * shared PostgreSQL database (`[offload_store] backend = "postgres"`), so any
 * instance answers for a task another instance runs. Every method is async
 * (one interface for both); a task belongs to an owner (its principal) and is
 * visible to that owner only. Options, defaults and the TTL rule are here,
 * read by both.
 */
import { CodedError } from "@atlatl/lro";

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
const TASK_MAX_RUNNING = 16;
/** Tasks (finished ones included) kept per owner; the oldest finished go first. */
const TASK_MAX_KEPT = 256;
/** The polling interval suggested to clients. */
const TASK_POLL_INTERVAL_MS = 1000;

/** What every task store is told; each unset option takes its `TASK_*` default above. */
export interface TaskStoreOptions {
  /** How long a finished task is kept when the client asks no TTL. */
  defaultTtlMs?: number | undefined;
  /** Requested TTLs above it are lowered to it. */
  maxTtlMs?: number | undefined;
  maxRunningPerOwner?: number | undefined;
  maxKeptPerOwner?: number | undefined;
  pollIntervalMs?: number | undefined;
}

/** {@link TaskStoreOptions} with every default applied. */
export type TaskStoreSettings = { readonly [K in keyof TaskStoreOptions]-?: number };

/** `options` with the defaults applied (the one place they are). */
export function taskStoreSettings(options: TaskStoreOptions = {}): TaskStoreSettings {
  return {
    defaultTtlMs: options.defaultTtlMs ?? TASK_TTL_MS,
    maxTtlMs: options.maxTtlMs ?? TASK_MAX_TTL_MS,
    maxRunningPerOwner: options.maxRunningPerOwner ?? TASK_MAX_RUNNING,
    maxKeptPerOwner: options.maxKeptPerOwner ?? TASK_MAX_KEPT,
    pollIntervalMs: options.pollIntervalMs ?? TASK_POLL_INTERVAL_MS,
  };
}

/** The TTL a task gets when `requested` is asked (undefined: the default), within 0 and the maximum. */
export function ttlFor(settings: TaskStoreSettings, requested: number | undefined): number {
  return Math.max(0, Math.min(requested ?? settings.defaultTtlMs, settings.maxTtlMs));
}

/**
 * The longest a task of a server whose offload files live `offloadTtlSeconds`
 * is kept: a task's result names its offload file, so it goes no later.
 */
export function maxTaskTtlMs(offloadTtlSeconds: number): number {
  return Math.min(TASK_MAX_TTL_MS, offloadTtlSeconds * 1000);
}

/** Why a task cannot be created: its owner has its maximum of tasks working. */
export class TaskLimitError extends CodedError<"BUSY"> {
  constructor(readonly limit: number) {
    super(
      "BUSY",
      `${limit} of your tasks are working, the most allowed; wait for one to end or call without a task`,
    );
    this.name = "TaskLimitError";
  }
}

/** How a task whose work produced `outcome` ends: its status and message. */
export function endOf<R>(outcome: TaskOutcome<R>): {
  status: "completed" | "failed";
  message: string | undefined;
} {
  if (outcome.kind === "error") {
    const e = outcome.error;
    return { status: "failed", message: e instanceof Error ? e.message : String(e) };
  }
  return { status: outcome.failed ? "failed" : "completed", message: outcome.message };
}

/** Called with the outcome a cancelled task's work still produced (remove what it wrote). */
export type TaskDiscard<R> = (outcome: TaskOutcome<R>) => Promise<void>;

/** See the module comment; the contract is `test/mcp/tasks/task-store.contract.ts`. */
export interface TaskStore<R = unknown> {
  /**
   * Create a working task of `owner`, durably, and start `work` after it is
   * created (the caller answers with the task first). Rejects with
   * {@link TaskLimitError} when the owner has its maximum of tasks working.
   */
  start(
    owner: string,
    requestedTtlMs: number | undefined,
    work: TaskWork<R>,
    discard?: TaskDiscard<R>,
  ): Promise<TaskSnapshot<R>>;
  /** `owner`'s task `taskId`, or undefined (unknown, another owner's, or expired). */
  get(owner: string, taskId: string): Promise<TaskSnapshot<R> | undefined>;
  /** `owner`'s tasks, oldest first. */
  list(owner: string): Promise<TaskSnapshot<R>[]>;
  /**
   * Cancel `owner`'s working task (`cancelled` at once, its work aborted);
   * undefined when not the owner's; a finished task is returned unchanged.
   */
  cancel(owner: string, taskId: string): Promise<TaskSnapshot<R> | undefined>;
  /** `owner`'s task once it has ended, or undefined; rejects when `signal` aborts first. */
  settled(
    owner: string,
    taskId: string,
    signal?: AbortSignal,
  ): Promise<TaskSnapshot<R> | undefined>;
  /** Cancel the working tasks this process runs (shutdown); a second call does nothing. */
  close(): Promise<void>;
}
