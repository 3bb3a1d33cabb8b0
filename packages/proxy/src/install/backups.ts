/**
 * Backups of the bytes each write replaced, in the file's state folder (see
 * state-dir.ts), the newest {@link BACKUPS_KEPT} per config file. The undo
 * itself does not need them (records.ts keeps what it needs); they are for a
 * person who wants an earlier state back.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientEnv } from "./clients.js";
import type { Tool } from "./records.js";
import { fileStateDir } from "./state-dir.js";

/**
 * Eight: a whole install-and-uninstall cycle of both installers is four writes
 * of one file, so two such cycles stay recoverable, and the folder stays small
 * (a `~/.claude.json` can be megabytes).
 */
export const BACKUPS_KEPT = 8;

function timestamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(".", "");
}

/**
 * Save `before` (the bytes about to be replaced) as
 * `TIMESTAMP-TOOL-ACTION.bak` (0600), drop all but the newest kept, and return its path.
 */
export function saveBackup(
  where: ClientEnv,
  path: string,
  before: string,
  tool: Tool,
  action: "install" | "uninstall",
  now = new Date(),
): string {
  const dir = fileStateDir(where, path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stem = join(dir, `${timestamp(now)}-${tool}-${action}`);
  let backup = `${stem}.bak`;
  for (let n = 1; ; n++) {
    try {
      writeFileSync(backup, before, { mode: 0o600, flag: "wx" });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      backup = `${stem}~${n}.bak`; // sorts after the first of that millisecond
    }
  }
  const old = readdirSync(dir)
    .filter((n) => n.endsWith(".bak"))
    .sort()
    .reverse()
    .slice(BACKUPS_KEPT);
  for (const name of old) rmSync(join(dir, name), { force: true });
  return backup;
}
