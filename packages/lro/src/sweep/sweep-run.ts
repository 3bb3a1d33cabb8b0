/** One sweep's shared state and the steps every kind of file ends with. */
import type { LroEvents } from "../events/events.js";
import type { ParsedOffloadFileName } from "../materialize/file-name.js";
import type { OffloadFs, OffloadStat } from "../materialize/offload-fs.js";
import { ownedSingleFile } from "./ownership.js";

/** What one sweep did. */
export interface SweepResult {
  /** Paths of expired offload files deleted (attachments and their records included). */
  expired: string[];
  /** Paths of orphaned temporary files deleted. */
  orphans: string[];
  /** Live offload files (and young temporary files) left in place. */
  kept: number;
  /**
   * Entries left alone because they are not ours: other names, and files
   * named like ours that are not regular files of this user with one link
   * and our header (or, for a temporary name, a start our writer could leave;
   * for an attachment, our record of exactly its bytes).
   */
  foreign: number;
  /** Deletions that failed, with the reason. */
  errors: { path: string; error: string }[];
}

/** One sweep's inputs and tally. */
export interface SweepRun {
  fs: OffloadFs;
  dir: string;
  now: number;
  ttlMs: number;
  events: LroEvents | undefined;
  result: SweepResult;
}

/** Delete a file judged ours and report it; false when the unlink failed. */
export async function remove(
  run: SweepRun,
  path: string,
  parsed: ParsedOffloadFileName,
  stat: OffloadStat,
  expiredAt: number,
): Promise<boolean> {
  try {
    await run.fs.unlink(path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== "ENOENT") run.result.errors.push({ path, error: (err as Error).message });
    return code === "ENOENT";
  }
  (parsed.temporary ? run.result.orphans : run.result.expired).push(path);
  run.events?.emit({
    type: "OffloadFileExpired",
    time: new Date(run.now).toISOString(),
    path,
    operation: parsed.temporary ? null : parsed.operation,
    created_at: new Date(parsed.createdAt).toISOString(),
    expired_at: new Date(expiredAt).toISOString(),
    reason: parsed.temporary ? "orphan" : "expired",
    bytes: stat.size,
  });
  return true;
}

export async function lstatOrNull(fs: OffloadFs, path: string): Promise<OffloadStat | null> {
  try {
    return await fs.lstat(path);
  } catch {
    return null;
  }
}

/** The opened handle is the file stat'ed (nothing swapped in between), still ours with one link. */
export function sameOwnedFile(opened: OffloadStat, stat: OffloadStat): boolean {
  return opened.ino === stat.ino && opened.dev === stat.dev && ownedSingleFile(opened);
}
