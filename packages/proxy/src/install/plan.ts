/**
 * Planning the change to each config file of a client: the new text and what
 * happened to each server entry. Nothing is written here (see apply.ts), so
 * `--dry-run` and the real run share every decision.
 */

import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { bytesBeforeInstall, installBackups, readIfExists } from "./atomic-write.js";
import type { ClientEnv, ClientFile, ClientSpec } from "./clients.js";
import { type MapPath, tableAt } from "./config-format.js";
import { type EntryChanges, type RawEntry, stringMap } from "./dialects.js";
import { hideLiteralHeaders, revealLiteralHeaders } from "./header-secrets.js";
import {
  isAtlatlServer,
  type ProxyLauncher,
  readWrappedCommandLine,
  type ServerTarget,
  type WrapOptions,
  wrappedCommandLine,
} from "./wrap-rule.js";

/** What happened to one server entry. */
export interface EntryReport {
  /** The table, e.g. `mcpServers` or `projects./repo.mcpServers`. */
  map: string;
  name: string;
  action: "wrapped" | "unwrapped" | "restored" | "unchanged" | "skipped" | "added" | "removed";
  reason?: string;
}

/** The change to one file. `after === before` when nothing changes; `after: null` removes it. */
export interface FilePlan {
  path: string;
  before: string | undefined;
  after: string | null;
  entries: EntryReport[];
  /** Notes for the user about this file. */
  notes: string[];
}

/** Which servers a run touches. */
export interface Selection {
  only?: readonly string[] | undefined;
  except?: readonly string[] | undefined;
}

/** What `install`/`uninstall` of the proxy are asked. */
export interface WrapRequest {
  client: ClientSpec;
  where: ClientEnv;
  /** A config file to use instead of the client's default locations. */
  configPath?: string | undefined;
  selection: Selection;
  options: WrapOptions;
  launcher: ProxyLauncher;
}

function selected(name: string, s: Selection): boolean {
  if (s.only && s.only.length > 0 && !s.only.includes(name)) return false;
  return !s.except?.includes(name);
}

/** The files a request covers: `--config`, else the client's default locations. */
export function filesOf(client: ClientSpec, where: ClientEnv, configPath?: string): ClientFile[] {
  return configPath !== undefined ? [client.file(configPath)] : client.files(where);
}

function mapName(map: MapPath): string {
  return map.join(".");
}

/** Each server entry of a document: its table, name and value. */
function entriesOf(file: ClientFile, doc: Record<string, unknown>) {
  return file.maps(doc).flatMap((map) =>
    Object.entries(tableAt(doc, map) ?? {})
      .filter(([, e]) => e !== null && typeof e === "object" && !Array.isArray(e))
      .map(([name, entry]) => ({ map, name, entry: entry as RawEntry })),
  );
}

/** Wrap every selected stdio and HTTP server of one file. */
function planWrapFile(req: WrapRequest, file: ClientFile): FilePlan | undefined {
  const before = readIfExists(file.path);
  if (before === undefined) return undefined;
  const { client } = req;
  let text = before;
  const entries: EntryReport[] = [];
  for (const { map, name, entry } of entriesOf(file, client.format.parse(before, file.path))) {
    const at = { map: mapName(map), name };
    if (!selected(name, req.selection)) continue;
    const wrapped = readWrappedCommandLine(entry.command, entry.args);
    const target = wrapped?.target ?? client.dialect.target(entry);
    if (target === undefined) {
      entries.push({ ...at, action: "skipped", reason: "neither a command nor a URL" });
      continue;
    }
    if (target.kind === "stdio" && isAtlatlServer(target.command, target.args)) {
      entries.push({ ...at, action: "skipped", reason: "the atlatl server offloads by itself" });
      continue;
    }
    // Literal header values go to the entry's env, never onto the command line.
    const hidden = hideLiteralHeaders(target, stringMap(entry.env));
    const line = wrappedCommandLine(req.launcher, hidden.target, req.options);
    if (wrapped && entry.command === line.command && isDeepStrictEqual(entry.args, line.args)) {
      entries.push({ ...at, action: "unchanged", reason: "already wrapped" });
      continue;
    }
    const withEnv = hidden.env ? { ...entry, env: hidden.env } : entry;
    const changes: EntryChanges = wrapped
      ? { command: line.command, args: line.args }
      : client.dialect.toCommand(withEnv, hidden.target, line.command, line.args);
    if (hidden.env) changes.env = hidden.env;
    text = client.format.editEntry(text, map, name, changes);
    entries.push({ ...at, action: "wrapped" });
  }
  return { path: file.path, before, after: text, entries, notes: [] };
}

