/** The task store contract on the in-memory table (the default, one instance). */
import { TaskTable } from "../../../src/mcp/tasks/memory/memory-task-store.js";
import { taskStoreContract } from "./task-store.contract.js";

taskStoreContract({
  name: "memory",
  async open(options) {
    return { store: new TaskTable<string>(options ?? {}), cleanup: async () => {} };
  },
});
