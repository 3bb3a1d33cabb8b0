/**
 * The task store factory: in memory (one instance: the default) or in the
 * shared PostgreSQL database when the offload store is shared (`[offload_store]
 * backend = "postgres"`), so that a task's handle, like its offload file, is
 * good on every instance. The PostgreSQL driver is imported only when chosen.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { PostgresTimeouts } from "../../store/postgres/pool-timeouts.js";
import { TaskTable } from "./memory/task-table.js";
import { maxTaskTtlMs, type TaskStore } from "./task-store.js";

/** Options of {@link createTaskStore}. */
export interface CreateTaskStoreOptions {
  /** Whether the tasks are shared: `app.offloadStore.kind === "postgres"`. */
  shared: boolean;
  /** The memory store's PostgreSQL URL (the shared store's database). */
  url?: string | null | undefined;
  /** Its connect and statement bounds (`[store]`). */
  timeouts?: PostgresTimeouts | undefined;
  /** The offload files' TTL: a task's result names one, so it is kept no longer. */
  offloadTtlSeconds: number;
}

/** The task store `atlatl serve --http` keeps its tasks in; its table created when missing. */
export async function createTaskStore(
  options: CreateTaskStoreOptions,
): Promise<TaskStore<CallToolResult>> {
  const maxTtlMs = maxTaskTtlMs(options.offloadTtlSeconds);
  if (!options.shared) return new TaskTable<CallToolResult>({ maxTtlMs });
  const { openPostgresTaskStore } = await import("./postgres/open-postgres-task-store.js");
  return openPostgresTaskStore<CallToolResult>({
    url: options.url ?? "",
    maxTtlMs,
    timeouts: options.timeouts,
  });
}
