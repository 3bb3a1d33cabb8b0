/**
 * `[prompt.offload]`: the LRO section of the configuration (Node: reads the TOML
 * file, defaults the output directory to a private directory under the system
 * temp dir).
 */
import { readFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { LroError } from "../errors.js";
import {
  type ConfigEntry,
  type ConfigOrigin,
  type ConfigSectionSpec,
  type ConfigSource,
  type ResolvedSection,
  resolveConfigSection,
} from "./layered.js";

/** The resolved LRO settings. */
export interface OffloadConfig {
  /** Offload at all; when false every result is returned inline. */
  enabled: boolean;
  /** Results estimated above this many tokens are offloaded. */
  thresholdTokens: number;
  /** Seconds an offload file lives before the sweeper deletes it. */
  ttlSeconds: number;
  /** Absolute directory the files are written to. */
  outputDir: string;
  /**
   * First word of file names, `{filePrefix}-{operation}-{ulid}.jsonl` (default
   * `atlatl`): the embedder's choice, not a user setting, so no TOML key.
   */
  filePrefix?: string;
  /**
   * Most records in one offload file (default {@link DEFAULT_OFFLOAD_CONFIG}).
   * A result set with more is offloaded capped, and its descriptor says so.
   */
  maxRecords?: number | undefined;
  /**
   * List the extraction tool (`lro_extract`): `auto` (default) leaves it out for
   * a client whose agent reads the files with its own shell; see
   * `extract_tool` below.
   */
  extractTool?: ExtractToolMode | undefined;
}

/** `prompt.offload.extract_tool`: decided per client (`auto`), or forced. */
export const EXTRACT_TOOL_MODES = ["auto", "on", "off"] as const;
export type ExtractToolMode = (typeof EXTRACT_TOOL_MODES)[number];

/** Defaults of the specification. */
export const DEFAULT_OFFLOAD_CONFIG: Readonly<
  Required<Omit<OffloadConfig, "outputDir" | "filePrefix">>
> = {
  enabled: true,
  thresholdTokens: 1600,
  ttlSeconds: 3600,
  maxRecords: 100_000,
  extractTool: "auto",
};

/**
 * The default output directory: `{tmpdir}/atlatl-{uid}`, private to this user
 * (made 0700 and checked by `ensureOutputDir`), so the sweeper shares it with
 * nobody. Short on purpose: a descriptor repeats the path about 12 times.
 */
export function defaultOutputDir(): string {
  const uid = typeof process.getuid === "function" ? String(process.getuid()) : userInfo().username;
  return join(tmpdir(), `atlatl-${uid}`);
}

/** Resolve a path from the config file relative to that file, others to the cwd. */
function resolveDir(value: string, origin: ConfigOrigin): string {
  if (value === "") return defaultOutputDir();
  return origin.file ? resolve(dirname(origin.file), value) : resolve(value);
}

/** The keys of `[prompt.offload]`, for the generic resolver. */
export const OFFLOAD_CONFIG_KEYS = {
  enabled: {
    type: "boolean",
    default: DEFAULT_OFFLOAD_CONFIG.enabled,
    description: "Enable or disable LRO",
  },
  threshold_tokens: {
    type: "integer",
    min: 1,
    max: 4_294_967_295,
    default: DEFAULT_OFFLOAD_CONFIG.thresholdTokens,
    description: "Token threshold for offloading",
  },
  ttl_seconds: {
    type: "integer",
    min: 1,
    default: DEFAULT_OFFLOAD_CONFIG.ttlSeconds,
    description: "Seconds before an offload file is deleted",
  },
  output_dir: {
    type: "string",
    default: "",
    check: (v: string) => (v.includes("\0") ? "a path without NUL bytes" : undefined),
    normalize: resolveDir,
    description: "Directory for JSONL files (empty = {temp dir}/atlatl-{uid}, private)",
  },
  max_records: {
    type: "integer",
    min: 1,
    default: DEFAULT_OFFLOAD_CONFIG.maxRecords,
    description: "Most records in one offload file; larger result sets are capped, and say so",
  },
  extract_tool: {
    type: "string",
    default: DEFAULT_OFFLOAD_CONFIG.extractTool,
    check: (v: string) =>
      (EXTRACT_TOOL_MODES as readonly string[]).includes(v)
        ? undefined
        : `one of ${EXTRACT_TOOL_MODES.join(", ")}`,
    description:
      "List lro_extract: auto (not to a client with a shell on this machine and jq on PATH: Claude Code, Codex, Gemini CLI over stdio), on or off",
  },
} satisfies ConfigSectionSpec;

/** The dotted name of the LRO section. */
export const OFFLOAD_CONFIG_SECTION = "prompt.offload";

/** Options of {@link loadOffloadConfig}. */
export interface LoadOffloadConfigOptions {
  /** A TOML file; read when given (a missing or malformed file is an error). */
  configFile?: string;
  /** An already parsed TOML document (with the path to name in provenance). */
  configData?: { path: string; data: Record<string, unknown> };
  /** Environment variables (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Explicit options (flags, constructor arguments): they win over everything. */
  overrides?: Partial<OffloadConfig>;
  /** Prefix of the environment variables (default `ATLATL`: `ATLATL_PROMPT__OFFLOAD__...`). */
  envPrefix?: string;
}

/** A resolved config with where each value came from. */
export type ResolvedOffloadConfig = OffloadConfig & {
  sources: Record<Exclude<keyof OffloadConfig, "filePrefix">, ConfigSource>;
  /** Dotted keys, env names, values and sources, for `atlatl config`. */
  entries: ConfigEntry[];
};

/**
 * Read a TOML config file. Throws `LroError` `CONFIG_INVALID` naming the file when
 * it cannot be read or parsed.
 */
export function readTomlConfigFile(path: string): { path: string; data: Record<string, unknown> } {
  const abs = resolve(path);
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (err) {
    throw new LroError(
      "CONFIG_INVALID",
      `cannot read config file ${abs}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  try {
    return { path: abs, data: parseToml(text) as Record<string, unknown> };
  } catch (err) {
    throw new LroError(
      "CONFIG_INVALID",
      `cannot parse config file ${abs}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/**
 * Resolve `[prompt.offload]`: defaults < TOML file < `ATLATL_PROMPT__OFFLOAD__*`
 * environment variables < `overrides`. A bad value throws `ConfigValueError`
 * (code `CONFIG_INVALID`) naming the key, the value and where it came from.
 */
export function loadOffloadConfig(options: LoadOffloadConfigOptions = {}): ResolvedOffloadConfig {
  const file =
    options.configData ??
    (options.configFile !== undefined ? readTomlConfigFile(options.configFile) : undefined);
  const o = options.overrides ?? {};
  const resolved: ResolvedSection<typeof OFFLOAD_CONFIG_KEYS> = resolveConfigSection({
    section: OFFLOAD_CONFIG_SECTION,
    keys: OFFLOAD_CONFIG_KEYS,
    ...(file ? { file } : {}),
    env: options.env ?? process.env,
    ...(options.envPrefix !== undefined ? { envPrefix: options.envPrefix } : {}),
    overrides: {
      enabled: o.enabled,
      threshold_tokens: o.thresholdTokens,
      ttl_seconds: o.ttlSeconds,
      output_dir: o.outputDir,
      max_records: o.maxRecords,
      extract_tool: o.extractTool,
    },
  });
  const v = resolved.values;
  const s = resolved.sources;
  return {
    enabled: v.enabled,
    thresholdTokens: v.threshold_tokens,
    ttlSeconds: v.ttl_seconds,
    outputDir: v.output_dir,
    ...(o.filePrefix !== undefined ? { filePrefix: o.filePrefix } : {}),
    maxRecords: v.max_records,
    // Checked by the key's `check` above.
    extractTool: v.extract_tool as ExtractToolMode,
    sources: {
      enabled: s.enabled,
      thresholdTokens: s.threshold_tokens,
      ttlSeconds: s.ttl_seconds,
      outputDir: s.output_dir,
      maxRecords: s.max_records,
      extractTool: s.extract_tool,
    },
    entries: resolved.entries,
  };
}

/**
 * The engine's options from a resolved `[prompt.offload]`: every setting,
 * `filePrefix` included, without the provenance (`sources`, `entries`). The
 * one mapping from the layered config to an `Offloader`'s `config`.
 */
export function offloadConfigOf(resolved: ResolvedOffloadConfig): OffloadConfig {
  const { sources: _sources, entries: _entries, ...config } = resolved;
  return config;
}
