/**
 * Planning the change to each config file of a client: the new text and what
 * happened to each server entry. Nothing is written here (see apply.ts), so
 * `--dry-run` and the real run share every decision.
 */

import { isDeepStrictEqual } from "node:util";
import { readIfExists } from "./atomic-write.js";
import type { ClientEnv, ClientFile, ClientSpec } from "./clients.js";
import { type MapPath, tableAt } from "./config-format.js";
import { type EntryChanges, type RawEntry, stringMap } from "./dialects.js";
import { hideLiteralHeaders, revealLiteralHeaders } from "./header-secrets.js";
import { portableLauncher } from "./launcher.js";
import {
  type InstallRecord,
  type RecordUpdate,
  readRecord,
  restorableBytes,
  type Tool,
  textHash,
  type WrappedEntry,
} from "./records.js";
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
  action:
    | "wrapped"
    | "unwrapped"
    | "unchanged"
    | "skipped"
    | "added"
    | "updated"
    | "removed"
    | "kept";
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
  /** The installers' records of this file, saved with the write. */
  records?: RecordUpdate[];
}

/** Which servers a run touches. */
interface Selection {
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
  /** Also a project's own file (`.mcp.json`), which is left alone unless asked. */
  project?: boolean | undefined;
}

const TOOL: Tool = "atlatl-proxy";

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

function entryKey(map: MapPath, name: string): string {
  return JSON.stringify([...map, name]);
}

/** The entry with `changes` applied, as the record keeps it. */
function changed(entry: RawEntry, changes: EntryChanges): RawEntry {
  const out: RawEntry = { ...entry };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}

/** The entries of the record by key. */
function recordedEntries(record: InstallRecord | undefined): Map<string, WrappedEntry> {
  return new Map((record?.wrapped ?? []).map((w) => [entryKey(w.map, w.name), w]));
}

/**
 * The bytes from before our change, when known: the file itself when it holds
 * no wrapped entry, else the record's while the file is what we wrote last.
 */
function beforeOurs(
  client: ClientSpec,
  file: ClientFile,
  text: string,
  record: InstallRecord | undefined,
): string | null | undefined {
  const anyWrapped = entriesOf(file, client.format.parse(text, file.path)).some(({ entry }) =>
    readWrappedCommandLine(entry.command, entry.args),
  );
  return anyWrapped ? restorableBytes(record, text) : text;
}

/** Our record after a run that leaves `wrapped` wrapped in `text`. */
function recordAfter(
  path: string,
  text: string,
  before: string | null | undefined,
  wrapped: WrappedEntry[],
): RecordUpdate {
  if (wrapped.length === 0) return { tool: TOOL, value: null };
  const value: InstallRecord = { path, after: textHash(text), wrapped };
  if (before !== undefined) value.before = before;
  return { tool: TOOL, value };
}

const PROJECT_NOTE =
  "left as it is: the project's own file, usually committed (--project wraps its servers with `atlatl-proxy` from PATH)";

/** Wrap every selected stdio and HTTP server of one file. */
function planWrapFile(req: WrapRequest, file: ClientFile): FilePlan | undefined {
  const before = readIfExists(file.path);
  if (before === undefined) return undefined;
  if (file.shared && !req.project) {
    return { path: file.path, before, after: before, entries: [], notes: [PROJECT_NOTE] };
  }
  const { client } = req;
  const record = readRecord(req.where, file.path, TOOL);
  const recorded = recordedEntries(record);
  const launcher = file.shared ? portableLauncher() : req.launcher;
  // A project's file is shared: no path of this machine (its offload directory
  // included) goes into it; each machine's proxy uses its own default directory.
  const options = file.shared ? { ...req.options, outputDir: undefined } : req.options;
  let text = before;
  const entries: EntryReport[] = [];
  const wrappedNow: WrappedEntry[] = [];
  for (const { map, name, entry } of entriesOf(file, client.format.parse(before, file.path))) {
    const at = { map: mapName(map), name };
    const wrapped = readWrappedCommandLine(entry.command, entry.args);
    const mine = wrapped ? recorded.get(entryKey(map, name)) : undefined;
    if (!selected(name, req.selection)) {
      if (mine) wrappedNow.push(mine);
      continue;
    }
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
    const line = wrappedCommandLine(launcher, hidden.target, options);
    if (wrapped && entry.command === line.command && isDeepStrictEqual(entry.args, line.args)) {
      if (mine) wrappedNow.push(mine);
      entries.push({ ...at, action: "unchanged", reason: "already wrapped" });
      continue;
    }
    const withEnv = hidden.env ? { ...entry, env: hidden.env } : entry;
    const changes: EntryChanges = wrapped
      ? { command: line.command, args: line.args }
      : client.dialect.toCommand(withEnv, hidden.target, line.command, line.args);
    if (hidden.env) changes.env = hidden.env;
    text = client.format.editEntry(text, map, name, changes);
    const original = wrapped ? mine?.original : entry;
    if (original) wrappedNow.push({ map, name, original, wrapped: changed(entry, changes) });
    entries.push({ ...at, action: "wrapped" });
  }
  const notes =
    file.shared && entries.some((e) => e.action === "wrapped")
      ? ["wrapped with `atlatl-proxy` from PATH: everyone who uses this project needs it installed"]
      : [];
  const saved = recordAfter(file.path, text, beforeOurs(client, file, before, record), wrappedNow);
  return { path: file.path, before, after: text, entries, notes, records: [saved] };
}

