/**
 * Writing a client's config file: a timestamped backup of the old bytes beside
 * it first, then the new text in place atomically (replace-file.ts: readers see
 * the old file or the new one, never half; a symlinked config is written through).
 *
 * An install backup's name carries the SHA-256 prefix of the text install wrote:
 * `uninstall` finds the backup whose tag matches the file as it is now, which
 * proves nothing else changed since, and puts those bytes back. A file install
 * created gets an empty `.absent` marker instead, and goes again on uninstall.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { replaceFile, writeTarget } from "./replace-file.js";

/** The short content tag in an install backup's name. */
export function contentTag(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

function timestamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(".", "");
}

/** The file's text, or undefined when it does not exist. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** What a write did. */
export interface WriteResult {
  /** The backup of the previous bytes (none when the file was new). */
  backup?: string;
}

/**
 * Replace `path` with `text` atomically (`null`: remove the file), backing up the old bytes first (same
 * mode: a config may hold secrets). `action` names the backup; an install backup
 * is tagged with the new text's {@link contentTag}.
 */
export function writeWithBackup(
  path: string,
  before: string | undefined,
  text: string | null,
  action: "install" | "uninstall",
  now = new Date(),
): WriteResult {
  mkdirSync(dirname(path), { recursive: true });
  // Refused (a dangling link) before any backup is made.
  const target = writeTarget(path);
  const mode = before === undefined ? 0o600 : statSync(path).mode & 0o777;
  const tag = action === "install" ? `-${contentTag(text ?? "")}` : "";
  const stem = `${path}.atlatl-${action}-${timestamp(now)}${tag}`;
  let backup: string | undefined;
  if (before !== undefined) {
    backup = `${stem}.bak`;
    writeFileSync(backup, before, { mode, flag: "wx" });
  } else if (action === "install") {
    writeFileSync(`${stem}.absent`, "", { mode, flag: "wx" });
  }
  if (text === null) {
    // Only a file install created and nothing changed since (see bytesBeforeInstall).
    rmSync(path);
    return backup === undefined ? {} : { backup };
  }
  replaceFile(target, text);
  return backup === undefined ? {} : { backup };
}

/** Install backups of `path`, newest first. */
export function installBackups(path: string): string[] {
  const prefix = `${basename(path)}.atlatl-install-`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && (n.endsWith(".bak") || n.endsWith(".absent")))
    .sort()
    .reverse()
    .map((n) => join(dirname(path), n));
}

/**
 * The bytes `path` had before the installs that produced `text`, following the
 * chain of install backups (install, then install again with other options...):
 * `null` when there was no file. Undefined when `text` is not exactly what an
 * install wrote.
 */
export function bytesBeforeInstall(path: string, text: string): string | null | undefined {
  const backups = installBackups(path);
  let current = text;
  let found: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const tag = contentTag(current);
    if (seen.has(tag)) return found;
    seen.add(tag);
    if (backups.some((b) => b.endsWith(`-${tag}.absent`))) return null;
    const backup = backups.find((b) => b.endsWith(`-${tag}.bak`));
    if (backup === undefined) return found;
    current = readFileSync(backup, "utf8");
    found = current;
  }
}
