import type {
  CreateTaskRequestHandlerExtra,
  TaskRequestHandlerExtra,
} from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** How long a finished task's result is kept when the client asks no TTL. */
export const TASK_TTL_MS = 10 * 60 * 1000;
/**
 * Plain (not task-augmented) calls also go through a task (the SDK's path for
 * `optional`); the SDK reads its result at once, so it is kept only briefly.
 */
export const PLAIN_CALL_TASK_TTL_MS = 5_000;

/**
 * MCP Tasks for a tool (the specification's "Relationship to MCP Tasks"):
 * declare `taskSupport: "optional"` and answer through the task store. The call
 * runs to its end inside `createTask` (a read tool is short), so a task-augmented
 * request gets an already completed task whose result (the inline records, or the
 * offload descriptor with its resource link) `tasks/result` returns; a plain call
 * takes the SDK's task path without waiting for a poll.
 */
export function taskOptional(
  tool: RegisteredTool,
  isTaskRequest: (id: string | number) => boolean,
  plainCallTtlMs: number = PLAIN_CALL_TASK_TTL_MS,
): void {
  const run = tool.handler as (args: unknown, extra: unknown) => Promise<CallToolResult>;
  tool.execution = { ...tool.execution, taskSupport: "optional" };
  const handler = {
    async createTask(args: unknown, extra: CreateTaskRequestHandlerExtra) {
      const ttl = isTaskRequest(extra.requestId)
        ? (extra.taskRequestedTtl ?? TASK_TTL_MS)
        : plainCallTtlMs;
      let result: CallToolResult;
      try {
        result = await run(args, extra);
      } catch (err) {
        result = { isError: true, content: [{ type: "text", text: (err as Error).message }] };
      }
      // The task is made once the result exists: the store expires a task `ttl`
      // after its creation whatever its state, so a call slower than the TTL
      // (a whole-set offload on a busy server) would lose its result.
      const task = await extra.taskStore.createTask({ ttl });
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
