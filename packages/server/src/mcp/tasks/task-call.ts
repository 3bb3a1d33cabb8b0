/**
 * A `tools/call` that runs as a task: the call is answered with the task
 * before its tool runs; the tool then runs detached with the task's own
 * signal, reports its progress into the task's status (`taskStatus`, read by
 * the progress middleware), and its `CallToolResult` becomes the task's
 * outcome (`failed` when the result is an `isError` one; the 2026-07-28 view
 * shows that as `completed`, see `task-wire.ts`). What a cancelled call still wrote (its offload files) is
 * removed by `discard`.
 *
 * Whether a call is a task: on 2026-07-28 when the request's envelope
 * declares the tasks extension (`io.modelcontextprotocol/tasks`), on
 * 2025-11-25 when the request carries `params.task`. Plain calls never are.
 */

import { basename, join } from "node:path";
import type { Offloader } from "@atlatl/lro/node";
import { TASKS_EXTENSION } from "@atlatl/lro/node";
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  type ResourceLink,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { isModernRequest, requestDeclaresExtension } from "../client-facts.js";
import type { ProgressContext } from "../progress.js";
import { TaskLimitError, type TaskRun, type TaskSnapshot, type TaskStore } from "./task-store.js";
import { modernTask, wireTask } from "./task-wire.js";

/** Where a server's task calls run as tasks. */
export interface ToolTasks {
  table: TaskStore<CallToolResult>;
  /** Whose tasks a request's are (its principal). */
  ownerOf: (ctx: ServerContext) => string;
  /** Remove what a result wrote, once its task was cancelled. */
  discard?: (result: CallToolResult) => Promise<void>;
}

/** How a call asks to run as a task: not at all, or in one generation's form (with its TTL). */
type TaskRequest = { era: "modern" } | { era: "legacy"; ttl: number | undefined } | undefined;

/** Whether the call of `params` with context `ctx` asks to run as a task, and how. */
export function taskRequestOf(params: { task?: unknown }, ctx: ServerContext): TaskRequest {
  if (isModernRequest(ctx)) {
    return requestDeclaresExtension(ctx, TASKS_EXTENSION) ? { era: "modern" } : undefined;
  }
  const task = params.task;
  if (typeof task !== "object" || task === null) return undefined;
  const ttl = (task as { ttl?: unknown }).ttl;
  return { era: "legacy", ttl: typeof ttl === "number" ? ttl : undefined };
}

const silent = async () => {};

/**
 * The context the detached tool gets: the task's signal and status; no
 * progress token, notifications or log of a request long answered (the
 * task's status says how far it got).
 */
function taskContext<C extends ServerContext>(ctx: C, run: TaskRun): C {
  const { progressToken: _answered, ...meta } = ctx.mcpReq._meta ?? {};
  const detached: C & ProgressContext = {
    ...ctx,
    mcpReq: { ...ctx.mcpReq, signal: run.signal, _meta: meta, notify: silent, log: silent },
    taskStatus: (message) => run.progress(message),
  };
  return detached;
}

/** The text of an `isError` result (its `CODE (field): message`). */
function errorText(result: CallToolResult): string | undefined {
  const first = result.content.find((c) => c.type === "text");
  return first?.type === "text" ? first.text : undefined;
}

/**
 * Create a task of the caller's for `call` and start it; the task as created.
 * A caller with too many tasks working gets a JSON-RPC error.
 */
async function startToolTask<C extends ServerContext>(
  tasks: ToolTasks,
  requestedTtl: number | undefined,
  ctx: C,
  call: (ctx: C) => Promise<CallToolResult>,
): Promise<TaskSnapshot<CallToolResult>> {
  const { discard } = tasks;
  try {
    return await tasks.table.start(
      tasks.ownerOf(ctx),
      requestedTtl,
      async (run) => {
        const result = await call(taskContext(ctx, run));
        const failed = result.isError === true;
        return {
          kind: "result",
          value: result,
          failed,
          message: failed ? errorText(result) : undefined,
        };
      },
      // Cancelled while it finished: the store drops the result; drop its files too.
      discard
        ? async (outcome) => {
            if (outcome.kind === "result") await discard(outcome.value);
          }
        : undefined,
    );
  } catch (err) {
    if (err instanceof TaskLimitError) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${err.code}: ${err.message}`, {
        code: err.code,
      });
    }
    throw err;
  }
}

/**
 * Start `call` as a task and answer in the request's generation: on
 * 2026-07-28 the `CreateTaskResult` (`resultType: "task"` and the task), on
 * 2025-11-25 `{ content: [], task }` (the SDK 2.x server asks for `content`
 * beside `task`).
 */
export async function answerWithTask<C extends ServerContext>(
  tasks: ToolTasks,
  request: NonNullable<TaskRequest>,
  ctx: C,
  call: (ctx: C) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const ttl = request.era === "legacy" ? request.ttl : undefined;
  const task = await startToolTask(tasks, ttl, ctx, call);
  // Typed as the tool result the SDK's handler map names; the SDK passes either shape on.
  if (request.era === "modern") {
    return { resultType: "task", ...modernTask(task) } as unknown as CallToolResult;
  }
  return { content: [], task: wireTask(task) } as unknown as CallToolResult;
}

/** `discard` for results of `offloader`: remove the files their resource links name. */
export function discardOffloads(offloader: Offloader): (result: CallToolResult) => Promise<void> {
  return async (result) => {
    const names = result.content
      .filter((c): c is ResourceLink => c.type === "resource_link")
      .map((c) => c.name)
      .filter((name) => name === basename(name));
    await offloader.removeFiles(names.map((name) => join(offloader.config.outputDir, name)));
  };
}
