/**
 * Replacing a config file's bytes atomically, safe in a directory other users
 * can write (a shared project folder): the new text goes to a temporary file of
 * an unpredictable name, created exclusively and never through a symlink, 0600
 * while it is written, then given the old file's mode (and owner, where this
 * user may) and renamed over it. Someone who planted a link at a guessed name
 * gets neither the text nor the file.
 *
 * A config that is a symlink (a dotfiles repository, GNU Stow) is written
 * through: the link stays, its target gets the new bytes, renamed in the
 * target's own folder, so the user's repository sees the change.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

function statIfExists(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    throw err;
  }
}

/** The file a write of `path` replaces: `path`, or the file its symlink chain ends at. */
export function writeTarget(path: string): string {
  if (!statIfExists(path, false)?.isSymbolicLink()) return path;
  try {
    return realpathSync(path);
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw err;
    throw new Error(
      `${path} is a symbolic link to a file that does not exist; create that file (or remove the link) first`,
    );
  }
}

const CREATE_NEW =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Write all of `text` to the open file. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
}

/**
 * Replace the file at `target` (a {@link writeTarget}) with `text`, atomically.
 * A new file is created 0600; an existing one keeps its mode and, where this
 * user may set it, its owner and group.
 */
export function replaceFile(target: string, text: string): void {
  const old = statIfExists(target, true);
  const tmp = join(
    dirname(target),
    `.${basename(target)}.atlatl-${randomBytes(12).toString("hex")}.tmp`,
  );
  const fd = openSync(tmp, CREATE_NEW, 0o600);
  let written = false;
  try {
    writeAll(fd, text);
    if (old !== undefined && typeof process.getuid === "function") {
      try {
        fchownSync(fd, old.uid, old.gid);
      } catch (err) {
        // Only root may give a file away; anyone else keeps their own.
        if (errnoCode(err) !== "EPERM") throw err;
      }
    }
    fchmodSync(fd, old === undefined ? 0o600 : old.mode & 0o777);
    fsyncSync(fd);
    written = true;
  } finally {
    closeSync(fd);
    if (!written) unlinkSync(tmp);
  }
  try {
    renameSync(tmp, target);
  } catch (err) {
    unlinkSync(tmp);
    throw err;
  }
}
