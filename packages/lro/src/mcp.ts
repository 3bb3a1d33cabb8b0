/**
 * `@atlatl/lro/mcp`: LRO for MCP servers on SDK 1.x (`@modelcontextprotocol/sdk`)
 * or 2.x (`@modelcontextprotocol/server`); its declarations use LRO's own
 * structural MCP types (`protocol/mcp-types.ts`), so they need neither.
 */

export {
  type HandlerExtra,
  mountResources,
  mountTools,
  type OwnResources,
  type ResourcesUpstream,
  type ToolsUpstream,
} from "./mcp/host/low-level.js";
export {
  extractResultToToolResult,
  LRO_EXTRACT_TOOL_NAME,
  type LroExtractRegistration,
  type RegisterLroExtractOptions,
  registerLroExtract,
} from "./mcp/host/lro-extract-tool.js";
export {
  type CacheFields,
  OFFLOAD_LIST_CACHE,
  OFFLOAD_LIST_EVENTS,
  OFFLOAD_RESOURCE_TEMPLATE_NAME,
  type OffloadResourcesRegistration,
  offloadCacheFields,
  type RegisterOffloadResourcesOptions,
  type ResourceTemplateClass,
  registerOffloadResources,
} from "./mcp/host/offload-resources.js";
export { outputSchemaMetaKey, withoutOutputSchema } from "./mcp/host/output-schema.js";
export { type ToolErrorInfo, toolErrorResult } from "./mcp/host/tool-error.js";
export {
  OFFLOAD_MIME_TYPE,
  type OffloadHandler,
  type OffloadMiddleware,
  type OffloadToolConfig,
  type OffloadToolRegistration,
  type ToolRegistrar,
  type WithOffloadOptions,
  withOffload,
} from "./mcp/host/with-offload.js";
export {
  estimateCallResultTokens,
  type OffloadCallResultOptions,
  offloadCallToolResult,
} from "./mcp/respond/offload-call-result.js";
export {
  type InlinePage,
  isOffloadableRecords,
  type OffloadableRecords,
  type OffloadHandlerResult,
  resolveProfile,
  type WholeResultSet,
} from "./mcp/respond/offloadable.js";
export { AUTO_POLICY, type OffloadMode, type ResponsePolicy } from "./mcp/respond/policy.js";
export { respond } from "./mcp/respond/respond.js";
export {
  declareOffloadsLocally,
  LRO_PROXY_CAPABILITY,
  offloadsLocally,
  type ProxyCapabilityGroups,
  REQUEST_CAPABILITIES_META,
  REQUEST_CLIENT_INFO_META,
  readWholeSet,
  requestOffloadsLocally,
  type WholeSet,
} from "./mcp/respond/whole-set.js";
export {
  type LaidOutOffload,
  type OffloadLaidOutOptions,
  offloadLaidOut,
} from "./offload/offload-laid-out.js";
export { type LayoutOffload, offloadLayout } from "./offload/offload-layout.js";
export {
  type BinaryPart,
  jsonIndentOf,
  type LayoutSection,
  layoutResult,
  type PureRecords,
  RECORDS_MARK,
  type ResultLayout,
  TEXT_BLOCK_MARK,
  TEXT_LINE_SCHEMA,
} from "./profiles/sections/call-result-layout.js";
export { recordRecipes, textRecipes } from "./profiles/sections/call-result-recipes.js";
export { reassembleResult } from "./profiles/sections/reassemble-call-result.js";
export type {
  Annotations,
  AnyCallToolResult,
  AudioContent,
  BlobResourceContents,
  CallToolRequest,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  Icon,
  ImageContent,
  JsonObject,
  JsonValue,
  ListResourcesRequest,
  ListResourcesResult,
  ListResourcesResultLike,
  ListResourceTemplatesRequest,
  ListResourceTemplatesResultLike,
  ListToolsRequest,
  ListToolsResultLike,
  McpMeta,
  ReadResourceRequest,
  ReadResourceResult,
  ReadResourceResultLike,
  Resource,
  ResourceLink,
  ResourceTemplate,
  TextContent,
  TextResourceContents,
  Tool,
  ToolLike,
  ToolSchema,
} from "./protocol/mcp-types.js";
export {
  DEFAULT_MCP_NAMES,
  type McpNames,
  mcpNames,
  OFFLOAD_META_PREFIX,
  OFFLOAD_RESOURCE_PREFIX,
  offloadResourceUri,
} from "./protocol/offload-resource-uri.js";
