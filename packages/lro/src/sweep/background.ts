/**
 * Offloaders' background sweeping (`OffloaderOptions.sweep`): one sweeper per
 * output directory, file prefix and TTL in a process, however many offloaders
 * write there (a server may build one per request or per tool). The first
 * starts it with its clock, file system and events; it stops when every
 * offloader that asked for it has stopped sweeping.
 */
import { type Sweeper, type SweepOptions, startSweeper, sweepIntervalMs } from "./sweep.js";

const running = new Map<string, { sweeper: Sweeper; users: number }>();

/** Sweep `options.dir` in the background; returns the release function (idempotent). */
export function sweepInBackground(options: SweepOptions): () => void {
  const key = [options.dir, options.filePrefix ?? "", options.ttlSeconds].join("\0");
  let entry = running.get(key);
  if (!entry) {
    const sweeper = startSweeper({
      ...options,
      intervalMs: sweepIntervalMs(options.ttlSeconds),
      runAtStart: false,
    });
    entry = { sweeper, users: 0 };
    running.set(key, entry);
  }
  const used = entry;
  used.users++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    used.users--;
    if (used.users === 0) {
      used.sweeper.stop();
      running.delete(key);
    }
  };
}
