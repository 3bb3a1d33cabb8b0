/**
 * An offload store as atlatl serves from it: the `OffloadStore` of
 * `@atlatl/lro`, and where the server's MCP tasks are kept beside its files.
 * A task's result names an offload file, so a task's handle must be good
 * wherever its file is: each implementation opens the task store that reaches
 * as far as its files (the process's memory beside local files, PostgreSQL
 * beside shared ones). Callers never ask which implementation they hold.
 */
import { localOffloadStore, type OffloadStore } from "@atlatl/lro/node";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { TaskTable } from "../mcp/tasks/memory/memory-task-store.js";
import type { TaskStore, TaskStoreOptions } from "../mcp/tasks/task-store.js";

/** See the module comment. */
export interface ServedOffloadStore extends OffloadStore {
  /** Open the task store kept where this store's files are (the caller closes it). */
  openTaskStore(options: TaskStoreOptions): Promise<TaskStore<CallToolResult>>;
}

/** The local file system (`localOffloadStore`), its tasks in the process's memory. */
export const localServedStore: ServedOffloadStore = {
  ...localOffloadStore,
  openTaskStore: async (options) => new TaskTable<CallToolResult>(options),
};
