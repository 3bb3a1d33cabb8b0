/** `@atlatl/lro/mcp`: LRO for `@modelcontextprotocol/sdk` servers. */

export * from "./mcp/lro-extract-tool.js";
export { OFFLOAD_RESOURCE_PREFIX, offloadResourceUri } from "./mcp/offload-resource-uri.js";
export * from "./mcp/offload-resources.js";
export * from "./mcp/with-offload.js";
