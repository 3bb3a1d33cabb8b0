/**
 * A task-augmented `tools/call` (2025-11-25): the call is answered with the
 * task (`CreateTaskResult`) before its tool runs; the tool then runs detached
 * with the task's own signal, reports its progress into the task's status
 * (`reportToTask`), and its `CallToolResult` becomes the task's outcome
 * (`failed` when the result is an `isError` one). What a cancelled call still
 * wrote (its offload files) is removed by `discard`.
 */
import { basename, join } from "node:path";
import type { Offloader } from "@atlatl/lro/node";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  McpError,
  type ResourceLink,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { reportToTask } from "../progress.js";
import { TaskLimitError, type TaskRun, type TaskTable } from "./task-table.js";
import { wireTask } from "./task-wire.js";

/** The SDK's `extra` of a tool call. */
export type ToolHandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How a server runs its task-capable tools as tasks. */
export interface ToolTasks {
  /** The tools that may run as tasks (`execution.taskSupport: "optional"`). */
  tools: ReadonlySet<string>;
  table: TaskTable<CallToolResult>;
  /** Whose tasks a request's are (its session today, its principal later). */
  ownerOf: (extra: ToolHandlerExtra) => string;
  /** Remove what a result wrote, once its task was cancelled. */
  discard?: (result: CallToolResult) => Promise<void>;
}

/** The `extra` the detached tool gets: the task's signal, no progress token of a request long answered. */
function taskExtra(extra: ToolHandlerExtra, run: TaskRun): ToolHandlerExtra {
  const { progressToken: _answered, ...meta } = extra._meta ?? {};
  const detached: ToolHandlerExtra = { ...extra, signal: run.signal, _meta: meta };
  reportToTask(detached, (message) => run.progress(message));
  return detached;
}

/** The text of an `isError` result (its `CODE (field): message`). */
function errorText(result: CallToolResult): string | undefined {
  const first = result.content.find((c) => c.type === "text");
  return first?.type === "text" ? first.text : undefined;
}

/**
 * Create a task of the caller's for `call` and start it; the `CreateTaskResult`
 * to answer with. A caller with too many tasks working gets a JSON-RPC error.
 */
export function startToolTask(
  tasks: ToolTasks,
  requestedTtl: number | undefined,
  extra: ToolHandlerExtra,
  call: (extra: ToolHandlerExtra) => Promise<CallToolResult>,
): CreateTaskResult {
  try {
    const task = tasks.table.start(tasks.ownerOf(extra), requestedTtl, async (run) => {
      const result = await call(taskExtra(extra, run));
      // Cancelled while it finished: the table drops the result; drop its files too.
      if (run.signal.aborted) await tasks.discard?.(result);
      const failed = result.isError === true;
      return {
        kind: "result",
        value: result,
        failed,
        message: failed ? errorText(result) : undefined,
      };
    });
    return { task: wireTask(task) };
  } catch (err) {
    if (err instanceof TaskLimitError) {
      throw new McpError(ErrorCode.InvalidRequest, err.message, { code: "BUSY" });
    }
    throw err;
  }
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
