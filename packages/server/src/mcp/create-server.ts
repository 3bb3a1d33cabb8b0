import {
  AUTO_POLICY,
  offloadsLocally,
  registerLroExtract,
  registerOffloadResources,
  requestOffloadsLocally,
  withOffload,
} from "@atlatl/lro/mcp";
import type { Offloader } from "@atlatl/lro/node";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Services } from "../services/create-services.js";
import { ATLATL_VERSION } from "../version.js";
import { forwardLroEvents } from "./lro-logging.js";
import { progressDone } from "./progress.js";
import { registerPrompts } from "./prompts.js";
import { foreignFilesNotFound } from "./session-files.js";
import type { SharedExtraction } from "./shared-extraction.js";
import { discardOffloads } from "./tasks/task-call.js";
import { mountTaskMethods } from "./tasks/task-methods.js";
import { TASK_MAX_TTL_MS, TaskTable } from "./tasks/task-table.js";
import type { ToolContext } from "./tool-context.js";
import { compose, withToolErrors } from "./tool-middleware.js";
import { ToolRegistry } from "./tool-registry.js";
import { registerInjectContext } from "./tools/inject-context.js";
import { registerListMemories } from "./tools/list-memories.js";
import { registerMemoryCrud } from "./tools/memory-crud.js";
import { registerRecallMemories } from "./tools/recall-memories.js";
import { registerSearchMemories } from "./tools/search-memories.js";

export const SERVER_NAME = "atlatl";
export const SERVER_VERSION = ATLATL_VERSION;

/** Read tools that may run as MCP Tasks (`taskSupport: "optional"`). */
const TASK_TOOLS: ReadonlySet<string> = new Set(["recall_memories", "inject_context"]);

const INSTRUCTIONS = `atlatl is a memory server (MIF memories: semantic, episodic, procedural).
Read tools (recall_memories, search_memories, list_memories, inject_context) return small results inline.
Large results are offloaded: you get {"offloaded": true, "file_path": ..., "summary", "line_schema", "jq_recipes", "guidance"}.
Query the file with a shell (tail -n +2 FILE | jq ...) or with the lro_extract tool; it is also readable as an MCP resource.`;

export interface AtlatlServer {
  server: McpServer;
  /** Stop the extraction worker and close the MCP server (the store is the caller's). */
  close(): Promise<void>;
}

export interface AtlatlServerDeps {
  services: Services;
  /** The LRO engine of this server (an HTTP session's is its principal's, writing to the principal's directory). */
  offloader: Offloader;
  /**
   * The jq worker and parsed-file cache shared by every session of the process
   * (the caller closes it). Default: the server's own, closed with it.
   */
  extraction?: SharedExtraction;
  /** The offloader's directory is this principal's own: other paths are "not found". */
  principalScoped?: boolean;
  /**
   * Who the client is (an HTTP token's principal): the shared jq engine shares its workers
   * fairly between principals, so one cannot starve another's `lro_extract`.
   */
  principal?: string;
  /**
   * Largest whole result set, in bytes of JSON text, a proxy client gets inline
   * (`[server.http] proxy_inline_bytes`); the rest is cut with a notice. Default: no bound.
   */
  proxyInlineBytes?: number;
  /**
   * The task table this server's tasks live in and the owner they belong to
   * (a process-wide table keyed by principal). Default: a table of this
   * server's own (its session's), closed with it.
   */
  tasks?: { table: TaskTable<CallToolResult>; owner: string };
}

/**
 * The read tools' LRO middleware: the response boundary with the offloader's
 * policy, or, for a client that declared it offloads locally (an LRO proxy's
 * `LRO_PROXY_CAPABILITY`), `whole-set-inline`: every match comes back for the
 * client to judge and write on its own disk. Decided per call: from the
 * capabilities of `initialize` (the SDK's documented
 * `Server.getClientCapabilities()`) or those the request carries in `_meta`
 * (the handler's `extra`, its last argument).
 */
