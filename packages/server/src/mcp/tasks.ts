import type {
  CreateTaskRequestHandlerExtra,
  TaskRequestHandlerExtra,
} from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, Result, Task } from "@modelcontextprotocol/sdk/types.js";

/** How long a finished task's result is kept when the client asks no TTL. */
export const TASK_TTL_MS = 10 * 60 * 1000;

/**
 * The task store of an atlatl server: the SDK's in-memory store, plus a
 * hand-over slot for plain calls. The SDK answers a plain (not task-augmented)
 * call of an `optional` tool by asking the tool for a task, then reading that
 * task's result at once. Going through the real store for that cost every plain
 * call a stored task, an expiry timer and a `notifications/tasks/status` sent to
 * a client that never asked for a task; a handed-over result is instead kept
 * only until the SDK reads it, a moment later in the same call.
 */
export class AtlatlTaskStore extends InMemoryTaskStore {
  private readonly handedOver = new Map<string, Result>();
  private next = 0;

  /** A completed pseudo-task whose result the next `getTaskResult` returns (once). */
  handOver(result: CallToolResult): Task {
    const taskId = `plain-${++this.next}`;
    this.handedOver.set(taskId, result);
    const now = new Date().toISOString();
    return {
      taskId,
      status: result.isError ? "failed" : "completed",
      ttl: 0,
      createdAt: now,
      lastUpdatedAt: now,
    };
  }

  override async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const result = this.handedOver.get(taskId);
    if (result === undefined) return super.getTaskResult(taskId, sessionId);
    this.handedOver.delete(taskId);
    return result;
  }
}

/**
 * MCP Tasks for a tool (the specification's "Relationship to MCP Tasks"):
 * declare `taskSupport: "optional"` and answer through the task store. The call
 * runs to its end inside `createTask` (a read tool is short), so a task-augmented
 * request gets an already completed task whose result (the inline records, or the
 * offload descriptor with its resource link) `tasks/result` returns; a plain call
 * gets its result handed over (see {@link AtlatlTaskStore}).
 */
export function taskOptional(
  tool: RegisteredTool,
  isTaskRequest: (id: string | number) => boolean,
  store: AtlatlTaskStore,
): void {
  const run = tool.handler as (args: unknown, extra: unknown) => Promise<CallToolResult>;
  tool.execution = { ...tool.execution, taskSupport: "optional" };
  const handler = {
    async createTask(args: unknown, extra: CreateTaskRequestHandlerExtra) {
      let result: CallToolResult;
      try {
        result = await run(args, extra);
      } catch (err) {
        result = { isError: true, content: [{ type: "text", text: (err as Error).message }] };
      }
      if (!isTaskRequest(extra.requestId)) return { task: store.handOver(result) };
      // The task is made once the result exists: the store expires a task `ttl`
      // after its creation whatever its state, so a call slower than the TTL
      // would lose its result.
      const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? TASK_TTL_MS });
      await extra.taskStore.storeTaskResult(
        task.taskId,
        result.isError ? "failed" : "completed",
        result,
      );
      return { task: await extra.taskStore.getTask(task.taskId) };
    },
    getTask: (_args: unknown, extra: TaskRequestHandlerExtra) =>
      extra.taskStore.getTask(extra.taskId),
    getTaskResult: (_args: unknown, extra: TaskRequestHandlerExtra) =>
      extra.taskStore.getTaskResult(extra.taskId),
  };
  tool.handler = handler as unknown as RegisteredTool["handler"];
}
