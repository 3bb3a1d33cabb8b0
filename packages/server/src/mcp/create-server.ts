import { registerLroExtract, registerOffloadResources, withOffload } from "@atlatl/lro/mcp";
import type { Offloader } from "@atlatl/lro/node";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Services } from "../services/create-services.js";
import { ATLATL_VERSION } from "../version.js";
import { useCodedValidationErrors, useToolMiddleware, withToolErrors } from "./tool-middleware.js";
import { registerInjectContext } from "./tools/inject-context.js";
import { registerListMemories } from "./tools/list-memories.js";
import { registerMemoryCrud } from "./tools/memory-crud.js";
import { registerRecallMemories } from "./tools/recall-memories.js";
import { registerSearchMemories } from "./tools/search-memories.js";

export const SERVER_NAME = "atlatl";
export const SERVER_VERSION = ATLATL_VERSION;

const INSTRUCTIONS = `atlatl is a memory server (MIF memories: semantic, episodic, procedural).
Read tools (recall_memories, search_memories, list_memories, inject_context) return small results inline.
Large results are offloaded: you get {"offloaded": true, "file_path": ..., "summary", "line_schema", "jq_recipes", "guidance"}.
Query the file with a shell (tail -n +2 FILE | jq ...) or with the lro_extract tool; it is also readable as an MCP resource.`;

export interface AtlatlServer {
  server: McpServer;
  /** Stop the extraction worker and close the MCP server (the store is the caller's). */
  close(): Promise<void>;
}

/**
 * The atlatl MCP server: memory tools, each read tool behind the LRO middleware,
 * and, when offloading is enabled, `lro_extract` and offload files as resources.
 */
export function createAtlatlServer(deps: {
  services: Services;
  offloader: Offloader;
}): AtlatlServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { instructions: INSTRUCTIONS, capabilities: { tools: {}, resources: {} } },
  );
  // Every tool, ours and lro_extract: thrown errors reach the client with code and field.
  useToolMiddleware(server, withToolErrors);
  useCodedValidationErrors(server);
  const lroEnabled = deps.offloader.config.enabled;
  const ctx = {
    services: deps.services,
    offload: withOffload({ offloader: deps.offloader, resourceLinks: lroEnabled }),
  };
  registerMemoryCrud(server, ctx);
  registerRecallMemories(server, ctx);
  registerSearchMemories(server, ctx);
  registerListMemories(server, ctx);
  registerInjectContext(server, ctx);

  const closers: (() => Promise<void>)[] = [];
  if (lroEnabled) {
    const extract = registerLroExtract(server, { offloader: deps.offloader, resourceLinks: true });
    // One parsed-file cache for extraction and resource reads; offloader events
    // drive `resources/list_changed` when files appear or expire.
    const resources = registerOffloadResources(server, {
      config: deps.offloader.config,
      cache: extract.extractor.cache,
      events: deps.offloader.events,
    });
    closers.push(async () => resources.close());
    closers.push(() => extract.close());
  }
  return {
    server,
    async close() {
      for (const close of closers) await close();
      await server.close();
    },
  };
}