/** The plan of `atlatl-proxy install <client>`. */
export function planWrap(req: WrapRequest): FilePlan[] {
  return filesOf(req.client, req.where, req.configPath).flatMap((f) => planWrapFile(req, f) ?? []);
}

/**
 * The entry as it was before install, from the newest install backup holding
 * an unwrapped entry of that name running the same server.
 */
function originalEntry(
  req: WrapRequest,
  path: string,
  map: MapPath,
  name: string,
  target: ServerTarget,
): RawEntry | undefined {
  for (const backup of installBackups(path)) {
    let doc: Record<string, unknown>;
    try {
      doc = req.client.format.parse(readFileSync(backup, "utf8"), backup);
    } catch {
      continue;
    }
    const entry = tableAt(doc, map)?.[name];
    if (entry === undefined || readWrappedCommandLine(entry.command, entry.args)) continue;
    if (isDeepStrictEqual(req.client.dialect.target(entry), target)) return entry;
  }
  return undefined;
}

/** Changes that make `entry` equal `original` key for key (order of untouched keys kept). */
function becomeChanges(entry: RawEntry, original: RawEntry): EntryChanges {
  const changes: EntryChanges = {};
  for (const key of Object.keys(entry)) if (!(key in original)) changes[key] = undefined;
  for (const [key, value] of Object.entries(original)) {
    if (!isDeepStrictEqual(entry[key], value)) changes[key] = value;
  }
  return changes;
}

/** Unwrap the selected wrapped servers of one file. */
function planUnwrapFile(req: WrapRequest, file: ClientFile): FilePlan | undefined {
  const before = readIfExists(file.path);
  if (before === undefined) return undefined;
  const { client } = req;
  const entries: EntryReport[] = [];
  const notes: string[] = [];
  const everything = !req.selection.only?.length && !req.selection.except?.length;
  // Nothing changed since install: the bytes from before it, exactly.
  const restored = everything ? bytesBeforeInstall(file.path, before) : undefined;
  if (restored === null) {
    notes.push("removed: install created this file and it had not changed since");
    return { path: file.path, before, after: null, entries, notes };
  }
  if (restored !== undefined) {
    for (const { map, name, entry } of entriesOf(file, client.format.parse(before, file.path))) {
      if (readWrappedCommandLine(entry.command, entry.args)) {
        entries.push({ map: mapName(map), name, action: "restored" });
      }
    }
    notes.push("restored the bytes from before install (the file had not changed since)");
  }
  let text = restored ?? before;
  for (const { map, name, entry } of entriesOf(file, client.format.parse(text, file.path))) {
    if (!selected(name, req.selection)) continue;
    const wrapped = readWrappedCommandLine(entry.command, entry.args);
    if (!wrapped) continue;
    const shown = revealLiteralHeaders(wrapped.target, stringMap(entry.env));
    const original = originalEntry(req, file.path, map, name, shown.target);
    const changes = original
      ? becomeChanges(entry, original)
      : {
          ...client.dialect.fromCommand(entry, shown.target),
          ...("env" in shown ? { env: shown.env } : {}),
        };
    text = client.format.editEntry(text, map, name, changes);
    entries.push({ map: mapName(map), name, action: "unwrapped" });
  }
  return { path: file.path, before, after: text, entries, notes };
}

/** The plan of `atlatl-proxy uninstall <client>`. */
export function planUnwrap(req: WrapRequest): FilePlan[] {
  return filesOf(req.client, req.where, req.configPath).flatMap(
    (f) => planUnwrapFile(req, f) ?? [],
  );
}
