/**
 * How each client spells a server entry: where an HTTP server's URL and headers
 * live, and how a command line is written. The wrap rule (wrap-rule.ts) is the
 * same for all; only these spellings differ.
 */
import { bearerVariable, envReference, referencedVariable } from "../config/env-reference.js";
import type { ServerTarget } from "./wrap-rule.js";

/** One server entry as the config file holds it. */
export type RawEntry = Record<string, unknown>;

/** Key changes to one entry: a value sets the key, `undefined` removes it. */
export type EntryChanges = Record<string, unknown>;

/** A client's spelling of server entries. */
export interface EntryDialect {
  /** The server an (unwrapped) entry runs; undefined when it is neither a command nor a URL. */
  target(entry: RawEntry): ServerTarget | undefined;
  /** The changes that turn `entry` (which runs `target`) into a proxy command line. */
  toCommand(entry: RawEntry, target: ServerTarget, command: string, args: string[]): EntryChanges;
  /** The changes that turn a wrapped entry back into `target`'s own entry (no backup to copy). */
  fromCommand(entry: RawEntry, target: ServerTarget): EntryChanges;
}

/** The string values of a table (an entry's `env`, `headers`); other values are not ours to judge. */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  return out;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * The JSON clients' dialect. `urlKeys` are the keys naming an HTTP server's URL
 * (Windsurf `serverUrl`, Gemini `httpUrl`/`url`, the others `url`); `type` is
 * kept in step with the transport when the entry has one.
 */
export function jsonDialect(urlKeys: readonly string[], httpForm: (url: string) => RawEntry) {
  const dialect: EntryDialect = {
    target(entry) {
      if (typeof entry.command === "string") {
        return { kind: "stdio", command: entry.command, args: stringList(entry.args) };
      }
      for (const key of urlKeys) {
        const url = entry[key];
        if (typeof url === "string")
          return { kind: "http", url, headers: stringMap(entry.headers) };
      }
      return undefined;
    },
    toCommand(entry, target, command, args) {
      const changes: EntryChanges = { command, args };
      if (target.kind === "http") {
        for (const key of [...urlKeys, "headers"]) if (key in entry) changes[key] = undefined;
        if ("type" in entry) changes.type = "stdio";
      }
      return changes;
    },
    fromCommand(entry, target) {
      if (target.kind === "stdio") return { command: target.command, args: target.args };
      const changes: EntryChanges = { command: undefined, args: undefined };
      if (entry.type === "stdio") changes.type = undefined;
      Object.assign(changes, httpForm(target.url));
      if (Object.keys(target.headers).length > 0) changes.headers = target.headers;
      return changes;
    },
  };
  return dialect;
}

/**
 * Codex's `[mcp_servers.NAME]` tables. Codex names header secrets by env var
 * (`bearer_token_env_var`, `env_http_headers`) and passes a stdio server only
 * the variables listed in `env_vars`: a wrapped HTTP entry therefore writes
 * `-H "Authorization: Bearer ${TOKEN}"` (the proxy expands it at start) and
 * lists TOKEN in `env_vars`.
 */
export const codexDialect: EntryDialect = {
  target(entry) {
    if (typeof entry.command === "string") {
      return { kind: "stdio", command: entry.command, args: stringList(entry.args) };
    }
    if (typeof entry.url !== "string") return undefined;
    const headers = stringMap(entry.http_headers);
    for (const [name, env] of Object.entries(stringMap(entry.env_http_headers))) {
      headers[name] = envReference(env);
    }
    if (typeof entry.bearer_token_env_var === "string") {
      headers.Authorization = `Bearer ${envReference(entry.bearer_token_env_var)}`;
    }
    return { kind: "http", url: entry.url, headers };
  },
  toCommand(entry, target, command, args) {
    const changes: EntryChanges = { command, args };
    if (target.kind === "http") {
      for (const key of ["url", "http_headers", "env_http_headers", "bearer_token_env_var"]) {
        if (key in entry) changes[key] = undefined;
      }
      const refs = Object.values(target.headers).flatMap(
        (v) => referencedVariable(v) ?? bearerVariable(v) ?? [],
      );
      // A variable the entry's own env sets (a header secret install moved there) is not Codex's to pass.
      const own = stringMap(entry.env);
      const envVars = stringList(entry.env_vars);
      const added = refs.filter((r) => !envVars.includes(r) && own[r] === undefined);
      if (added.length > 0) changes.env_vars = [...envVars, ...added];
    }
    return changes;
  },
  fromCommand(_entry, target) {
    if (target.kind === "stdio") return { command: target.command, args: target.args };
    const changes: EntryChanges = { command: undefined, args: undefined, url: target.url };
    const literal: Record<string, string> = {};
    const fromEnv: Record<string, string> = {};
    for (const [name, value] of Object.entries(target.headers)) {
      const bearer = name.toLowerCase() === "authorization" ? bearerVariable(value) : undefined;
      const ref = referencedVariable(value);
      if (bearer) changes.bearer_token_env_var = bearer;
      else if (ref) fromEnv[name] = ref;
      else literal[name] = value;
    }
    if (Object.keys(literal).length > 0) changes.http_headers = literal;
    if (Object.keys(fromEnv).length > 0) changes.env_http_headers = fromEnv;
    return changes;
  },
};
