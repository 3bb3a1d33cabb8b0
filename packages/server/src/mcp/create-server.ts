import {
  AUTO_POLICY,
  OFFLOAD_LIST_CACHE,
  registerLroExtract,
  registerOffloadResources,
  withOffload,
} from "@atlatl/lro/mcp";
import type { Offloader } from "@atlatl/lro/node";
import { TASKS_EXTENSION } from "@atlatl/lro/node";
import {
  type CallToolResult,
  McpServer,
  ResourceTemplate,
  type ServerOptions,
} from "@modelcontextprotocol/server";
import {
  jqOnPath,
  listsExtractTool,
  type OffloadResourcesMode,
  servesOffloadResources,
} from "atlatl-proxy/install";
import type { Services } from "../services/create-services.js";
import { ATLATL_VERSION } from "../version.js";
import {
  clientName,
  type FactsContext,
  type InitializeFacts,
  type ToolCallContext,
} from "./client-facts.js";
import { callLogListener } from "./lro-logging.js";
import { withProgress } from "./progress.js";
import { atlatlPrompts, type RegisterPrompts } from "./prompts.js";
import { foreignFilesNotFound } from "./session-files.js";
import type { SharedExtraction } from "./shared-extraction.js";
import { TaskTable } from "./tasks/memory/memory-task-store.js";
import { discardOffloads, type ToolTasks } from "./tasks/task-call.js";
import { mountTaskMethods } from "./tasks/task-methods.js";
import { maxTaskTtlMs, type TaskStore } from "./tasks/task-store.js";
import type { ToolContext } from "./tool-context.js";
import { compose, withToolErrors } from "./tool-middleware.js";
import { ToolRegistry } from "./tool-registry.js";
import { registerInjectContext } from "./tools/inject-context.js";
import { registerListMemories } from "./tools/list-memories.js";
import { registerMemoryCrud } from "./tools/memory-crud.js";
import { registerRecallMemories } from "./tools/recall-memories.js";
import { registerSearchMemories } from "./tools/search-memories.js";

export const SERVER_NAME = "atlatl";
const SERVER_VERSION = ATLATL_VERSION;

/** Read tools that may run as MCP Tasks (`taskSupport: "optional"`). */
const TASK_TOOLS: ReadonlySet<string> = new Set(["recall_memories", "inject_context"]);

/**
 * How long a 2026-07-28 client may cache `tools/list`, `prompts/list` and
 * `server/discover`: atlatl's tools, prompts and capabilities are the same for
 * every caller and never change while the process runs, so they are `public`.
 */
export const LIST_TTL_MS = 60_000;

/**
 * Cache fields of the list results (2026-07-28; 2025-11-25 responses carry
 * none). Resource lists are the caller's own offload files, which come and go:
 * `private`, not to be reused. An offload file's `resources/read` carries its
 * own fields (its remaining life, from @atlatl/lro).
 */
const CACHE_HINTS: NonNullable<ServerOptions["cacheHints"]> = {
  "server/discover": { ttlMs: LIST_TTL_MS, cacheScope: "public" },
  "tools/list": { ttlMs: LIST_TTL_MS, cacheScope: "public" },
  "prompts/list": { ttlMs: LIST_TTL_MS, cacheScope: "public" },
  // The offload files come and go: LRO's rule for their lists.
  "resources/list": OFFLOAD_LIST_CACHE,
  "resources/templates/list": OFFLOAD_LIST_CACHE,
};

/** The server's instructions; they name `lro_extract` only where it is listed. */
function instructions(extractTool: boolean): string {
  return `atlatl is a memory server (MIF memories: semantic, episodic, procedural).
Read tools (recall_memories, search_memories, list_memories, inject_context) return small results inline.
Large results are offloaded: you get {"offloaded": true, "file_path": ..., "summary", "line_schema", "jq_recipes", "guidance"}.
Query the file with a shell (tail -n +2 FILE | jq ...)${extractTool ? " or with the lro_extract tool" : ""}; it is also readable as an MCP resource.`;
}

