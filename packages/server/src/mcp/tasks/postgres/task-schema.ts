/**
 * The shared task table (`mcp_tasks`), beside the memories and the offload
 * files in the same database and schema. One row per task: whose it is, its
 * status and message, its timestamps, TTL and poll interval, and its outcome
 * as JSON once it has one. Every timestamp is the database's `now()`, so
 * instances whose clocks differ still agree on a task's times and expiry.
 */
import type pg from "pg";
import { ensureTables } from "../../../store/postgres/ensure-tables.js";

const DDL = `
CREATE TABLE IF NOT EXISTS mcp_tasks (
  principal      text        NOT NULL,
  task_id        text        NOT NULL,
  status         text        NOT NULL,
  status_message text,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  ended_at       timestamptz,
  -- ended_at + ttl_ms: when a finished task goes (NULL while it works).
  expires_at     timestamptz,
  ttl_ms         bigint      NOT NULL CHECK (ttl_ms >= 0),
  poll_ms        integer     NOT NULL,
  -- Refreshed by the running instance every poll interval: a working task whose
  -- heartbeat stopped lost its instance (kill -9) and is failed when read.
  heartbeat_at   timestamptz NOT NULL,
  outcome        jsonb,
  PRIMARY KEY (principal, task_id)
);
CREATE INDEX IF NOT EXISTS mcp_tasks_listing ON mcp_tasks (principal, created_at, task_id);
CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON mcp_tasks (expires_at);
`;

/** Create the table when missing (idempotent; serialized across instances). */
export function ensureTaskSchema(pool: pg.Pool): Promise<void> {
  return ensureTables(pool, "tasks", DDL);
}
