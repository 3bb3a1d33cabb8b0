/**
 * The task store factory: tasks are kept where the server's offload files are
 * (a task's result names one), so the offload store in use opens them
 * (`ServedOffloadStore.openTaskStore`): in memory beside local files, in the
 * shared PostgreSQL database beside shared ones.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ServedOffloadStore } from "../../offload-store/served-offload-store.js";
import { maxTaskTtlMs, type TaskStore } from "./task-store.js";

/** Options of {@link createTaskStore}. */
interface CreateTaskStoreOptions {
  /** The offload store the server serves from. */
  offloadStore: Pick<ServedOffloadStore, "openTaskStore">;
  /** The offload files' TTL: a task's result names one, so it is kept no longer. */
  offloadTtlSeconds: number;
}

/** The task store the server keeps its tasks in; its table created when missing. */
export function createTaskStore(
  options: CreateTaskStoreOptions,
): Promise<TaskStore<CallToolResult>> {
  return options.offloadStore.openTaskStore({ maxTtlMs: maxTaskTtlMs(options.offloadTtlSeconds) });
}
