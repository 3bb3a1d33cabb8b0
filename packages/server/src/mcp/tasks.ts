import type {
  CreateTaskOptions,
  CreateTaskRequestHandlerExtra,
  TaskRequestHandlerExtra,
  ToolTaskHandler,
} from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import type { ZodRawShapeCompat } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type {
  CallToolResult,
  Request,
  RequestId,
  Result,
  Task,
} from "@modelcontextprotocol/sdk/types.js";

/** How long a finished task's result is kept when the client asks no TTL. */
export const TASK_TTL_MS = 10 * 60 * 1000;

/**
 * The task store of an atlatl server: the SDK's in-memory store, plus a
 * hand-over slot for plain calls. The SDK answers a plain (not task-augmented)
 * call of an `optional` tool by asking the tool for a task, then reading that
 * task's result at once. Going through the real store for that cost every plain
 * call a stored task, an expiry timer and a `notifications/tasks/status` sent to
 * a client that never asked for a task; a handed-over result is instead kept
 * only until the SDK reads it, a moment later in the same call. Which call is
 * which, the store sees in `createTask`'s request (the SDK's `TaskStore`
 * interface passes it): a request without `params.task` is a plain call.
 */
export class AtlatlTaskStore extends InMemoryTaskStore {
  /** Pseudo-tasks of plain calls: their result once handed over. */
  private readonly handedOver = new Map<string, Result | undefined>();
  private next = 0;

  override async createTask(
    taskParams: CreateTaskOptions,
    requestId: RequestId,
    request: Request,
    sessionId?: string,
  ): Promise<Task> {
    if ((request.params as { task?: unknown } | undefined)?.task !== undefined) {
      return super.createTask(taskParams, requestId, request, sessionId);
    }
    const taskId = `plain-${++this.next}`;
    this.handedOver.set(taskId, undefined);
    return pseudoTask(taskId, "working");
  }

  /** True for the pseudo-task of a plain call. */
  isHandOver(taskId: string): boolean {
    return this.handedOver.has(taskId);
  }

  /** Complete a plain call's pseudo-task: the next `getTaskResult` returns `result` (once). */
  handOver(taskId: string, result: CallToolResult): Task {
    this.handedOver.set(taskId, result);
    return pseudoTask(taskId, result.isError ? "failed" : "completed");
  }

  override async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const result = this.handedOver.get(taskId);
    if (result === undefined) return super.getTaskResult(taskId, sessionId);
    this.handedOver.delete(taskId);
    return result;
  }
}

function pseudoTask(taskId: string, status: Task["status"]): Task {
  const now = new Date().toISOString();
  return { taskId, status, ttl: 0, createdAt: now, lastUpdatedAt: now };
}

/** What a task-capable tool runs: the composed tool callback. */
type ToolRun = (args: unknown, extra: unknown) => CallToolResult | Promise<CallToolResult>;

/**
 * MCP Tasks for a tool (the specification's "Relationship to MCP Tasks"), for
 * the SDK's documented `registerToolTask` with `taskSupport: "optional"`. The
 * call runs to its end inside `createTask` (a read tool is short), so a
 * task-augmented request gets an already completed task whose result (the
 * inline records, or the offload descriptor with its resource link)
 * `tasks/result` returns; a plain call gets its result handed over (see
 * {@link AtlatlTaskStore}).
 */
export function optionalTaskHandler(
  run: ToolRun,
  store: AtlatlTaskStore,
): ToolTaskHandler<ZodRawShapeCompat> {
  return {
    async createTask(args: unknown, extra: CreateTaskRequestHandlerExtra) {
      let result: CallToolResult;
      try {
        result = await run(args, extra);
      } catch (err) {
        result = { isError: true, content: [{ type: "text", text: (err as Error).message }] };
      }
      // The task is made once the result exists: the store expires a task `ttl`
      // after its creation whatever its state, so a call slower than the TTL
      // would lose its result.
      const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? TASK_TTL_MS });
      if (store.isHandOver(task.taskId)) return { task: store.handOver(task.taskId, result) };
      await extra.taskStore.storeTaskResult(
        task.taskId,
        result.isError ? "failed" : "completed",
        result,
      );
      return { task: await extra.taskStore.getTask(task.taskId) };
    },
    getTask: (_args: unknown, extra: TaskRequestHandlerExtra) =>
      extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args: unknown, extra: TaskRequestHandlerExtra) =>
      (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
  };
}