function negotiatedOffload(
  server: McpServer,
  offloader: Offloader,
  maxInlineBytes: number | undefined,
): ToolContext["offload"] {
  const lro = withOffload({
    offloader,
    resourceLinks: offloader.config.enabled,
    policy: (...args) =>
      offloadsLocally(server.server.getClientCapabilities()) ||
      requestOffloadsLocally((args.at(-1) as { _meta?: unknown } | undefined)?._meta)
        ? { mode: "whole-set-inline", maxInlineBytes }
        : AUTO_POLICY,
  });
  return (next) => {
    const respond = lro(next);
    return async (...args) => {
      const result = await respond(...args);
      await progressDone(args);
      return result;
    };
  };
}

/**
 * The atlatl MCP server: memory tools, each read tool behind the LRO middleware,
 * and, when offloading is enabled, `lro_extract` and offload files as resources.
 */
export function createAtlatlServer(deps: AtlatlServerDeps): AtlatlServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions: INSTRUCTIONS,
      capabilities: {
        tools: {},
        resources: {},
        prompts: {},
        completions: {},
        logging: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
    },
  );
  const lroEnabled = deps.offloader.config.enabled;
  // Every tool, ours and lro_extract: thrown errors reach the client with code and field.
  // A task's result names its offload file: it is kept no longer than the file.
  const tasks = deps.tasks ?? {
    table: new TaskTable<CallToolResult>({
      maxTtlMs: Math.min(TASK_MAX_TTL_MS, deps.offloader.config.ttlSeconds * 1000),
    }),
    owner: deps.principal ?? "local",
  };
  const tools = new ToolRegistry([withToolErrors], {
    tools: TASK_TOOLS,
    table: tasks.table,
    ownerOf: () => tasks.owner,
    discard: discardOffloads(deps.offloader),
  });
  mountTaskMethods(server.server, tasks.table, () => tasks.owner);
  const ctx: ToolContext = {
    services: deps.services,
    offload: negotiatedOffload(server, deps.offloader, deps.proxyInlineBytes),
    registerTool: tools.register,
  };
  registerMemoryCrud(ctx);
  registerRecallMemories(ctx);
  registerSearchMemories(ctx);
  registerListMemories(ctx);
  registerInjectContext(ctx);
  registerPrompts(server, deps.services);

  const closers: (() => Promise<void>)[] = [];
  // The offloader's hub carries this client's events only (an HTTP principal's own).
  const stopLogging = forwardLroEvents(server, deps.offloader.events);
  closers.push(async () => stopLogging());
  if (!deps.tasks) closers.push(async () => tasks.table.close());
  if (!lroEnabled) tools.mount(server.server);
  if (lroEnabled) {
    const dir = deps.offloader.config.outputDir;
    // lro_extract on the low-level server, atlatl's tools served beside it.
    const extract = registerLroExtract(server.server, {
      upstream: tools,
      offloader: deps.offloader,
      resourceLinks: true,
      ...(deps.principal !== undefined ? { principal: deps.principal } : {}),
      middleware: compose(
        withToolErrors,
        ...(deps.principalScoped ? [foreignFilesNotFound(dir)] : []),
      ),
      ...(deps.extraction ? { engine: deps.extraction.engine, cache: deps.extraction.cache } : {}),
    });
    // One parsed-file cache for extraction and resource reads; offloader events
    // drive `resources/list_changed` when files appear or expire.
    const resources = registerOffloadResources(server, {
      ResourceTemplate,
      config: deps.offloader.config,
      cache: extract.extractor.cache,
      events: deps.offloader.events,
      store: deps.offloader.store,
    });
    closers.push(async () => resources.close());
    closers.push(() => extract.close());
  }
  return {
    server,
    async close() {
      // Disconnect first: unregistering tools and resources on a connected server
      // would tell the client they changed, while it is only going away.
      await server.close();
      for (const close of closers) await close();
    },
  };
}