/** The plan of `atlatl-proxy install <client>`. */
export function planWrap(req: WrapRequest): FilePlan[] {
  return filesOf(req.client, req.where, req.configPath).flatMap((f) => planWrapFile(req, f) ?? []);
}

/**
 * The changes that unwrap `entry` (which runs `target`). With our record of the
 * entry and the same server inside, exactly the keys install changed go back,
 * each only if still as install wrote it: everything else (an `env` token
 * rotated since, say) stays as it is now.
 */
function unwrapChanges(
  client: ClientSpec,
  entry: RawEntry,
  target: ServerTarget,
  mine: WrappedEntry | undefined,
): { changes: EntryChanges; reason?: string } {
  if (mine === undefined) return { changes: client.dialect.fromCommand(entry, target) };
  if (!isDeepStrictEqual(client.dialect.target(mine.original), target)) {
    return {
      changes: client.dialect.fromCommand(entry, target),
      reason: "its server changed since install: unwrapped to the server as it is now",
    };
  }
  const changes: EntryChanges = {};
  const { original, wrapped } = mine;
  for (const key of new Set([...Object.keys(original), ...Object.keys(wrapped)])) {
    if (isDeepStrictEqual(original[key], wrapped[key])) continue;
    const commandLine = key === "command" || key === "args";
    if (!commandLine && !isDeepStrictEqual(entry[key], wrapped[key])) continue;
    if (!isDeepStrictEqual(entry[key], original[key])) changes[key] = original[key];
  }
  return { changes };
}

/** Unwrap the selected wrapped servers of one file. */
function planUnwrapFile(req: WrapRequest, file: ClientFile): FilePlan | undefined {
  const before = readIfExists(file.path);
  if (before === undefined) return undefined;
  const { client } = req;
  const record = readRecord(req.where, file.path, TOOL);
  const doc = client.format.parse(before, file.path);
  const wrappedEntries = entriesOf(file, doc).filter(({ entry }) =>
    readWrappedCommandLine(entry.command, entry.args),
  );
  if (file.shared && !req.project && record === undefined) {
    if (wrappedEntries.length === 0) return undefined;
    const note = "left as it is: the project's own file (--project unwraps its servers)";
    return { path: file.path, before, after: before, entries: [], notes: [note] };
  }
  const everything = !req.selection.only?.length && !req.selection.except?.length;
  // Nothing but our change since install: the bytes from before it, exactly.
  const restored = everything ? restorableBytes(record, before) : undefined;
  if (restored !== undefined) {
    return {
      path: file.path,
      before,
      after: restored,
      entries: (record?.wrapped ?? []).map((w) => ({
        map: mapName(w.map),
        name: w.name,
        action: "unwrapped" as const,
      })),
      notes: ["put back the bytes from before `atlatl-proxy install` (nothing else had changed)"],
      records: [{ tool: TOOL, value: null }],
    };
  }
  const recorded = recordedEntries(record);
  let text = before;
  const entries: EntryReport[] = [];
  const remaining: WrappedEntry[] = [];
  for (const { map, name, entry } of wrappedEntries) {
    const mine = recorded.get(entryKey(map, name));
    if (!selected(name, req.selection)) {
      if (mine) remaining.push(mine);
      continue;
    }
    const wrapped = readWrappedCommandLine(entry.command, entry.args);
    if (!wrapped) continue;
    // Our variables' values back into the headers, out of the entry's env.
    const shown = revealLiteralHeaders(wrapped.target, stringMap(entry.env));
    const { changes, reason } = unwrapChanges(client, entry, shown.target, mine);
    if ("env" in shown && !("env" in changes)) changes.env = shown.env;
    text = client.format.editEntry(text, map, name, changes);
    entries.push({ map: mapName(map), name, action: "unwrapped", ...(reason ? { reason } : {}) });
  }
  const notes =
    record === undefined && entries.length > 0
      ? ["no record of install here: unwrapped from each entry's proxy command line"]
      : [];
  const after = recordAfter(file.path, text, restorableBytes(record, before), remaining);
  return { path: file.path, before, after: text, entries, notes, records: [after] };
}

/** The plan of `atlatl-proxy uninstall <client>`. */
export function planUnwrap(req: WrapRequest): FilePlan[] {
  return filesOf(req.client, req.where, req.configPath).flatMap(
    (f) => planUnwrapFile(req, f) ?? [],
  );
}
