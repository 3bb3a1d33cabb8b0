import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  type ConfigEntry,
  loadOffloadConfig,
  type OffloadConfig,
  readTomlConfigFile,
  resolveConfigSection,
} from "@atlatl/lro/node";
import envPaths from "env-paths";

const paths = envPaths("atlatl", { suffix: "" });

/** Default database: `atlatl.db` in the user's data directory (XDG on Linux). */
export const DEFAULT_DB_PATH = join(paths.data, "atlatl.db");
/** Default config file, read when it exists: `config.toml` in the user's config directory. */
export const DEFAULT_CONFIG_FILE = join(paths.config, "config.toml");

const STORE_KEYS = {
  path: {
    type: "string",
    default: DEFAULT_DB_PATH,
    description: "SQLite database file (`:memory:` for a throwaway store)",
    normalize: (value: string, origin: { kind: string; file?: string }) =>
      value === ":memory:" ? value : resolve(origin.file ? dirname(origin.file) : ".", value),
    check: (value: string) => (value.length === 0 ? "a file path" : undefined),
  },
} as const;

/** Flags and constructor options that override every other source. */
export interface ServerConfigOverrides {
  /** `--config`: a TOML file. Else `ATLATL_CONFIG`, else the default file if it exists. */
  configFile?: string | undefined;
  /** `--db`. */
  dbPath?: string | undefined;
  offload?: Partial<OffloadConfig> | undefined;
}

/** The effective configuration of the server, with where each value came from. */
export interface ServerConfig {
  configFile: string | null;
  store: { path: string };
  offload: OffloadConfig;
  /** Every key with its value, environment variable and source (for `atlatl config`). */
  entries: ConfigEntry[];
}

/**
 * Resolve the server configuration: defaults < TOML file < `ATLATL_*` environment
 * variables < explicit overrides. Throws `ConfigValueError` naming the key, the
 * value and its source when a value is bad.
 */
export function loadServerConfig(
  overrides: ServerConfigOverrides = {},
  env: Record<string, string | undefined> = process.env,
): ServerConfig {
  const explicitFile = overrides.configFile ?? env.ATLATL_CONFIG;
  const configFile =
    explicitFile !== undefined && explicitFile !== ""
      ? resolve(explicitFile)
      : existsSync(DEFAULT_CONFIG_FILE)
        ? DEFAULT_CONFIG_FILE
        : null;
  const file = configFile ? readTomlConfigFile(configFile) : undefined;
  const store = resolveConfigSection({
    section: "store",
    keys: STORE_KEYS,
    ...(file ? { file } : {}),
    env,
    overrides: { path: overrides.dbPath },
  });
  const offload = loadOffloadConfig({
    ...(file ? { configData: file } : {}),
    env,
    overrides: overrides.offload ?? {},
  });
  return {
    configFile,
    store: { path: store.values.path },
    offload: {
      enabled: offload.enabled,
      thresholdTokens: offload.thresholdTokens,
      ttlSeconds: offload.ttlSeconds,
      outputDir: offload.outputDir,
      maxRecords: offload.maxRecords,
    },
    entries: [...store.entries, ...offload.entries],
  };
}
