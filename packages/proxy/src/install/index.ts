/**
 * `atlatl-proxy/install`: putting atlatl into MCP clients' config files. The
 * proxy's `install <client>` wraps each configured server; the atlatl server's
 * `atlatl install <client>` adds itself with {@link planAddServer}. Both share
 * the clients' locations, the formats (jsonc-parser, toml-patch), each one's
 * record of its own change, the backups and the atomic write, and the
 * per-client economy (`client-economy.ts`: the threshold install writes,
 * whether `atlatl serve` lists `lro_extract` and gives its descriptors resource
 * links). Only what those two commands call is exported; the formats, records,
 * backups and diff stay inside.
 */
export {
  CLIENT_ECONOMY,
  type ExtractToolFacts,
  installThreshold,
  listsExtractTool,
  type OffloadResourcesMode,
  servesOffloadResources,
} from "../config/client-economy.js";
export { jqOnPath } from "../config/jq-on-path.js";
export { carryOut, type Run, type Written } from "./apply.js";
export { planGrantDirectory, planRevokeDirectory } from "./claude-permissions.js";
export {
  CLIENT_NAMES,
  type ClientEnv,
  type ClientName,
  type ClientSpec,
  clientNamed,
  currentClientEnv,
} from "./clients.js";
export { proxyLauncher } from "./launcher.js";
export { prepareOffloadDir } from "./offload-dir.js";
export { type FilePlan, planUnwrap, planWrap, type WrapRequest } from "./plan.js";
export type { Tool } from "./records.js";
export { planAddServer, planRemoveServer, type ServerEntryRequest } from "./server-entry.js";
export { isAtlatlServer } from "./wrap-rule.js";
