/** `atlatl/http`: the team server over HTTP, for embedding (`atlatl serve --http` uses it). */
export {
  allowedHosts,
  createHttpApp,
  type HttpAppParts,
  insecureBindMessage,
  MCP_PATH,
} from "./create-http-app.js";
export { type HttpConfig, loadHttpConfig } from "./http-config.js";
export { LegacySessions } from "./mcp/legacy-sessions.js";
export { McpEndpoint } from "./mcp/mcp-endpoint.js";
export { type Principal, Principals, tokenPrincipal } from "./mcp/principals.js";
export { createHttpMetrics, type HttpMetrics } from "./ops/metrics.js";
export { createRestApi } from "./rest/rest-api.js";
export { type RunningHttpServer, startHttpServer } from "./start-http.js";
