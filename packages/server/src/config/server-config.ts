import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  type ConfigEntry,
  ConfigValueError,
  loadOffloadConfig,
  type OffloadConfig,
  offloadConfigOf,
  readTomlConfigFile,
  redactUrl,
  resolveConfigSection,
} from "@atlatl/lro/node";
import envPaths from "env-paths";
import {
  DEFAULT_CONNECT_TIMEOUT_SECONDS,
  DEFAULT_POOL_SIZE,
  DEFAULT_STATEMENT_TIMEOUT_SECONDS,
  type PostgresTimeouts,
} from "../store/postgres/pool-timeouts.js";
import { type EmbeddingsConfig, resolveEmbeddingsConfig } from "./embeddings-config.js";
import { type OffloadStoreConfig, resolveOffloadStoreConfig } from "./offload-store-config.js";
import { type RecallConfig, resolveRecallConfig } from "./recall-config.js";

const paths = envPaths("atlatl", { suffix: "" });

/** Default database: `atlatl.db` in the user's data directory (XDG on Linux). */
const DEFAULT_DB_PATH = join(paths.data, "atlatl.db");
/** Default config file, read when it exists: `config.toml` in the user's config directory. */
const DEFAULT_CONFIG_FILE = join(paths.config, "config.toml");

const STORE_KEYS = {
  path: {
    type: "string",
    default: DEFAULT_DB_PATH,
    description:
      "SQLite database file (`:memory:` for a throwaway store); unused when `url` is set",
    normalize: (value: string, origin: { kind: string; file?: string }) =>
      value === ":memory:" ? value : resolve(origin.file ? dirname(origin.file) : ".", value),
    check: (value: string) => (value.length === 0 ? "a file path" : undefined),
  },
  url: {
    type: "string",
    default: "",
    description:
      "PostgreSQL connection URL (postgres://user:password@host:port/db); empty keeps SQLite",
    check: (value: string) =>
      value === "" || /^postgres(ql)?:\/\//.test(value) ? undefined : URL_EXPECTED,
  },
  connect_timeout_seconds: {
    type: "integer",
    min: 1,
    max: 3600,
    default: DEFAULT_CONNECT_TIMEOUT_SECONDS,
    description: "PostgreSQL: longest wait for a connection before the request fails UNAVAILABLE",
  },
  statement_timeout_seconds: {
    type: "integer",
    min: 1,
    max: 3600,
    default: DEFAULT_STATEMENT_TIMEOUT_SECONDS,
    description:
      "PostgreSQL: longest a statement (or a streamed read) may take before the request fails UNAVAILABLE",
  },
  pool_size: {
    type: "integer",
    min: 1,
    max: 1000,
    default: DEFAULT_POOL_SIZE,
    description:
      "PostgreSQL: connections of the instance's one pool (memories, shared offload files and tasks)",
  },
} as const;

/** What `store.url` must be. */
const URL_EXPECTED = "a postgres:// or postgresql:// URL, or empty for SQLite";

/** The store section; a refused `store.url` is quoted with its passwords masked. */
function resolveStoreSection(
  options: Parameters<typeof resolveConfigSection<typeof STORE_KEYS>>[0],
) {
  try {
    return resolveConfigSection(options);
  } catch (err) {
    if (
      err instanceof ConfigValueError &&
      err.key === "store.url" &&
      typeof err.value === "string"
    ) {
      throw new ConfigValueError(err.key, redactUrl(err.value), err.source, URL_EXPECTED);
    }
    throw err;
  }
}

/** Where the memories live: `url` (PostgreSQL) when set, else the SQLite file `path`. */
interface StoreConfig {
  backend: "sqlite" | "postgres";
  path: string;
  url: string | null;
  /** PostgreSQL's connect and statement bounds (every connection of the instance's pool). */
  timeouts: PostgresTimeouts;
  /** PostgreSQL: connections of the instance's one pool (`[store] pool_size`). */
  poolSize: number;
}

/** Flags and constructor options that override every other source. */
export interface ServerConfigOverrides {
  /** `--config`: a TOML file. Else `ATLATL_CONFIG`, else the default file if it exists. */
  configFile?: string | undefined;
  /** `--db`. */
  dbPath?: string | undefined;
  /** `--database`: a postgres:// URL. */
  databaseUrl?: string | undefined;
  offload?: Partial<OffloadConfig> | undefined;
  /** `[offload_store]` values (tests; no flag sets them). */
  offloadStore?: { backend?: string; quota_bytes?: number } | undefined;
  /** `[recall]` values (tests; no flag sets them). */
  recall?: { relevance_floor_percent?: number } | undefined;
}

/** The effective configuration of the server, with where each value came from. */
export interface ServerConfig {
  configFile: string | null;
  /** PostgreSQL when `url` is set, else SQLite at `path`. */
  store: StoreConfig;
  offload: OffloadConfig;
  /** Where offload files are shared between instances (`[offload_store]`). */
  offloadStore: OffloadStoreConfig;
  /** The embeddings endpoint of hybrid recall (`[embeddings]`); null keeps recall lexical. */
  embeddings: EmbeddingsConfig | null;
  /** What counts as a match of recall and search (`[recall]`). */
  recall: RecallConfig;
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
  const store = resolveStoreSection({
    section: "store",
    keys: STORE_KEYS,
    ...(file ? { file } : {}),
    env,
    overrides: { path: overrides.dbPath, url: overrides.databaseUrl },
  });
  const offload = loadOffloadConfig({
    ...(file ? { configData: file } : {}),
    env,
    overrides: overrides.offload ?? {},
  });
  const storeBackend = store.values.url === "" ? "sqlite" : "postgres";
  const offloadStore = resolveOffloadStoreConfig(
    { ...(file ? { file } : {}), env, overrides: overrides.offloadStore ?? {} },
    storeBackend,
  );
  const embeddings = resolveEmbeddingsConfig({ ...(file ? { file } : {}), env });
  const recall = resolveRecallConfig({
    ...(file ? { file } : {}),
    env,
    overrides: overrides.recall ?? {},
  });
  return {
    configFile,
    offloadStore: offloadStore.config,
    embeddings: embeddings.config,
    recall: recall.config,
    store: {
      backend: storeBackend,
      path: store.values.path,
      url: store.values.url === "" ? null : store.values.url,
      timeouts: {
        connectTimeoutMs: store.values.connect_timeout_seconds * 1000,
        statementTimeoutMs: store.values.statement_timeout_seconds * 1000,
      },
      poolSize: store.values.pool_size,
    },
    offload: offloadConfigOf(offload),
    entries: [
      {
        key: "store.backend",
        env: "",
        value: store.values.url === "" ? "sqlite" : "postgres",
        source: store.values.url === "" ? store.sources.path : store.sources.url,
        description: "Chosen by store.url (PostgreSQL) or store.path (SQLite)",
      },
      ...store.entries.map((e) =>
        e.key === "store.url" && typeof e.value === "string"
          ? { ...e, value: redactUrl(e.value) }
          : e,
      ),
      ...offload.entries,
      ...offloadStore.resolved.entries,
      ...embeddings.resolved.entries,
      ...recall.resolved.entries,
    ],
  };
}
