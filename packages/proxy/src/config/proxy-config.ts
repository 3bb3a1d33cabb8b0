/**
 * The proxy's configuration: the server's `[prompt.offload]` section (same TOML
 * file, `ATLATL_PROMPT__OFFLOAD__*` env, flags), `[proxy]` (the upstream
 * request timeout and protocol, whether offload files are served as resources)
 * and per-tool policy tables `[proxy.tools.<name>]`:
 *
 *     [proxy.tools.read_text_file]
 *     policy = "always"        # or "never", or a threshold in tokens
 *     inline_keys = ["path"]   # keys kept inline beside the descriptor
 */
import { LroError } from "@atlatl/lro";
import type { ResponsePolicy } from "@atlatl/lro/mcp";
import {
  type ConfigEntry,
  loadOffloadConfig,
  type OffloadConfig,
  offloadConfigOf,
  readTomlConfigFile,
  resolveConfigSection,
} from "@atlatl/lro/node";
import {
  DEFAULT_UPSTREAM_PROTOCOL,
  isUpstreamProtocol,
  UPSTREAM_PROTOCOLS,
  type UpstreamProtocol,
} from "../upstream/upstream-protocol.js";
import { OFFLOAD_RESOURCES_MODES, type OffloadResourcesMode } from "./client-economy.js";

/** How one tool's results are treated. */
export interface ToolPolicy extends ResponsePolicy {
  /** `auto`: offload above the threshold; `always`: any non-error result; `never`: pass through. */
  mode: Exclude<ResponsePolicy["mode"], "whole-set-inline">;
  /** This tool's threshold (default: `prompt.offload.threshold_tokens`). */
  thresholdTokens?: number;
  /** Keys of the result object copied into the descriptor. */
  inlineKeys: string[];
}

/** The default policy of tools without a table. */
export const DEFAULT_TOOL_POLICY: Readonly<ToolPolicy> = { mode: "auto", inlineKeys: [] };

const PROXY_KEYS = {
  timeout_seconds: {
    type: "integer",
    min: 1,
    default: 600,
    description:
      "Seconds a request to the upstream may take (reset by progress notifications) before it fails",
  },
  upstream_protocol: {
    type: "string",
    default: DEFAULT_UPSTREAM_PROTOCOL,
    check: (value: string) =>
      isUpstreamProtocol(value) ? undefined : `one of ${UPSTREAM_PROTOCOLS.join(", ")}`,
    description:
      "MCP protocol generation toward the upstream: auto (server/discover, else the 2025 initialize), legacy (2025-11-25 only) or 2026-07-28",
  },
  offload_resources: {
    type: "string",
    default: "auto",
    check: (value: string) =>
      (OFFLOAD_RESOURCES_MODES as readonly string[]).includes(value)
        ? undefined
        : `one of ${OFFLOAD_RESOURCES_MODES.join(", ")}`,
    description:
      "Serve offload files as MCP resources: auto (not to clients that read them with a shell: Claude Code, Codex, Gemini CLI), on or off; the upstream's own resources are always served",
  },
} as const;

/** Flags that win over the file and the environment. */
export interface ProxyConfigOverrides {
  configFile?: string | undefined;
  offload?: Partial<OffloadConfig>;
  timeoutSeconds?: number | undefined;
  upstreamProtocol?: string | undefined;
  offloadResources?: OffloadResourcesMode | undefined;
}

/** The resolved proxy configuration. */
export interface ProxyConfig {
  offload: OffloadConfig;
  timeoutSeconds: number;
  upstreamProtocol: UpstreamProtocol;
  /** Offload files as resources: per client (`auto`), or forced `on`/`off`. */
  offloadResources: OffloadResourcesMode;
  tools: Record<string, ToolPolicy>;
  entries: ConfigEntry[];
}

function configError(message: string): LroError {
  return new LroError("CONFIG_INVALID", message);
}

