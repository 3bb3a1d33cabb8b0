/**
 * Custodial cleanup (`offload_cleanup`): delete offload files whose
 * `created_at + ttl` has passed (created time from the ULID in the name) and
 * temporary files of ours orphaned by a crash, emitting `OffloadFileExpired`.
 * Only names matching our patterns are ever touched, and only regular files
 * owned by this user (the default output directory is the shared /tmp).
 */
import { join } from "node:path";
import type { LroEvents } from "../events/events.js";
import { offloadFileNaming, type ParsedOffloadFileName } from "../materialize/file-name.js";
import { nodeOffloadFs, type OffloadFs, type OffloadStat } from "../materialize/offload-fs.js";

/** A temporary file younger than this may still be being written. */
export const DEFAULT_ORPHAN_GRACE_SECONDS = 15 * 60;

/** Default sweep period: the specification's hourly `offload_cleanup`. */
export const DEFAULT_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** One live offload file in a directory. */
export interface OffloadFileInfo {
  path: string;
  name: string;
  operation: string;
  /** Epoch milliseconds (from the ULID). */
  createdAt: number;
  /** Epoch milliseconds: `createdAt + ttl`. */
  expiresAt: number;
  bytes: number;
}

/** Options of {@link listOffloadFiles}. */
export interface ListOffloadFilesOptions {
  ttlSeconds: number;
  /** Clock (epoch ms); default `Date.now`. */
  now?: () => number;
  /** Also list files past their TTL the sweeper has not deleted yet. */
  includeExpired?: boolean;
  fs?: OffloadFs;
  /** First word of the file names (default `atlatl`). */
  filePrefix?: string | undefined;
}

const myUid = typeof process.getuid === "function" ? process.getuid() : undefined;

function ours(stat: OffloadStat): boolean {
  return stat.isFile() && (myUid === undefined || stat.uid === myUid);
}

type ParsedName = ParsedOffloadFileName;

/**
 * The entries of `dir` whose names are ours and that `wanted` accepts (checked
 * before any lstat, so a listing skips expired names without touching them),
 * that are regular files of this user. A missing directory yields nothing.
 */
async function* scanOffloadDir(
  fs: OffloadFs,
  dir: string,
  wanted: (parsed: ParsedName) => boolean,
  prefix: string | undefined,
): AsyncGenerator<{ name: string; path: string; parsed: ParsedName; stat: OffloadStat }> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  const naming = offloadFileNaming(prefix);
  for (const name of names) {
    const parsed = naming.parse(name);
    if (!parsed || !wanted(parsed)) continue;
    const path = join(dir, name);
    let stat: OffloadStat;
    try {
      stat = await fs.lstat(path);
    } catch {
      continue;
    }
    if (ours(stat)) yield { name, path, parsed, stat };
  }
}

/**
 * The live offload files (`atlatl-{operation}-{ulid}.jsonl`, regular files of
 * this user) in `dir`, oldest first. A missing directory lists as empty.
 */
export async function listOffloadFiles(
  dir: string,
  options: ListOffloadFilesOptions,
): Promise<OffloadFileInfo[]> {
  const fs = options.fs ?? nodeOffloadFs;
  const now = (options.now ?? Date.now)();
  const ttlMs = options.ttlSeconds * 1000;
  const live = (p: ParsedName) =>
    !p.temporary &&
    p.attachment !== true &&
    (options.includeExpired === true || p.createdAt + ttlMs > now);
  const out: OffloadFileInfo[] = [];
  for await (const { name, path, parsed, stat } of scanOffloadDir(
    fs,
    dir,
    live,
    options.filePrefix,
  )) {
    const expiresAt = parsed.createdAt + ttlMs;
    out.push({
      path,
      name,
      operation: parsed.operation,
      createdAt: parsed.createdAt,
      expiresAt,
      bytes: stat.size,
    });
  }
  return out.sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : 1));
}

