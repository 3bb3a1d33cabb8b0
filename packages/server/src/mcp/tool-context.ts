import type { OffloadMiddleware } from "@atlatl/lro/mcp";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Services } from "../services/create-services.js";

/** What every tool registration gets: the services (unaware of LRO), the LRO middleware, the registrar. */
export interface ToolContext {
  services: Services;
  /** Wraps a records-returning handler: inline below the threshold, offloaded above. */
  offload: OffloadMiddleware;
  /** The server's `registerTool` with the tool middleware composed in (`toolRegistrar`). */
  registerTool: McpServer["registerTool"];
}
