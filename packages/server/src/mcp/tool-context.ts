import type { OffloadMiddleware } from "@atlatl/lro/mcp";
import type { Services } from "../services/create-services.js";

/** What every tool registration gets: the services (unaware of LRO) and the LRO middleware. */
export interface ToolContext {
  services: Services;
  /** Wraps a records-returning handler: inline below the threshold, offloaded above. */
  offload: OffloadMiddleware;
}
