/**
 * `atlatl-proxy`: Large Result Offloading in front of any MCP server. The CLI
 * (`atlatl-proxy -- <command>` or `atlatl-proxy --url <url>`) runs
 * {@link startProxy} on stdio.
 */

// The layout lives in @atlatl/lro (one engine); re-exported for the proxy's users.
export {
  layoutResult,
  RECORDS_MARK,
  type ResultLayout,
  reassembleResult,
  TEXT_BLOCK_MARK,
} from "@atlatl/lro/mcp";
export {
  DEFAULT_TOOL_POLICY,
  loadProxyConfig,
  type ProxyConfig,
  type ProxyConfigOverrides,
  parseToolPolicies,
  policyFor,
  type ToolPolicy,
} from "./config/proxy-config.js";
export { createProxyEngine, type ProxyEngine, type ToolCallInfo } from "./proxy/local-lro.js";
export { PROXY_RESOURCE_PREFIX, TOOL_CLASH_PREFIX } from "./proxy/names.js";
export { OUTPUT_SCHEMA_META_KEY } from "./proxy/output-schema.js";
export {
  type RunningProxy,
  type StartProxyOptions,
  startProxy,
} from "./proxy/start-proxy.js";
export { describeTarget, parseHeaders, type UpstreamTarget } from "./upstream/target.js";
