/**
 * The proxy relays no tasks, of either generation: a task's result would
 * bypass LRO (and 2025 tasks and the 2026-07-28 tasks extension are two
 * protocols). Neither side hears of them from the proxy: the client's task
 * capabilities do not reach the upstream, the upstream's do not reach the
 * client, and `tasks/*` requests are refused (`downstream-server.ts`).
 */
import { TASKS_EXTENSION } from "@atlatl/lro/node";
import type { ClientCapabilities, ServerCapabilities } from "@modelcontextprotocol/server";

type WithTasks = { tasks?: unknown; extensions?: Record<string, unknown> };

/** `caps` without 2025 `tasks` and the 2026 tasks extension. */
export function withoutTasks<C extends ClientCapabilities | ServerCapabilities>(caps: C): C {
  const { tasks: _tasks, ...rest } = caps as C & WithTasks;
  const extensions = (rest as WithTasks).extensions;
  if (!extensions || !(TASKS_EXTENSION in extensions)) return rest as C;
  const { [TASKS_EXTENSION]: _extension, ...others } = extensions;
  return { ...rest, extensions: others } as C;
}
