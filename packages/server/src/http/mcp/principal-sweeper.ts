import { readdir, rmdir } from "node:fs/promises";
import { join } from "node:path";
import type { LroEvents } from "@atlatl/lro";
import {
  type OffloadConfig,
  type OffloadStore,
  sweepIntervalMs,
  sweepOffloadDir,
  sweepOffloadStore,
} from "@atlatl/lro/node";
import { PRINCIPALS_SUBDIR, type Principals, principalDir } from "./principals.js";

/**
 * Where versions before principals kept each HTTP session's files: still swept
 * (a crash left some behind), never written.
 */
const LEGACY_SESSIONS_SUBDIR = "sessions";

/**
 * The process's one sweeper for HTTP: the base directory and every principal's
 * directory, expired files out (with `OffloadFileExpired` events). A directory
 * of a principal seen by this process is reported to that principal's own hub
 * (its sessions hear it); the rest to `events`. A directory left empty is
 * removed when no session or request of its principal is live (it is made again on the
 * principal's next offload). Old per-session directories are swept and removed
 * the same way.
 */
export function startPrincipalSweeper(options: {
  config: Pick<OffloadConfig, "outputDir" | "ttlSeconds">;
  events: LroEvents;
  principals: Pick<Principals, "ofDir">;
  intervalMs?: number;
  /**
   * A shared offload store: its expired files are deleted here or on another
   * instance, and reported only by the one that deleted them; this
   * instance's copies are then a cache, dropped without events.
   */
  offloadStore?: OffloadStore | undefined;
}): { stop(): void; sweepNow(): Promise<void> } {
  const { config } = options;
  const shared = options.offloadStore?.shared ? options.offloadStore : undefined;
  /** Events of local sweeps: none when the store reports expiry. */
  const events = shared ? undefined : options.events;
  let inFlight: Promise<void> | undefined;
  const sweepAll = async () => {
    if (shared) {
      await sweepOffloadStore({
        store: shared,
        dirOf: (id) => principalDir(config.outputDir, id),
        eventsOf: (id) =>
          options.principals.ofDir(principalDir(config.outputDir, id))?.events ?? options.events,
      });
    }
    await sweepOffloadDir({ dir: config.outputDir, ttlSeconds: config.ttlSeconds, events });
    const dirs = await Promise.all(
      [PRINCIPALS_SUBDIR, LEGACY_SESSIONS_SUBDIR].map(async (sub) => {
        const root = join(config.outputDir, sub);
        const names = await readdir(root).catch(() => [] as string[]);
        return names.map((name) => join(root, name));
      }),
    );
    for (const dir of dirs.flat()) {
      const owner = options.principals.ofDir(dir);
      await sweepOffloadDir({
        dir,
        ttlSeconds: config.ttlSeconds,
        events: shared ? undefined : (owner?.events ?? events),
      });
      // rmdir removes only an empty directory: a file written meanwhile keeps it.
      if (!owner || owner.active === 0) await rmdir(dir).catch(() => {});
    }
  };
  const sweepNow = () => {
    inFlight ??= sweepAll().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  void sweepNow().catch(() => {});
  const timer = setInterval(
    () => void sweepNow().catch(() => {}),
    options.intervalMs ?? sweepIntervalMs(config.ttlSeconds),
  );
  timer.unref();
  return { stop: () => clearInterval(timer), sweepNow };
}