export interface AtlatlServer {
  server: McpServer;
  /**
   * Close the MCP server; what it holds (its extraction worker when not
   * shared, its own task table, its event listeners) is released with it, as
   * when the SDK closes it (`createMcpHandler` closes each request's
   * instance). The store is the caller's.
   */
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
   * The connection's `initialize` as the client sent it, read by the transport
   * layer (stdio, an HTTP session): its `clientInfo.proxy`, which the SDK drops.
   */
  initialize?: InitializeFacts;
  /**
   * The offload files are on the client's machine (stdio): `lro_extract` may
   * be left out for a client that runs the recipes in its own shell
   * (`prompt.offload.extract_tool = "auto"`). Default false (HTTP: the client
   * may be remote, and a principal's sessions share one offloader, whose
   * guidance names the tool).
   */
  filesLocal?: boolean;
  /** The client's `clientInfo.name` from the connection's opening message (stdio), of either era. */
  clientName?: string | undefined;
  /**
   * The task table this server's tasks live in and the owner they belong to
   * (a process-wide table keyed by principal). Default: a table of this
   * server's own (its session's), closed with it.
   */
  tasks?: { table: TaskStore<CallToolResult>; owner: string };
  /** Called once, when what the server holds has been released (a count of live servers). */
  onReleased?: () => void;
  /**
   * Whether a descriptor (and a re-offloaded `lro_extract` output) carries a
   * `resource_link` to its file: `auto` (the default) decides per client by
   * its `clientInfo.name`, as atlatl-proxy's `proxy.offload_resources` does
   * (none for a client whose agent reads files with a shell: the link is ~75
   * o200k tokens of every descriptor, `npm run bench descriptor-tokens`);
   * `on` or `off` force it.
   */
  resourceLinks?: OffloadResourcesMode;
}

/**
 * The read tools' LRO middleware: the response boundary with the offloader's
 * policy, or, for a client that offloads locally (an LRO proxy: see
 * `client-facts.ts`), `whole-set-inline`: every match comes back for the
 * client to judge and write on its own disk. Decided per call, from what
 * that request says about its client (`ToolCallContext`).
 */
function negotiatedOffload(
  offloader: Offloader,
  maxInlineBytes: number | undefined,
  links: OffloadResourcesMode,
): ToolContext["offload"] {
  const contextOf = (args: readonly unknown[]) => args.at(-1) as ToolCallContext;
  const lro = withOffload({
    offloader,
    resourceLinks: (...args) =>
      offloader.config.enabled && servesOffloadResources(links, contextOf(args).clientName),
    // The call's LRO events go to its own log.
    eventListener: callLogListener,
    policy: (...args) =>
      contextOf(args).offloadsLocally
        ? {
            mode: "whole-set-inline",
            maxInlineBytes,
            maxInlineBytesSetting: "[server.http] proxy_inline_bytes",
          }
        : AUTO_POLICY,
  });
  // Progress outside LRO: `done` once the response is ready, whatever it became.
  return (next) => withProgress(lro(next));
}

/** What every server instance of one principal shares: built once, mounted per instance. */
interface SharedParts {
  services: Services;
  proxyInlineBytes: number | undefined;
  resourceLinks: OffloadResourcesMode;
  tools: ToolRegistry;
  prompts: RegisterPrompts;
}

/**
 * The shared parts for `deps`, by its offloader (one per principal): the tool
 * schemas, their JSON Schemas and the composed middleware are the costly part
 * of an instance, and a modern HTTP request gets an instance of its own.
 */
const sharedByOffloader = new WeakMap<Offloader, SharedParts>();

function sharedParts(deps: AtlatlServerDeps): SharedParts {
  const links = deps.resourceLinks ?? "auto";
  const known = sharedByOffloader.get(deps.offloader);
  if (
    known?.services === deps.services &&
    known.proxyInlineBytes === deps.proxyInlineBytes &&
    known.resourceLinks === links
  ) {
    return known;
  }
  // Every tool, ours and lro_extract: thrown errors reach the client with code and field.
  const tools = new ToolRegistry([withToolErrors], TASK_TOOLS);
  const ctx: ToolContext = {
    services: deps.services,
    offload: negotiatedOffload(deps.offloader, deps.proxyInlineBytes, links),
    registerTool: tools.register,
  };
  registerMemoryCrud(ctx);
  registerRecallMemories(ctx);
  registerSearchMemories(ctx);
  registerListMemories(ctx);
  registerInjectContext(ctx);
  const parts: SharedParts = {
    services: deps.services,
    proxyInlineBytes: deps.proxyInlineBytes,
    resourceLinks: links,
    tools,
    prompts: atlatlPrompts(deps.services),
  };
  sharedByOffloader.set(deps.offloader, parts);
  return parts;
}

