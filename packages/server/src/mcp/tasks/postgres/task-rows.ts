/**
 * A `mcp_tasks` row as a task snapshot, and a task's outcome as the JSON kept
 * in the row. A result is kept as it is (a `CallToolResult` is JSON); an
 * error as the JSON-RPC error it is answered with, read back as a
 * `ProtocolError` so every instance answers it alike.
 */
import type { JsonRpcErrorObject } from "@atlatl/lro/node";
import { ProtocolError } from "@modelcontextprotocol/server";
import type { TaskOutcome, TaskSnapshot, TaskStatus } from "../task-store.js";
import { jsonRpcError } from "../task-wire.js";

/** The columns a snapshot is read from (in every SELECT and RETURNING). */
export const TASK_COLUMNS =
  "task_id, status, status_message, created_at, updated_at, ended_at, ttl_ms, poll_ms, outcome";

export interface TaskRow {
  task_id: string;
  status: TaskStatus;
  status_message: string | null;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
  ttl_ms: number;
  poll_ms: number;
  outcome: StoredOutcome | null;
}

type StoredOutcome =
  | { kind: "result"; value: unknown; failed: boolean; message?: string }
  | { kind: "error"; error: JsonRpcErrorObject };

/** `outcome` as the row keeps it (a JSON text for the `jsonb` parameter). */
export function outcomeJson<R>(outcome: TaskOutcome<R>): string {
  const stored: StoredOutcome =
    outcome.kind === "error"
      ? { kind: "error", error: jsonRpcError(outcome.error) }
      : {
          kind: "result",
          value: outcome.value,
          failed: outcome.failed,
          ...(outcome.message !== undefined ? { message: outcome.message } : {}),
        };
  return JSON.stringify(stored);
}

function outcomeOf<R>(stored: StoredOutcome | null): TaskOutcome<R> | undefined {
  if (!stored) return undefined;
  if (stored.kind === "error") {
    const { code, message, data } = stored.error;
    return { kind: "error", error: new ProtocolError(code, message, data) };
  }
  return {
    kind: "result",
    value: stored.value as R,
    failed: stored.failed,
    ...(stored.message !== undefined ? { message: stored.message } : {}),
  };
}

/** `row` as a snapshot. */
export function snapshotOf<R>(row: TaskRow): TaskSnapshot<R> {
  const outcome = outcomeOf<R>(row.outcome);
  return {
    taskId: row.task_id,
    status: row.status,
    ...(row.status_message !== null ? { statusMessage: row.status_message } : {}),
    createdAt: row.created_at.getTime(),
    lastUpdatedAt: row.updated_at.getTime(),
    ttlMs: row.ttl_ms,
    pollIntervalMs: row.poll_ms,
    ...(row.ended_at !== null ? { endedAt: row.ended_at.getTime() } : {}),
    ...(outcome ? { outcome } : {}),
  };
}
