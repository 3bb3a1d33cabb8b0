/**
 * Claude Code asks before every command that reads outside the project, and an
 * offload file's recipes (`jq … /tmp/atlatl-0/…`) always do; in `-p` mode the
 * question is a denial. `install` for claude-code therefore adds the offload
 * directory to `permissions.additionalDirectories` in the user settings (the
 * setting behind `claude --add-dir`).
 *
 * Both installers grant it, so the grant is shared: each one's record says it
 * uses the directory, and an uninstall takes the grant back only when the other
 * installer no longer uses it and it was not there before either granted it.
 */
import { join } from "node:path";
import { readIfExists } from "./atomic-write.js";
import type { ClientEnv } from "./clients.js";
import { jsonFormat } from "./json-format.js";
import type { EntryReport, FilePlan } from "./plan.js";
import {
  type InstallRecord,
  otherTool,
  type RecordUpdate,
  readRecord,
  restorableBytes,
  type Tool,
  textHash,
} from "./records.js";

/** Settings files may hold comments (JSONC, as Claude Code's docs write them); they are kept. */
const settingsFormat = jsonFormat(true);
const MAP = "permissions.additionalDirectories";

/** Claude Code's user settings file (`$CLAUDE_CONFIG_DIR/settings.json`, default `~/.claude`). */
function claudeSettingsPath(where: ClientEnv): string {
  return join(where.env.CLAUDE_CONFIG_DIR ?? join(where.home, ".claude"), "settings.json");
}

function directoriesOf(doc: Record<string, unknown>): string[] {
  const permissions = doc.permissions as Record<string, unknown> | undefined;
  const dirs = permissions?.additionalDirectories;
  return Array.isArray(dirs) ? dirs.filter((d): d is string => typeof d === "string") : [];
}

/** The other installer's record when it uses the grant of `dir`. */
function otherUser(where: ClientEnv, path: string, tool: Tool, dir: string) {
  const record = readRecord(where, path, otherTool(tool));
  return record?.grant?.dir === dir ? record : undefined;
}

/** The plan that lets Claude Code read `dir` without asking, for `tool`. */
export function planGrantDirectory(where: ClientEnv, dir: string, tool: Tool): FilePlan {
  const path = claudeSettingsPath(where);
  const before = readIfExists(path);
  const text = before ?? settingsFormat.empty;
  const dirs = directoriesOf(settingsFormat.parse(text, path));
  const entry = { map: MAP, name: dir };
  if (dirs.includes(dir)) {
    const unchanged = { path, before, after: text, notes: [] };
    if (readRecord(where, path, tool)?.grant?.dir === dir) {
      return { ...unchanged, entries: [{ ...entry, action: "unchanged" }] };
    }
    const other = otherUser(where, path, tool, dir);
    const preexisting = other?.grant?.preexisting ?? true;
    const value: InstallRecord = {
      path,
      after: textHash(text),
      grant: { dir, added: false, preexisting },
    };
    const reason = other ? `granted by ${otherTool(tool)} install` : "it was there already";
    return {
      ...unchanged,
      entries: [{ ...entry, action: "unchanged", reason }],
      records: [{ tool, value }],
    };
  }
  const after = settingsFormat.editEntry(text, [], "permissions", {
    additionalDirectories: [...dirs, dir],
  });
  const value: InstallRecord = {
    path,
    before: before ?? null,
    after: textHash(after),
    grant: { dir, added: true, preexisting: false },
  };
  return {
    path,
    before,
    after,
    entries: [{ ...entry, action: "added" }],
    notes: [`Claude Code may now read ${dir} (offload files) without asking`],
    records: [{ tool, value }],
  };
}

/** `text` without `dir` in the granted directories (and without the keys that leaves empty). */
function withoutDirectory(path: string, text: string, dirs: string[], dir: string): string {
  const rest = dirs.filter((d) => d !== dir);
  const out = settingsFormat.editEntry(text, [], "permissions", {
    additionalDirectories: rest.length > 0 ? rest : undefined,
  });
  const permissions = settingsFormat.parse(out, path).permissions;
  const empty =
    permissions !== null &&
    typeof permissions === "object" &&
    Object.keys(permissions).length === 0;
  return empty ? settingsFormat.removeEntry(out, [], "permissions") : out;
}

/**
 * The plan that takes `tool`'s grant back: kept while the other installer uses
 * it or when it was there before; else the bytes from before the grant when the
 * file is exactly what was written then, or the directory taken out of the list.
 */
export function planRevokeDirectory(
  where: ClientEnv,
  dir: string,
  tool: Tool,
): FilePlan | undefined {
  const path = claudeSettingsPath(where);
  const before = readIfExists(path);
  if (before === undefined) return undefined;
  const dirs = directoriesOf(settingsFormat.parse(before, path));
  const entry = { map: MAP, name: dir };
  const mine = readRecord(where, path, tool);
  const same = { path, before, after: before };
  if (mine?.grant?.dir !== dir) {
    const note = `${dir} stays in ${MAP} (no record that \`${tool} install\` granted it)`;
    return { ...same, entries: [], notes: dirs.includes(dir) ? [note] : [] };
  }
  const records: RecordUpdate[] = [{ tool, value: null }];
  const kept = (reason: string): FilePlan => ({
    ...same,
    entries: [{ ...entry, action: "kept", reason } satisfies EntryReport],
    notes: [],
    records,
  });
  const other = otherUser(where, path, tool, dir);
  if (other) {
    // The other installer inherits the bytes from before the grant while both describe this file.
    const now = textHash(before);
    if (
      mine.grant.added &&
      mine.before !== undefined &&
      mine.after === now &&
      other.after === now
    ) {
      const grant = { dir, added: true, preexisting: false };
      records.push({ tool: otherTool(tool), value: { ...other, before: mine.before, grant } });
    }
    return kept(`${otherTool(tool)} still uses it`);
  }
  if (mine.grant.preexisting) return kept("it was there before install");
  const restored = mine.grant.added ? restorableBytes(mine, before) : undefined;
  const after =
    restored !== undefined
      ? restored
      : dirs.includes(dir)
        ? withoutDirectory(path, before, dirs, dir)
        : before;
  return {
    ...same,
    after,
    entries: dirs.includes(dir) ? [{ ...entry, action: "removed" }] : [],
    notes: [],
    records,
  };
}
