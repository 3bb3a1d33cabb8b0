import { createHash } from "node:crypto";
import { readdir, rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import type { LroEvents } from "@atlatl/lro";
import { type OffloadConfig, sweepOffloadDir } from "@atlatl/lro/node";

/** Sessions' offload directories live under `<output_dir>/sessions/`. */
export const SESSIONS_SUBDIR = "sessions";

/**
 * Offload files belong to the session that wrote them: each HTTP session's
 * offloader writes to its own directory, and `lro_extract` and the offload
 * resources are confined to it, so another session (or token) cannot name,
 * list or read them. The directory is named by a hash of the session id, so
 * paths shown to a client do not carry the id itself.
 */
export function sessionOffloadDir(root: string, sessionId: string): string {
  const name = createHash("sha256").update(sessionId).digest("hex").slice(0, 32);
  return join(root, SESSIONS_SUBDIR, name);
}

/** Delete a finished session's directory and its files (nobody can read them any more). */
export async function removeSessionDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * The process's one sweeper for HTTP: the base directory and every session
 * directory, expired files out (with `OffloadFileExpired` events), and the
 * empty directories of sessions that no longer exist removed. A live
 * session's directory is reported to that session's own event hub
 * (`ownerEvents`), which only its client hears; the rest to `events`.
 */
export function startSessionSweeper(options: {
  config: Pick<OffloadConfig, "outputDir" | "ttlSeconds">;
  events: LroEvents;
  /** The event hub of the live session owning `dir`; undefined when none does. */
  ownerEvents: (dir: string) => LroEvents | undefined;
  intervalMs?: number;
}): { stop(): void; sweepNow(): Promise<void> } {
  const { config, events } = options;
  let inFlight: Promise<void> | undefined;
  const sweepAll = async () => {
    await sweepOffloadDir({ dir: config.outputDir, ttlSeconds: config.ttlSeconds, events });
    const root = join(config.outputDir, SESSIONS_SUBDIR);
    const names = await readdir(root).catch(() => [] as string[]);
    for (const name of names) {
      const dir = join(root, name);
      const owner = options.ownerEvents(dir);
      await sweepOffloadDir({ dir, ttlSeconds: config.ttlSeconds, events: owner ?? events });
      if (!owner) await rmdir(dir).catch(() => {});
    }
  };
  const sweepNow = () => {
    inFlight ??= sweepAll().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  void sweepNow().catch(() => {});
  const timer = setInterval(() => void sweepNow().catch(() => {}), options.intervalMs ?? 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer), sweepNow };
}
