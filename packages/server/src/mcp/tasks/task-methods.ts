/**
 * The task methods, served from atlatl's task table through the SDK's
 * documented custom-method form `Server.setRequestHandler(method, {params},
 * (params, ctx) => ...)` (SDK 2.x has no task runtime). Each answers in the
 * request's generation:
 *
 * - 2025-11-25: `tasks/get` (the `Task`), `tasks/result` (blocks until the
 *   task ends, then what the call would have answered), `tasks/list`,
 *   `tasks/cancel` (the cancelled `Task`).
 * - 2026-07-28, the tasks extension: `tasks/get` (the `DetailedTask`, its
 *   result or error inlined), `tasks/update` and `tasks/cancel` (empty
 *   acknowledgements). The SDK answers `tasks/result` and `tasks/list` with
 *   -32601 on that era (they do not exist there).
 *
 * Every method sees the caller's own tasks only: another owner's task id is
 * answered exactly like an unknown one. A 2026-07-28 request that does not
 * declare the extension is refused with -32021 naming it (SEP-2663: MUST).
 */
import { TASKS_EXTENSION } from "@atlatl/lro/node";
import {
  type CallToolResult,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { isModernRequest, requestDeclaresExtension } from "../client-facts.js";
import { isTerminal, type TaskSnapshot, type TaskStore } from "./task-store.js";
import { detailedTask, taskNotFound, wireTask } from "./task-wire.js";

/** Tasks per `tasks/list` page. */
const TASK_LIST_PAGE = 100;

/** The owner a request's tasks belong to. */
type TaskOwnerOf = (ctx: ServerContext) => string;

const byId = z.looseObject({ taskId: z.string() });
const listParams = z.looseObject({ cursor: z.string().optional() });
const updateParams = z.looseObject({
  taskId: z.string(),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
});

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = Number(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!Number.isSafeInteger(offset) || offset <= 0) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: ${cursor}`);
  }
  return offset;
}

/** What `tasks/result` answers for an ended task: what the call would have answered. */
function resultOf(taskId: string, snapshot: TaskSnapshot<CallToolResult>) {
  const outcome = snapshot.outcome;
  if (!outcome) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task ${taskId} was cancelled: it has no result`,
    );
  }
  if (outcome.kind === "error") {
    if (outcome.error instanceof ProtocolError) throw outcome.error;
    const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    throw new ProtocolError(ProtocolErrorCode.InternalError, message);
  }
  const result = outcome.value;
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/** Serve the task methods on `server` from `table`, each request's tasks being `ownerOf(ctx)`'s. */
export function mountTaskMethods(
  server: Server,
  table: TaskStore<CallToolResult>,
  ownerOf: TaskOwnerOf,
): void {
  const visible = async (taskId: string, ctx: ServerContext) => {
    if (isModernRequest(ctx) && !requestDeclaresExtension(ctx, TASKS_EXTENSION)) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `${ctx.mcpReq.method} needs the ${TASKS_EXTENSION} extension declared in the request's clientCapabilities`,
      );
    }
    const task = await table.get(ownerOf(ctx), taskId);
    if (!task) throw taskNotFound(taskId);
    return task;
  };
  server.setRequestHandler("tasks/get", { params: byId }, async ({ taskId }, ctx) => {
    const task = await visible(taskId, ctx);
    return isModernRequest(ctx) ? detailedTask(task) : wireTask(task);
  });
  server.setRequestHandler("tasks/cancel", { params: byId }, async ({ taskId }, ctx) => {
    const before = await visible(taskId, ctx);
    const modern = isModernRequest(ctx);
    // 2026-07-28: cancellation is cooperative and acknowledged even when too late.
    if (isTerminal(before.status)) {
      if (modern) return {};
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task ${taskId}: it is ${before.status} already`,
      );
    }
    const task = await table.cancel(ownerOf(ctx), taskId);
    if (!task) throw taskNotFound(taskId);
    return modern ? {} : wireTask(task);
  });
  // 2026-07-28: atlatl's tasks never ask for input, so no response is outstanding.
  server.setRequestHandler("tasks/update", { params: updateParams }, async ({ taskId }, ctx) => {
    await visible(taskId, ctx);
    return {};
  });
  // Blocks while the task works, as the specification asks; ends early when
  // the client cancels this request (or goes away).
  server.setRequestHandler("tasks/result", { params: byId }, async ({ taskId }, ctx) => {
    const task = await table.settled(ownerOf(ctx), taskId, ctx.mcpReq.signal);
    if (!task) throw taskNotFound(taskId);
    return resultOf(taskId, task);
  });
  server.setRequestHandler("tasks/list", { params: listParams }, async ({ cursor }, ctx) => {
    const offset = offsetOf(cursor);
    const all = await table.list(ownerOf(ctx));
    const end = offset + TASK_LIST_PAGE;
    return {
      tasks: all.slice(offset, end).map(wireTask),
      ...(end < all.length ? { nextCursor: Buffer.from(String(end)).toString("base64url") } : {}),
    };
  });
}