/**
 * The atlatl MCP server: memory tools, each read tool behind the LRO middleware,
 * and, when offloading is enabled, `lro_extract` and offload files as resources.
 * Cheap to make (the tools are built once per principal, see `sharedParts`):
 * a modern HTTP request gets an instance of its own.
 */
export function createAtlatlServer(deps: AtlatlServerDeps): AtlatlServer {
  const lroEnabled = deps.offloader.config.enabled;
  const filesLocal = deps.filesLocal === true;
  const extractTool =
    lroEnabled &&
    listsExtractTool(deps.offloader.config.extractTool ?? "auto", deps.clientName, {
      filesLocal,
      jq: filesLocal && jqOnPath(),
    });
  // The offloader's guidance names the tool only where it is listed.
  if (!extractTool) deps.offloader.nativeExtraction = false;
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions: instructions(extractTool),
      // No `tools` here: McpServer would install its own tools handlers; the
      // ToolRegistry (or lro_extract beside it) serves them (mounted below).
      capabilities: {
        resources: {},
        prompts: {},
        completions: {},
        logging: {},
        // 2025-11-25 tasks; the 2026-07-28 tasks extension.
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        extensions: { [TASKS_EXTENSION]: {} },
      },
      cacheHints: CACHE_HINTS,
    },
  );
  server.server.registerCapabilities({ tools: {} });
  const shared = sharedParts(deps);
  // A task's result names its offload file: it is kept no longer than the file.
  const table =
    deps.tasks?.table ??
    new TaskTable<CallToolResult>({
      maxTtlMs: maxTaskTtlMs(deps.offloader.config.ttlSeconds),
    });
  const owner = deps.tasks?.owner ?? deps.principal ?? "local";
  const tasks: ToolTasks = {
    table,
    ownerOf: () => owner,
    discard: discardOffloads(deps.offloader),
  };
  mountTaskMethods(server.server, table, () => owner);
  shared.prompts(server);

  const closers: (() => Promise<void>)[] = [];
  if (!deps.tasks) closers.push(async () => await table.close());
  if (!extractTool) shared.tools.mount(server.server, tasks, deps.initialize);
  if (lroEnabled && !extractTool) {
    const resources = registerOffloadResources(server, {
      ResourceTemplate,
      config: deps.offloader.config,
      events: deps.offloader.events,
      store: deps.offloader.store,
    });
    closers.push(async () => resources.close());
  }
  if (extractTool) {
    const dir = deps.offloader.config.outputDir;
    // lro_extract on the low-level server, atlatl's tools served beside it.
    const extract = registerLroExtract(server.server, {
      upstream: shared.tools.upstreamFor(server.server, tasks, deps.initialize),
      offloader: deps.offloader,
      resourceLinks: (extra) =>
        servesOffloadResources(
          deps.resourceLinks ?? "auto",
          clientName(extra as FactsContext, server.server, deps.initialize),
        ),
      ...(deps.principal !== undefined ? { principal: deps.principal } : {}),
      middleware: compose(
        withToolErrors,
        ...(deps.principalScoped ? [foreignFilesNotFound(dir)] : []),
      ),
      // A re-offloaded output's events go to its call's log.
      eventListener: callLogListener,
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
  // Released when the server closes, however it is closed (by us, by the
  // SDK's serving entry, or by its transport going away): once.
  let released: Promise<void> | undefined;
  const release = () => {
    released ??= (async () => {
      for (const close of closers) await close().catch(() => {});
      deps.onReleased?.();
    })();
    return released;
  };
  const onclose = server.server.onclose;
  server.server.onclose = () => {
    onclose?.();
    void release();
  };
  return {
    server,
    async close() {
      // Disconnect first: unregistering tools and resources on a connected server
      // would tell the client they changed, while it is only going away.
      await server.close();
      await release();
    },
  };
}