/** Parse `[proxy.tools]` of a TOML document. Throws `CONFIG_INVALID` naming the key. */
export function parseToolPolicies(
  data: Record<string, unknown>,
  file: string,
): Record<string, ToolPolicy> {
  const proxy = data.proxy as Record<string, unknown> | undefined;
  const tools = proxy?.tools;
  if (tools === undefined) return {};
  if (tools === null || typeof tools !== "object" || Array.isArray(tools)) {
    throw configError(`${file}: [proxy.tools] must be a table of tables`);
  }
  const out: Record<string, ToolPolicy> = {};
  for (const [name, raw] of Object.entries(tools as Record<string, unknown>)) {
    const where = `${file}: [proxy.tools.${name}]`;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw configError(`${where} must be a table`);
    }
    const t = raw as Record<string, unknown>;
    for (const key of Object.keys(t)) {
      if (key !== "policy" && key !== "inline_keys") {
        throw configError(`${where}: unknown key ${key} (expected policy, inline_keys)`);
      }
    }
    const policy: ToolPolicy = { mode: "auto", inlineKeys: [] };
    const p = t.policy;
    if (p === "always" || p === "never") policy.mode = p;
    else if (typeof p === "number" && Number.isInteger(p) && p >= 1) policy.thresholdTokens = p;
    else if (p !== undefined) {
      throw configError(
        `${where}: policy = ${JSON.stringify(p)}; expected "always", "never" or a threshold (a positive integer)`,
      );
    }
    const k = t.inline_keys;
    if (k !== undefined) {
      if (!Array.isArray(k) || !k.every((x) => typeof x === "string")) {
        throw configError(`${where}: inline_keys must be an array of strings`);
      }
      policy.inlineKeys = k;
    }
    out[name] = policy;
  }
  return out;
}

/**
 * Resolve the configuration: defaults < TOML file (`--config`, else
 * `ATLATL_CONFIG`) < `ATLATL_*` environment < flags.
 */
export function loadProxyConfig(
  overrides: ProxyConfigOverrides = {},
  env: Record<string, string | undefined> = process.env,
): ProxyConfig {
  const explicit = overrides.configFile ?? env.ATLATL_CONFIG;
  const file = explicit ? readTomlConfigFile(explicit) : undefined;
  const offload = loadOffloadConfig({
    ...(file ? { configData: file } : {}),
    env,
    overrides: overrides.offload ?? {},
  });
  const proxy = resolveConfigSection({
    section: "proxy",
    keys: PROXY_KEYS,
    // `[proxy.tools.*]` are tables of their own, parsed below.
    ...(file ? { file: withoutToolTables(file) } : {}),
    env,
    overrides: {
      timeout_seconds: overrides.timeoutSeconds,
      upstream_protocol: overrides.upstreamProtocol,
      offload_resources: overrides.offloadResources,
    },
  });
  return {
    offload: offloadConfigOf(offload),
    timeoutSeconds: proxy.values.timeout_seconds,
    // Checked by the key's `check` above.
    upstreamProtocol: proxy.values.upstream_protocol as UpstreamProtocol,
    offloadResources: proxy.values.offload_resources as OffloadResourcesMode,
    tools: file ? parseToolPolicies(file.data, file.path) : {},
    entries: [...offload.entries, ...proxy.entries],
  };
}

function withoutToolTables(file: { path: string; data: Record<string, unknown> }) {
  const proxy = file.data.proxy;
  if (proxy === null || typeof proxy !== "object" || Array.isArray(proxy)) return file;
  const { tools: _tools, ...rest } = proxy as Record<string, unknown>;
  return { path: file.path, data: { ...file.data, proxy: rest } };
}

/** The policy of `tool`. */
export function policyFor(config: Pick<ProxyConfig, "tools">, tool: string): ToolPolicy {
  return config.tools[tool] ?? DEFAULT_TOOL_POLICY;
}
