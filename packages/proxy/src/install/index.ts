/**
 * `atlatl-proxy/install`: putting atlatl into MCP clients' config files. The
 * proxy's `install <client>` wraps each configured server; the atlatl server's
 * `atlatl install <client>` adds itself with {@link planAddServer}. Both share
 * the clients' locations, the formats (jsonc-parser, toml-patch), the backups
 * and the atomic write.
 */
export { applyPlans, carryOut, plansDiff, plansSummary, type Written } from "./apply.js";
export { bytesBeforeInstall, contentTag, installBackups } from "./atomic-write.js";
export {
  claudeSettingsPath,
  planGrantDirectory,
  planRevokeDirectory,
} from "./claude-permissions.js";
export {
  CLIENT_NAMES,
  CLIENTS,
  type ClientEnv,
  type ClientFile,
  type ClientName,
  type ClientSpec,
  clientNamed,
  currentClientEnv,
} from "./clients.js";
export type { ConfigFormat, MapPath } from "./config-format.js";
export { tableAt } from "./config-format.js";
export { proxyLauncher } from "./launcher.js";
export {
  type EntryReport,
  type FilePlan,
  filesOf,
  planUnwrap,
  planWrap,
  type Selection,
  type WrapRequest,
} from "./plan.js";
export { planAddServer, planRemoveServer, type ServerEntryRequest } from "./server-entry.js";
export {
  isAtlatlServer,
  type ProxyLauncher,
  readWrappedCommandLine,
  type ServerTarget,
  type WrapOptions,
  wrappedCommandLine,
} from "./wrap-rule.js";
