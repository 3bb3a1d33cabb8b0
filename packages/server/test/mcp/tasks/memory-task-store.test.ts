/** The task store contract on the in-memory table (the default, one instance). */
import { TaskTable } from "../../../src/mcp/tasks/memory/task-table.js";
import { taskStoreContract } from "./task-store.contract.js";

taskStoreContract({
  name: "memory",
  async open(options) {
    return { store: new TaskTable<string>(options ?? {}), cleanup: async () => {} };
  },
});
