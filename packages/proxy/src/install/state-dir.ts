/**
 * Where the installers keep what they need to undo their own change and the
 * backups of the files they wrote: a per-user state folder, never beside the
 * config file (a project's `.mcp.json` is usually committed, so nothing of
 * ours belongs in that tree). One folder per config file, named by its base
 * name and a hash of its absolute path.
 */
import { createHash } from "node:crypto";
import { basename, join, resolve } from "node:path";
import type { ClientEnv } from "./clients.js";

/**
 * `$XDG_STATE_HOME/atlatl/install` (default `~/.local/state`) on Linux and
 * other Unixes, `~/Library/Application Support/atlatl/install` on macOS,
 * `%LOCALAPPDATA%\atlatl\install` on Windows.
 */
export function installStateDir(where: ClientEnv): string {
  if (where.platform === "darwin") {
    return join(where.home, "Library", "Application Support", "atlatl", "install");
  }
  if (where.platform === "win32") {
    const local = where.env.LOCALAPPDATA ?? join(where.home, "AppData", "Local");
    return join(local, "atlatl", "install");
  }
  const state = where.env.XDG_STATE_HOME || join(where.home, ".local", "state");
  return join(state, "atlatl", "install");
}

/** The folder of one config file's records and backups. */
export function fileStateDir(where: ClientEnv, path: string): string {
  const absolute = resolve(where.cwd, path);
  const hash = createHash("sha256").update(absolute).digest("hex").slice(0, 12);
  return join(installStateDir(where), `${basename(absolute)}-${hash}`);
}