/** Options of {@link sweepOffloadDir}. */
export interface SweepOptions {
  dir: string;
  ttlSeconds: number;
  now?: () => number;
  events?: LroEvents | undefined;
  /** Temporary files older than this are orphans (default 15 minutes). */
  orphanGraceSeconds?: number;
  fs?: OffloadFs;
  /** First word of the file names (default `atlatl`). */
  filePrefix?: string | undefined;
}

/** What one sweep did. */
export interface SweepResult {
  /** Paths of expired offload files deleted. */
  expired: string[];
  /** Paths of orphaned temporary files deleted. */
  orphans: string[];
  /** Live offload files left in place. */
  kept: number;
  /** Deletions that failed (e.g. someone else's file in /tmp), with the reason. */
  errors: { path: string; error: string }[];
}

/**
 * Delete expired offload files and orphaned temporary files in `dir`. Never
 * throws for a file: failures are collected in `errors`; a missing directory is
 * an empty sweep.
 */
export async function sweepOffloadDir(options: SweepOptions): Promise<SweepResult> {
  const fs = options.fs ?? nodeOffloadFs;
  const now = (options.now ?? Date.now)();
  const ttlMs = options.ttlSeconds * 1000;
  const graceMs = (options.orphanGraceSeconds ?? DEFAULT_ORPHAN_GRACE_SECONDS) * 1000;
  const result: SweepResult = { expired: [], orphans: [], kept: 0, errors: [] };
  for await (const { path, parsed, stat } of scanOffloadDir(
    fs,
    options.dir,
    () => true,
    options.filePrefix,
  )) {
    let expiredAt: number;
    if (parsed.temporary) {
      // A writer may still be at it: the name's time and the last write must both be old.
      expiredAt = Math.max(parsed.createdAt, stat.mtimeMs) + graceMs;
    } else {
      expiredAt = parsed.createdAt + ttlMs;
    }
    if (expiredAt > now) {
      if (!parsed.temporary) result.kept++;
      continue;
    }
    try {
      await fs.unlink(path);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== "ENOENT") result.errors.push({ path, error: (err as Error).message });
      continue;
    }
    (parsed.temporary ? result.orphans : result.expired).push(path);
    options.events?.emit({
      type: "OffloadFileExpired",
      time: new Date(now).toISOString(),
      path,
      operation: parsed.temporary ? null : parsed.operation,
      created_at: new Date(parsed.createdAt).toISOString(),
      expired_at: new Date(expiredAt).toISOString(),
      reason: parsed.temporary ? "orphan" : "expired",
      bytes: stat.size,
    });
  }
  return result;
}

/** Options of {@link startSweeper}. */
export interface SweeperOptions extends SweepOptions {
  /** Period between sweeps (default one hour). */
  intervalMs?: number;
  /** Sweep once right away (default true). */
  runAtStart?: boolean;
  /** Called when a background sweep throws unexpectedly (default: ignored). */
  onError?: (err: unknown) => void;
}

/** A running periodic sweeper. */
export interface Sweeper {
  /** Stop the timer (an in-flight sweep finishes). */
  stop(): void;
  /** Sweep now; concurrent calls share one sweep. */
  sweepNow(): Promise<SweepResult>;
}

/**
 * Sweep at start-up and then every `intervalMs` on an unref'd timer (it never
 * keeps the process alive), plus on demand with `sweepNow()`.
 */
export function startSweeper(options: SweeperOptions): Sweeper {
  let inFlight: Promise<SweepResult> | undefined;
  const sweepNow = (): Promise<SweepResult> => {
    inFlight ??= sweepOffloadDir(options).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const background = () => {
    sweepNow().catch((err) => options.onError?.(err));
  };
  if (options.runAtStart ?? true) background();
  const timer = setInterval(background, options.intervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  timer.unref?.();
  return {
    stop: () => clearInterval(timer),
    sweepNow,
  };
}
