/**
 * The table's tasks as each protocol generation shows them.
 *
 * - 2025-11-25 (`Task`): `ttl` and `pollInterval`; a tool result with
 *   `isError` makes the task `failed` (its result stays readable through
 *   `tasks/result`).
 * - 2026-07-28, the `io.modelcontextprotocol/tasks` extension (SEP-2663):
 *   `ttlMs` and `pollIntervalMs`; `tasks/get` inlines the outcome (a
 *   `completed` task's `result`, a `failed` one's JSON-RPC `error`); a tool
 *   result with `isError` is a `completed` task (`failed` is for JSON-RPC
 *   errors only).
 *
 * The TTL shown is the one the task was given; atlatl counts it from the
 * task's end, so a task is kept at least as long as the specification's
 * reading (from creation) promises.
 */
import { type JsonRpcErrorObject, jsonRpcErrorObject } from "@atlatl/lro/node";
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  type Task,
} from "@modelcontextprotocol/server";
import type { TaskSnapshot } from "./task-store.js";

/** `snapshot` as a 2025-11-25 `Task`. */
export function wireTask(snapshot: TaskSnapshot): Task {
  return {
    taskId: snapshot.taskId,
    status: snapshot.status,
    ...(snapshot.statusMessage !== undefined ? { statusMessage: snapshot.statusMessage } : {}),
    createdAt: new Date(snapshot.createdAt).toISOString(),
    lastUpdatedAt: new Date(snapshot.lastUpdatedAt).toISOString(),
    ttl: snapshot.ttlMs,
    pollInterval: snapshot.pollIntervalMs,
  };
}

/** A 2026-07-28 task (SEP-2663 `Task`). */
type ModernTask = {
  taskId: string;
  status: Task["status"];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
};

/** `error` as the JSON-RPC error it is (or becomes: anything else is an internal error). */
export function jsonRpcError(error: unknown): JsonRpcErrorObject {
  if (error instanceof ProtocolError) return jsonRpcErrorObject(error);
  const message = error instanceof Error ? error.message : String(error);
  return { code: ProtocolErrorCode.InternalError, message };
}

/** `snapshot` as a 2026-07-28 `Task` (what `tools/call` answers with, `resultType: "task"`). */
export function modernTask(snapshot: TaskSnapshot<CallToolResult>): ModernTask {
  const outcome = snapshot.outcome;
  // A tool error is a result: the call completed (SEP-2663, Task Status).
  const status =
    snapshot.status === "failed" && outcome?.kind === "result" ? "completed" : snapshot.status;
  return {
    taskId: snapshot.taskId,
    status,
    ...(snapshot.statusMessage !== undefined ? { statusMessage: snapshot.statusMessage } : {}),
    createdAt: new Date(snapshot.createdAt).toISOString(),
    lastUpdatedAt: new Date(snapshot.lastUpdatedAt).toISOString(),
    ttlMs: snapshot.ttlMs,
    pollIntervalMs: snapshot.pollIntervalMs,
  };
}

/** `snapshot` as a 2026-07-28 `DetailedTask`: the task with its result or error inlined. */
export function detailedTask(
  snapshot: TaskSnapshot<CallToolResult>,
): ModernTask & { result?: CallToolResult; error?: JsonRpcErrorObject } {
  const task = modernTask(snapshot);
  const outcome = snapshot.outcome;
  if (outcome?.kind === "result") return { ...task, result: outcome.value };
  if (outcome?.kind === "error") return { ...task, error: jsonRpcError(outcome.error) };
  return task;
}

/** The one answer for a task id the caller cannot see (unknown, another owner's, expired). */
export function taskNotFound(taskId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Failed to retrieve task: Task not found (${taskId})`,
  );
}
