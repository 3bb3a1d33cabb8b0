/**
 * A generic layered configuration resolver: defaults < TOML file section <
 * `ATLATL_*` environment variables < explicit options, with the provenance of
 * every value kept so a CLI can print where each one came from. The LRO section
 * (`[prompt.offload]`) is one user; the server reuses it for its own sections.
 */
import { LroError } from "../errors.js";

/** Where a value came from: `default`, `file /path/x.toml`, `env ATLATL_...`, `option`. */
export type ConfigSource = "default" | "option" | `file ${string}` | `env ${string}`;

/** The origin handed to a key's `normalize` hook (e.g. to resolve relative paths). */
export interface ConfigOrigin {
  kind: "default" | "file" | "env" | "option";
  /** The config file, for `kind: "file"`. */
  file?: string;
}

interface KeySpecBase<T> {
  /** Default value, or a function computing it (e.g. the system temp dir). */
  default: T | (() => T);
  /** Post-parse hook (e.g. resolve a path); may return a string naming the problem. */
  normalize?: (value: T, origin: ConfigOrigin) => T;
  /** Extra validation: return a description of what is expected, or undefined when fine. */
  check?: (value: T) => string | undefined;
  /** One-line description, for `atlatl config` listings. */
  description?: string;
}

/** One key of a section: its type decides how TOML and environment values parse. */
export type ConfigKeySpec =
  | ({ type: "boolean" } & KeySpecBase<boolean>)
  | ({ type: "integer"; min?: number; max?: number } & KeySpecBase<number>)
  | ({ type: "string" } & KeySpecBase<string>)
  /** A list of strings: a TOML array, or text separated by commas (environment, options). */
  | ({ type: "list" } & KeySpecBase<readonly string[]>);

/** Keys of a section by their snake_case TOML name. */
export type ConfigSectionSpec = Record<string, ConfigKeySpec>;

/** The value type of a spec. */
export type ConfigValues<S extends ConfigSectionSpec> = {
  [K in keyof S]: S[K] extends { type: "boolean" }
    ? boolean
    : S[K] extends { type: "integer" }
      ? number
      : S[K] extends { type: "list" }
        ? string[]
        : string;
};

/** One resolved key, with where it came from. */
export interface ConfigEntry {
  /** Dotted key, e.g. `prompt.offload.threshold_tokens`. */
  key: string;
  /** Environment variable that sets it, e.g. `ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS`. */
  env: string;
  value: unknown;
  source: ConfigSource;
  description?: string;
}

/** A resolved section: its values and each value's provenance. */
export interface ResolvedSection<S extends ConfigSectionSpec> {
  values: ConfigValues<S>;
  sources: { [K in keyof S]: ConfigSource };
  entries: ConfigEntry[];
}

/** Inputs of {@link resolveConfigSection}. */
export interface ResolveSectionOptions<S extends ConfigSectionSpec> {
  /** Dotted section path, e.g. `prompt.offload` (TOML table `[prompt.offload]`). */
  section: string;
  keys: S;
  /** The parsed TOML document and the path it came from. */
  file?: { path: string; data: Record<string, unknown> };
  /** Environment (default: none; pass `process.env` explicitly). */
  env?: Record<string, string | undefined>;
  /** Prefix of environment variables (default `ATLATL`). */
  envPrefix?: string;
  /** Explicit values by snake_case key; `undefined` entries are ignored. */
  overrides?: Partial<Record<keyof S, unknown>>;
}

