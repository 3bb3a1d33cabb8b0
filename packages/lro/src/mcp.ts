/** `@atlatl/lro/mcp`: LRO for `@modelcontextprotocol/sdk` servers. */

export {
  type HandlerExtra,
  mountResources,
  mountTools,
  type OwnResources,
  type ResourcesUpstream,
  type ToolsUpstream,
} from "./mcp/low-level.js";
export * from "./mcp/lro-extract-tool.js";
export {
  estimateCallResultTokens,
  type OffloadCallResultOptions,
  offloadCallToolResult,
} from "./mcp/offload-call-result.js";
export {
  DEFAULT_MCP_NAMES,
  type McpNames,
  mcpNames,
  OFFLOAD_META_PREFIX,
  OFFLOAD_RESOURCE_PREFIX,
  offloadResourceUri,
} from "./mcp/offload-resource-uri.js";
export * from "./mcp/offload-resources.js";
export * from "./mcp/with-offload.js";
