/**
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` (2025-11-25)
 * served from atlatl's task table through the SDK's documented
 * `Server.setRequestHandler`. Every method sees the caller's own tasks only:
 * another owner's task id is answered exactly like an unknown one.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolHandlerExtra } from "./task-call.js";
import { isTerminal, type TaskTable } from "./task-table.js";
import { taskNotFound, wireTask } from "./task-wire.js";

/** Tasks per `tasks/list` page. */
export const TASK_LIST_PAGE = 100;

/** The owner a request's tasks belong to. */
export type TaskOwnerOf = (extra: ToolHandlerExtra) => string;

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = Number(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!Number.isSafeInteger(offset) || offset <= 0) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${cursor}`);
  }
  return offset;
}

/** What `tasks/result` answers for an ended task: what the call would have answered. */
function resultOf(taskId: string, snapshot: ReturnType<TaskTable<CallToolResult>["get"]>) {
  const outcome = snapshot?.outcome;
  if (!outcome) {
    throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} was cancelled: it has no result`);
  }
  if (outcome.kind === "error") {
    if (outcome.error instanceof McpError) throw outcome.error;
    const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    throw new McpError(ErrorCode.InternalError, message);
  }
  const result = outcome.value;
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/** Serve the task methods on `server` from `table`, each request's tasks being `ownerOf(extra)`'s. */
export function mountTaskMethods(
  server: Server,
  table: TaskTable<CallToolResult>,
  ownerOf: TaskOwnerOf,
): void {
  server.setRequestHandler(GetTaskRequestSchema, (request, extra) => {
    const { taskId } = request.params;
    const task = table.get(ownerOf(extra), taskId);
    if (!task) throw taskNotFound(taskId);
    return wireTask(task);
  });
  // Blocks while the task works, as the specification asks; ends early when
  // the client cancels this request (or goes away).
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    const task = await table.settled(ownerOf(extra), taskId, extra.signal);
    if (!task) throw taskNotFound(taskId);
    return resultOf(taskId, task);
  });
  server.setRequestHandler(ListTasksRequestSchema, (request, extra) => {
    const offset = offsetOf(request.params?.cursor);
    const all = table.list(ownerOf(extra));
    const end = offset + TASK_LIST_PAGE;
    return {
      tasks: all.slice(offset, end).map(wireTask),
      ...(end < all.length ? { nextCursor: Buffer.from(String(end)).toString("base64url") } : {}),
    };
  });
  server.setRequestHandler(CancelTaskRequestSchema, (request, extra) => {
    const { taskId } = request.params;
    const owner = ownerOf(extra);
    const before = table.get(owner, taskId);
    if (!before) throw taskNotFound(taskId);
    if (isTerminal(before.status)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Cannot cancel task ${taskId}: it is ${before.status} already`,
      );
    }
    const task = table.cancel(owner, taskId);
    if (!task) throw taskNotFound(taskId);
    return wireTask(task);
  });
}
