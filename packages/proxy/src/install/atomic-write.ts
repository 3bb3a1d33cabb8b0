/**
 * Writing a client's config file: the new text to a temporary file in the same
 * folder, renamed over the old one (readers see the old file or the new one,
 * never half). The backup of the old bytes is the caller's (backups.ts).
 */
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

/** The file's text, or undefined when it does not exist. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * Replace `path` with `text` atomically (`null`: remove the file), keeping the
 * old file's mode (a config may hold secrets; a new one gets 0600).
 */
export function writeAtomically(
  path: string,
  before: string | undefined,
  text: string | null,
): void {
  if (text === null) {
    rmSync(path);
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  const mode = before === undefined ? 0o600 : statSync(path).mode & 0o777;
  const tmp = join(dirname(path), `.${basename(path)}.atlatl-${process.pid}.tmp`);
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}
