/**
 * The offload directory made as a process starts, not at its first offload:
 * Claude Code reads its granted `additionalDirectories` only when they exist
 * as it starts (after a reboot or a temp-dir cleanup they are gone).
 */
import type { OffloadConfig } from "../config/offload-config.js";
import { nodeOffloadFs } from "./offload-fs.js";
import { ensureOutputDir } from "./write-jsonl.js";

/**
 * Make `offload.outputDir` (see {@link ensureOutputDir}) when offloading is on.
 * A refusal is handed to `report` (its message), never thrown: the process
 * still starts, and each offload reports the refusal too.
 */
export async function ensureOutputDirAtStart(
  offload: Pick<OffloadConfig, "enabled" | "outputDir">,
  report: (message: string) => void,
): Promise<void> {
  if (!offload.enabled) return;
  await ensureOutputDir(nodeOffloadFs, offload.outputDir).catch((err: Error) =>
    report(err.message),
  );
}
