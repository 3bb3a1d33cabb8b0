/**
 * Claude Code asks before every command that reads outside the project, and an
 * offload file's recipes (`jq … /tmp/atlatl-0/…`) always do; in `-p` mode the
 * question is a denial. `install` for claude-code therefore adds the offload
 * directory to `permissions.additionalDirectories` in the user settings (the
 * setting behind `claude --add-dir`).
 */
import { join } from "node:path";
import { bytesBeforeInstall, readIfExists } from "./atomic-write.js";
import type { ClientEnv } from "./clients.js";
import { jsonFormat } from "./json-format.js";
import type { FilePlan } from "./plan.js";

/** Settings files may hold comments (JSONC, as Claude Code's docs write them); they are kept. */
const settingsFormat = jsonFormat(true);

/** Claude Code's user settings file (`$CLAUDE_CONFIG_DIR/settings.json`, default `~/.claude`). */
export function claudeSettingsPath(where: ClientEnv): string {
  return join(where.env.CLAUDE_CONFIG_DIR ?? join(where.home, ".claude"), "settings.json");
}

function directoriesOf(doc: Record<string, unknown>): string[] {
  const permissions = doc.permissions as Record<string, unknown> | undefined;
  const dirs = permissions?.additionalDirectories;
  return Array.isArray(dirs) ? dirs.filter((d): d is string => typeof d === "string") : [];
}

/** The plan that lets Claude Code read `dir` without asking. */
export function planGrantDirectory(where: ClientEnv, dir: string): FilePlan {
  const path = claudeSettingsPath(where);
  const before = readIfExists(path);
  const text = before ?? settingsFormat.empty;
  const dirs = directoriesOf(settingsFormat.parse(text, path));
  const entry = { map: "permissions.additionalDirectories", name: dir };
  if (dirs.includes(dir)) {
    return { path, before, after: text, entries: [{ ...entry, action: "unchanged" }], notes: [] };
  }
  const after = settingsFormat.editEntry(text, [], "permissions", {
    additionalDirectories: [...dirs, dir],
  });
  return {
    path,
    before,
    after,
    entries: [{ ...entry, action: "added" }],
    notes: [`Claude Code may now read ${dir} (offload files) without asking`],
  };
}

/**
 * The plan that takes the grant back, only by restoring the bytes from before
 * install: when the settings changed since, the directory stays (it may have
 * been the user's own), and a note says so.
 */
export function planRevokeDirectory(where: ClientEnv, dir: string): FilePlan | undefined {
  const path = claudeSettingsPath(where);
  const before = readIfExists(path);
  if (before === undefined) return undefined;
  const restored = bytesBeforeInstall(path, before);
  if (restored !== undefined) {
    // The bytes from before install, or no file when install created it.
    return {
      path,
      before,
      after: restored,
      entries: [{ map: "permissions.additionalDirectories", name: dir, action: "removed" }],
      notes: [],
    };
  }
  const kept = directoriesOf(settingsFormat.parse(before, path)).includes(dir);
  return {
    path,
    before,
    after: before,
    entries: [],
    notes: kept
      ? [`${dir} stays in permissions.additionalDirectories (the settings changed since install)`]
      : [],
  };
}
