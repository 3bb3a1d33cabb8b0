/**
 * LRO events as MCP log notifications (logger `atlatl.lro`), each sent on the
 * tool call that caused it, through that call's own `ctx.mcpReq.log`: the SDK
 * applies the client's level (`logging/setLevel` on a 2025-11-25 connection;
 * on 2026-07-28 the request's `_meta` log level, and nothing at all for a
 * request without one). The call's listener is handed explicitly to the LRO
 * calls that emit its events (`withOffload`'s and `registerLroExtract`'s
 * `eventListener`): no ambient async context, whose promise hooks would cost
 * every promise of the process. Events of no call (the sweeper's) are only
 * written to stderr by the hub's own sink.
 */
import type { LroEvent, LroEventListener } from "@atlatl/lro";
import type { LoggingLevel, ServerContext } from "@modelcontextprotocol/server";

const LEVELS: Record<LroEvent["type"], LoggingLevel> = {
  OffloadCreated: "info",
  OffloadFileExpired: "debug",
  OffloadWriteFailed: "warning",
  OffloadSweepCompleted: "debug",
};

/** The logger name of LRO's notifications. */
const LRO_LOGGER = "atlatl.lro";

/**
 * The listener that logs a call's LRO events to that call, from the tool
 * callback's arguments (the handler context, `ServerContext`, is the last);
 * undefined when the call has no log.
 */
export function callLogListener(...args: unknown[]): LroEventListener | undefined {
  const ctx = args.at(-1) as Partial<ServerContext> | undefined;
  const log = ctx?.mcpReq?.log;
  if (!log) return undefined;
  // A closed request or transport must not fail the call that emitted the event.
  return (event) => void log(LEVELS[event.type], event, LRO_LOGGER).catch(() => {});
}
