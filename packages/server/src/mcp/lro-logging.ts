import { dirname } from "node:path";
import type { LroEvent, LroEvents } from "@atlatl/lro";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";

const LEVELS: Record<LroEvent["type"], LoggingLevel> = {
  OffloadCreated: "info",
  OffloadFileExpired: "debug",
  OffloadWriteFailed: "warning",
  OffloadSweepCompleted: "debug",
};

/** The directory an event is about (a file's, or a sweep's), if any. */
function eventDir(event: LroEvent): string | undefined {
  if ("path" in event) return event.path ? dirname(event.path) : undefined;
  return "dir" in event ? event.dir : undefined;
}

/**
 * The `logging` capability: LRO events of this server's offload directory
 * become `notifications/message` (logger `atlatl.lro`), filtered by the level the
 * client set with `logging/setLevel` (the SDK applies it per session). Events of
 * other sessions' directories are not this client's business and are not sent.
 */
export function forwardLroEvents(
  server: McpServer,
  events: LroEvents,
  outputDir: string,
): () => void {
  return events.on("*", (event) => {
    const dir = eventDir(event);
    if (dir !== undefined && dir !== outputDir) return;
    if (!server.isConnected()) return;
    void server.server
      .sendLoggingMessage(
        { level: LEVELS[event.type], logger: "atlatl.lro", data: event },
        server.server.transport?.sessionId,
      )
      .catch(() => {});
  });
}