/** A configuration value that does not parse or validate. */
export class ConfigValueError extends LroError {
  readonly key: string;
  readonly value: unknown;
  readonly source: ConfigSource;
  constructor(key: string, value: unknown, source: ConfigSource, expected: string) {
    super(
      "CONFIG_INVALID",
      `invalid value for ${key}: ${describeValue(value)} (from ${source}); expected ${expected}`,
    );
    this.name = "ConfigValueError";
    this.key = key;
    this.value = value;
    this.source = source;
  }
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `prompt.offload` + `threshold_tokens` -> `ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS`. */
export function configEnvName(section: string, key: string, prefix = "ATLATL"): string {
  return `${prefix}_${[...section.split("."), key].join("__")}`.toUpperCase();
}

function lookupTable(data: Record<string, unknown>, section: string): unknown {
  let node: unknown = data;
  for (const part of section.split(".")) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Comma-separated text as its items, trimmed, empty ones dropped. */
function commaItems(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const TRUE_WORDS = new Set(["true", "1", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off"]);

/**
 * Parse one raw value for `spec`. Text (environment variables, command-line
 * options) is parsed; a TOML file has types, so there a string is not a number.
 */
function parseValue(
  spec: ConfigKeySpec,
  raw: unknown,
  textAllowed: boolean,
): { ok: true; value: unknown } | { ok: false; expected: string } {
  switch (spec.type) {
    case "boolean": {
      if (typeof raw === "boolean") return { ok: true, value: raw };
      if (typeof raw === "string" && textAllowed) {
        const word = raw.trim().toLowerCase();
        if (TRUE_WORDS.has(word)) return { ok: true, value: true };
        if (FALSE_WORDS.has(word)) return { ok: true, value: false };
      }
      return { ok: false, expected: "a boolean (true or false)" };
    }
    case "integer": {
      let n: number | undefined;
      if (typeof raw === "number") n = raw;
      else if (typeof raw === "bigint") n = Number(raw);
      else if (typeof raw === "string" && textAllowed && /^\s*[+-]?\d+\s*$/.test(raw)) {
        n = Number(raw.trim());
      }
      const min = spec.min ?? Number.MIN_SAFE_INTEGER;
      const max = spec.max ?? Number.MAX_SAFE_INTEGER;
      const expected =
        spec.max === undefined ? `an integer >= ${min}` : `an integer between ${min} and ${max}`;
      if (n === undefined || !Number.isSafeInteger(n) || n < min || n > max) {
        return { ok: false, expected };
      }
      return { ok: true, value: n };
    }
    case "string":
      if (typeof raw === "string") return { ok: true, value: raw };
      return { ok: false, expected: "a string" };
    case "list":
      // A comma-separated string is the form of the environment, and is kept in files too.
      if (typeof raw === "string") return { ok: true, value: commaItems(raw) };
      if (Array.isArray(raw) && raw.every((item) => typeof item === "string")) {
        return { ok: true, value: raw.map((s) => s.trim()).filter((s) => s.length > 0) };
      }
      return { ok: false, expected: 'an array of strings (e.g. ["a", "b"]) or "a,b"' };
  }
}

/**
 * Resolve one section: each key takes the value of the highest layer that sets it.
 * A bad value throws {@link ConfigValueError} naming the key, the value and its
 * source; an unknown key inside the section's file table is an error too (a typo
 * must not silently fall back to the default).
 */
export function resolveConfigSection<S extends ConfigSectionSpec>(
  options: ResolveSectionOptions<S>,
): ResolvedSection<S> {
  const { section, keys, file, env = {}, envPrefix = "ATLATL", overrides = {} } = options;
  let table: Record<string, unknown> = {};
  if (file) {
    const found = lookupTable(file.data, section);
    if (found !== undefined) {
      if (found === null || typeof found !== "object" || Array.isArray(found)) {
        throw new ConfigValueError(section, found, `file ${file.path}`, `a table [${section}]`);
      }
      table = found as Record<string, unknown>;
      for (const name of Object.keys(table)) {
        if (!Object.hasOwn(keys, name)) {
          throw new LroError(
            "CONFIG_INVALID",
            `unknown key ${section}.${name} (from file ${file.path}); known keys: ${Object.keys(keys).join(", ")}`,
          );
        }
      }
    }
  }

  const values: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};
  const entries: ConfigEntry[] = [];
  for (const [name, spec] of Object.entries(keys)) {
    const dotted = `${section}.${name}`;
    const envName = configEnvName(section, name, envPrefix);
    let raw: unknown;
    let source: ConfigSource = "default";
    let origin: ConfigOrigin = { kind: "default" };
    const override = (overrides as Record<string, unknown>)[name];
    if (override !== undefined) {
      raw = override;
      source = "option";
      origin = { kind: "option" };
    } else if (env[envName] !== undefined) {
      raw = env[envName];
      source = `env ${envName}`;
      origin = { kind: "env" };
    } else if (file && table[name] !== undefined) {
      raw = table[name];
      source = `file ${file.path}`;
      origin = { kind: "file", file: file.path };
    } else {
      raw = typeof spec.default === "function" ? spec.default() : spec.default;
    }
    const parsed = parseValue(spec, raw, origin.kind === "env" || origin.kind === "option");
    if (!parsed.ok) throw new ConfigValueError(dotted, raw, source, parsed.expected);
    let value = parsed.value;
    const problem = (spec.check as ((v: unknown) => string | undefined) | undefined)?.(value);
    if (problem !== undefined) throw new ConfigValueError(dotted, raw, source, problem);
    if (spec.normalize)
      value = (spec.normalize as (v: unknown, o: ConfigOrigin) => unknown)(value, origin);
    values[name] = value;
    sources[name] = source;
    entries.push({
      key: dotted,
      env: envName,
      value,
      source,
      ...(spec.description ? { description: spec.description } : {}),
    });
  }
  return {
    values: values as ConfigValues<S>,
    sources: sources as { [K in keyof S]: ConfigSource },
    entries,
  };
}
