import {
  frameStdioLines,
  messageTooLargeResponse,
  type OversizedLine,
  redactUrl,
  startSweeper,
} from "@atlatl/lro/node";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { App } from "../../app/open-app.js";
import type { InitializeFacts } from "../../mcp/client-facts.js";
import { createAtlatlServer } from "../../mcp/create-server.js";
import { createSharedExtraction } from "../../mcp/shared-extraction.js";
import { gateRequests } from "../request-gate.js";

/** Whose the tasks of the stdio connection are: its one client's. */
const STDIO_OWNER = "local";

/** Largest stdio message served: the SDK transport's own buffer limit. */
const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * The MCP server over this process's stdio, for 2026-07-28 and 2025-11-25
 * clients alike (the SDK's `serveStdio`: the connection's opening message
 * picks its protocol generation, and the server instance for it). stdout
 * carries only the protocol; logs and LRO events go to stderr. Exits when the
 * client closes stdin or on SIGINT/SIGTERM, after closing the app (its store).
 */
export function serveStdioApp(app: App): void {
  const { offload, store } = app.config;
  const sweeper = offload.enabled
    ? startSweeper({ dir: offload.outputDir, ttlSeconds: offload.ttlSeconds, events: app.events })
    : undefined;
  // One jq worker and parsed-file cache for every instance the connection gets.
  const extraction = createSharedExtraction();

  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    sweeper?.stop();
    await served.close().catch(() => {});
    await extraction.close().catch(() => {});
    await app.close().catch(() => {});
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  process.stdin.on("end", () => void shutdown(0));
  // The client closing its end of stdout is a disconnect, not a crash.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") process.stderr.write(`atlatl: stdout: ${err.message}\n`);
    void shutdown(err.code === "EPIPE" ? 0 : 1);
  });

  // An oversized message is dropped, logged and answered (when it was a request);
  // the session goes on. Exiting instead would cost the client its whole session
  // (and its other in-flight requests) for one bad message.
  const onOversized = (line: OversizedLine) => {
    const limit = `${MAX_MESSAGE_BYTES} bytes`;
    process.stderr.write(
      `atlatl: dropped a stdio message of ${line.bytes} bytes (limit ${limit})${line.id !== undefined ? ` for request ${JSON.stringify(line.id)}` : ""}; still serving\n`,
    );
    if (line.id === undefined) return;
    const response = messageTooLargeResponse(line.id, {
      reader: "atlatl",
      subject: "the request",
      bytes: line.bytes,
      maxBytes: MAX_MESSAGE_BYTES,
      advice: "Send less per call (e.g. split the content into several memories).",
    });
    void transport.send(response).catch(() => {});
  };
  // The connection's raw messages, read where we hold them: the `initialize` as
  // sent (its clientInfo.proxy) and each 2026-07-28 request's revision.
  const initialize: InitializeFacts = {};
  let clientName: string | undefined;
  const gate = gateRequests({
    onInitialize: (clientInfo) => {
      initialize.clientInfo = clientInfo;
    },
    onClientName: (name) => {
      clientName = name;
    },
    refuse: (response) => void transport.send(response).catch(() => {}),
    dropped: (why) => process.stderr.write(`atlatl: dropped a stdio notification (${why})\n`),
  });
  const transport = new StdioServerTransport(
    process.stdin.pipe(frameStdioLines(MAX_MESSAGE_BYTES, onOversized)).pipe(gate),
    process.stdout,
  );
  // The process's task store (`App.taskStore`): the connection's client owns its tasks.
  const tasks = { table: app.taskStore, owner: STDIO_OWNER };
  // Over stdio the offload files are on the client's machine (`filesLocal`);
  // the client's name is read per server, after the opening message set it.
  const server = () =>
    createAtlatlServer({ ...app, tasks, extraction, initialize, filesLocal: true, clientName });
  const served = serveStdio(() => server().server, {
    transport,
    // A closed stdout is the client going away: the stdout handler above ends quietly.
    onerror: (err) => {
      if ((err as NodeJS.ErrnoException).code === "EPIPE") return;
      process.stderr.write(`atlatl: stdio: ${err.message}\n`);
    },
  });
  process.stderr.write(
    `atlatl: serving MCP on stdio (${store.url ? `postgres ${redactUrl(store.url)}` : `db ${store.path}`}; LRO ${offload.enabled ? `on, threshold ${offload.thresholdTokens} tokens, files in ${offload.outputDir}` : "off"})\n`,
  );
}
