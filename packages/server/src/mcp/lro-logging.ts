/**
 * LRO events as MCP log notifications (logger `atlatl.lro`), each sent on the
 * tool call that caused it, through that call's own `ctx.mcpReq.log`: the SDK
 * applies the client's level (`logging/setLevel` on a 2025-11-25 connection;
 * on 2026-07-28 the request's `_meta` log level, and nothing at all for a
 * request without one). An event belongs to the call in whose async context
 * it was emitted (`AsyncLocalStorage`); events of no call (the sweeper's) are
 * only written to stderr by the hub's own sink. One listener per event hub,
 * for the life of the process: no server instance subscribes anything here.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { LroEvent, LroEvents } from "@atlatl/lro";
import type { LoggingLevel, ServerContext } from "@modelcontextprotocol/server";

const LEVELS: Record<LroEvent["type"], LoggingLevel> = {
  OffloadCreated: "info",
  OffloadFileExpired: "debug",
  OffloadWriteFailed: "warning",
  OffloadSweepCompleted: "debug",
};

/** The logger name of LRO's notifications. */
export const LRO_LOGGER = "atlatl.lro";

type CallLog = ServerContext["mcpReq"]["log"];

const callLogs = new AsyncLocalStorage<CallLog>();
const forwarded = new WeakSet<LroEvents>();

/** Send `events`' events to the log of the call that emitted them (idempotent per hub). */
export function forwardLroEvents(events: LroEvents): void {
  if (forwarded.has(events)) return;
  forwarded.add(events);
  events.on("*", (event) => {
    const log = callLogs.getStore();
    // A closed request or transport must not fail the call that emitted the event.
    if (log) void log(LEVELS[event.type], event, LRO_LOGGER).catch(() => {});
  });
}

/** Run `work` as the call whose log is `log` (`undefined`: a call nobody hears). */
export function withCallLog<T>(log: CallLog | undefined, work: () => T): T {
  return log ? callLogs.run(log, work) : callLogs.exit(work);
}
