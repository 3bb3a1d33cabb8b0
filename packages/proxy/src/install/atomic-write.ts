/**
 * Writing a client's config file: the new text in place atomically
 * (replace-file.ts: readers see the old file or the new one, never half; the
 * temporary file is created exclusively, never through a link; a symlinked
 * config is written through to its target). The backup of the old bytes is
 * the caller's (backups.ts).
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { replaceFile, writeTarget } from "./replace-file.js";

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
 * old file's mode and owner (a config may hold secrets; a new one gets 0600).
 */
export function writeAtomically(path: string, text: string | null): void {
  if (text === null) {
    rmSync(path);
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  // A dangling link is refused here, before anything is written.
  replaceFile(writeTarget(path), text);
}
