import type { OffloadMiddleware } from "@atlatl/lro/mcp";
import type { Services } from "../services/create-services.js";
import type { RegisterTool } from "./tool-registry.js";

/** What every tool registration gets: the services (unaware of LRO), the LRO middleware, the registrar. */
export interface ToolContext {
  services: Services;
  /** Wraps a records-returning handler: inline below the threshold, offloaded above. */
  offload: OffloadMiddleware;
  /** Registers a tool with the tool middleware composed in (`ToolRegistry`). */
  registerTool: RegisterTool;
}
