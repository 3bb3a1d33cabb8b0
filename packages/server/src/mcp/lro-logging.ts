import type { LroEvent, LroEvents } from "@atlatl/lro";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";

const LEVELS: Record<LroEvent["type"], LoggingLevel> = {
  OffloadCreated: "info",
  OffloadFileExpired: "debug",
  OffloadWriteFailed: "warning",
  OffloadSweepCompleted: "debug",
};

/**
 * The `logging` capability: LRO events become `notifications/message` (logger
 * `atlatl.lro`), filtered by the level the client set with `logging/setLevel`
 * (the SDK applies it per session). `events` must be the hub of this client's
 * own work only, the offloader of its principal (over HTTP: every session of
 * one token) and the sweeper's reports on its directory: every event there is
 * this principal's, whatever it names, and no other principal's reaches it.
 * Routing is by owner, never by an event's path (a failure may have none).
 */
export function forwardLroEvents(server: McpServer, events: LroEvents): () => void {
  return events.on("*", (event) => {
    if (!server.isConnected()) return;
    void server.server
      .sendLoggingMessage(
        { level: LEVELS[event.type], logger: "atlatl.lro", data: event },
        server.server.transport?.sessionId,
      )
      .catch(() => {});
  });
}
