/**
 * The offload directory an install grants and names in the entries it writes.
 * Claude Code applies `permissions.additionalDirectories` only to directories
 * that exist when it starts, so install makes it now (0700, this user's; a
 * symlink or another user's directory is refused), with the engine's own check.
 */
import { ensureOutputDir, nodeOffloadFs } from "@atlatl/lro/node";

/** Create `dir` as the offload writer would, or throw its refusal. */
export async function prepareOffloadDir(dir: string): Promise<void> {
  await ensureOutputDir(nodeOffloadFs, dir);
}
