/**
 * Tasks on the 2025-11-25 wire (SDK 1.x `Task`): the table's records as the
 * protocol shows them. `ttl` is the TTL the task was given; atlatl counts it
 * from the task's end, so a task is kept at least as long as the
 * specification's reading (from creation) promises.
 */
import { ErrorCode, McpError, type Task } from "@modelcontextprotocol/sdk/types.js";
import type { TaskSnapshot } from "./task-table.js";

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

/** The one answer for a task id the caller cannot see (unknown, another owner's, expired). */
export function taskNotFound(taskId: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Failed to retrieve task: Task not found (${taskId})`,
  );
}
