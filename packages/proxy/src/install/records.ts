/**
 * Each installer's record of its own change to one config file, so that its
 * uninstall undoes exactly that change and nothing the other installer (or the
 * user, or the client itself) did. `atlatl install` and `atlatl-proxy install`
 * edit the same files; a record is per file and per tool.
 *
 * `before` holds the bytes from before the tool's change only while they are
 * known to hold none of it: uninstall puts them back when the file is still
 * exactly what the tool wrote last (`after`), and otherwise undoes the change
 * entry by entry.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientEnv } from "./clients.js";
import type { RawEntry } from "./dialects.js";
import { fileStateDir } from "./state-dir.js";

/** The two installers, by command name. */
export type Tool = "atlatl" | "atlatl-proxy";

/** One entry `atlatl-proxy install` wrapped: as it was, and as wrapped. */
export interface WrappedEntry {
  map: string[];
  name: string;
  original: RawEntry;
  wrapped: RawEntry;
}

/** A directory granted in Claude Code's settings. */
interface GrantRecord {
  dir: string;
  /** This tool's write added it (rather than finding it there). */
  added: boolean;
  /** It was there before either installer granted it: the user's, never taken back. */
  preexisting: boolean;
}

/** What one tool changed in one file. */
export interface InstallRecord {
  path: string;
  /** The bytes before the change (null: no file); absent when not known to be free of it. */
  before?: string | null;
  /** Hash of the text the tool wrote (or found unchanged) last. */
  after: string;
  wrapped?: WrappedEntry[];
  grant?: GrantRecord;
}

/** A record to save with a plan's write: the new one, or null to forget it. */
export interface RecordUpdate {
  tool: Tool;
  value: InstallRecord | null;
}

/** The hash stored as `after`. */
export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function recordPath(where: ClientEnv, path: string, tool: Tool): string {
  return join(fileStateDir(where, path), `${tool}.json`);
}

/** The tool's record of `path`, if any (an unreadable one counts as none). */
export function readRecord(where: ClientEnv, path: string, tool: Tool): InstallRecord | undefined {
  try {
    return JSON.parse(readFileSync(recordPath(where, path, tool), "utf8")) as InstallRecord;
  } catch {
    return undefined;
  }
}

/** Save or forget the record (0600 in a 0700 folder: it may hold a config's secrets). */
export function writeRecord(where: ClientEnv, path: string, update: RecordUpdate): void {
  const file = recordPath(where, path, update.tool);
  if (update.value === null) {
    rmSync(file, { force: true });
    return;
  }
  const text = `${JSON.stringify(update.value, null, 2)}\n`;
  try {
    if (readFileSync(file, "utf8") === text) return;
  } catch {
    // No record yet.
  }
  mkdirSync(fileStateDir(where, path), { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { mode: 0o600 });
}

/**
 * The bytes from before the tool's change when `current` is exactly what it
 * wrote last (undefined otherwise, or when they are not known).
 */
export function restorableBytes(
  record: InstallRecord | undefined,
  current: string,
): string | null | undefined {
  return record !== undefined && record.after === textHash(current) ? record.before : undefined;
}

/** The other installer. */
export function otherTool(tool: Tool): Tool {
  return tool === "atlatl" ? "atlatl-proxy" : "atlatl";
}
