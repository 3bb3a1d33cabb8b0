/**
 * Custodial cleanup (`offload_cleanup`): delete offload files whose
 * `created_at + ttl` has passed (created time from the ULID in the name) and
 * temporary files of ours orphaned by a crash, emitting `OffloadFileExpired`.
 * Only files that are ours by name, owner, link count and content are ever
 * deleted (a configured output directory may hold the user's own files); an
 * attachment's content is proven by the record written beside it.
 */
import { join } from "node:path";
import type { LroEvents } from "../events/events.js";
import { offloadFileNaming, type ParsedOffloadFileName } from "../materialize/file-name.js";
import { nodeOffloadFs, type OffloadFs, type OffloadStat } from "../materialize/offload-fs.js";
import { inspectOutputDir } from "../materialize/write-jsonl.js";
import {
  attachmentOfRecordName,
  couldBeOurTemp,
  HEAD_BYTES,
  ownedSingleFile,
  startsWithOurHeader,
} from "./ownership.js";
import { sweepAttachment } from "./sweep-attachment.js";
import { remove, type SweepResult, type SweepRun, sameOwnedFile } from "./sweep-run.js";

/** A temporary file younger than this may still be being written. */
const DEFAULT_ORPHAN_GRACE_SECONDS = 15 * 60;

/** Default sweep period: the specification's hourly `offload_cleanup`. */
const DEFAULT_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * How often a sweeper that knows the files' TTL runs: every minute, or at
 * half the TTL when that is shorter (so a file outlives its TTL by half of it
 * at most), never more than once a second.
 */
export function sweepIntervalMs(ttlSeconds: number): number {
  return Math.min(60_000, Math.max(1_000, ttlSeconds * 500));
}

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
 * this user) in `dir`, oldest first. A missing directory lists as empty; one
 * the writer refuses (a symlink, see `checkOutputDir`) is refused with the
 * writer's `LroError`.
 */
export async function listOffloadFiles(
  dir: string,
  options: ListOffloadFilesOptions,
): Promise<OffloadFileInfo[]> {
  const fs = options.fs ?? nodeOffloadFs;
  if (inspectOutputDir(fs, dir) === null) return [];
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

/**
 * Delete expired offload files and orphaned temporary files in `dir`. A file
 * is deleted only when it is ours by every check (see `ownership.ts`): its
 * name, a regular file of this user with one link, and its content (our
 * header, or for an attachment the record of its bytes). Everything else is left alone and counted in `foreign`. Never
 * throws for a file: failures are collected in `errors`; a missing directory
 * is an empty sweep. Ends with an `OffloadSweepCompleted` event.
 */
export async function sweepOffloadDir(options: SweepOptions): Promise<SweepResult> {
  const fs = options.fs ?? nodeOffloadFs;
  const now = (options.now ?? Date.now)();
  const ttlMs = options.ttlSeconds * 1000;
  const graceMs = (options.orphanGraceSeconds ?? DEFAULT_ORPHAN_GRACE_SECONDS) * 1000;
  const result: SweepResult = { expired: [], orphans: [], kept: 0, foreign: 0, errors: [] };
  const run: SweepRun = { fs, dir: options.dir, now, ttlMs, events: options.events, result };
  let names: string[] = [];
  try {
    names = await fs.readdir(options.dir);
  } catch {
    // A missing or unreadable directory has nothing of ours to delete.
  }
  const naming = offloadFileNaming(options.filePrefix);
  // An attachment and its record are judged together, once, whichever is listed first.
  const attachmentsSeen = new Set<string>();
  for (const name of names) {
    const attachment = attachmentOfRecordName(name);
    const parsed = naming.parse(attachment ?? name);
    if (!parsed || (attachment !== null && parsed.attachment !== true)) {
      result.foreign++;
      continue;
    }
    if (parsed.attachment === true) {
      const attachmentName = attachment ?? name;
      if (attachmentsSeen.has(attachmentName)) continue;
      attachmentsSeen.add(attachmentName);
      await sweepAttachment(run, attachmentName, parsed);
      continue;
    }
    const path = join(options.dir, name);
    let stat: OffloadStat;
    try {
      stat = await fs.lstat(path);
    } catch {
      continue; // gone meanwhile
    }
    if (!ownedSingleFile(stat)) {
      result.foreign++;
      continue;
    }
    // A temporary file may still be being written: the name's time and the
    // last write must both be older than the grace period.
    const expiredAt = parsed.temporary
      ? Math.max(parsed.createdAt, stat.mtimeMs) + graceMs
      : parsed.createdAt + ttlMs;
    if (expiredAt > now) {
      result.kept++;
      continue;
    }
    const verdict = await judge(fs, path, stat, parsed);
    if (verdict === "gone") continue;
    if (verdict === "foreign") {
      result.foreign++;
      continue;
    }
    await remove(run, path, parsed, stat, expiredAt);
  }
  options.events?.emit({
    type: "OffloadSweepCompleted",
    time: new Date(now).toISOString(),
    dir: options.dir,
    expired: result.expired.length,
    orphans: result.orphans.length,
    kept: result.kept,
    foreign: result.foreign,
    errors: result.errors.length,
  });
  return result;
}

/**
 * Read the start of a candidate through a handle opened without following
 * links, and check that the handle is the file we stat'ed (nothing swapped in
 * between), still ours with one link, and that its content is ours.
 */
async function judge(
  fs: OffloadFs,
  path: string,
  stat: OffloadStat,
  parsed: ParsedName,
): Promise<"ours" | "foreign" | "gone"> {
  let opened: { stat: OffloadStat; head: Uint8Array };
  try {
    opened = await fs.readHead(path, HEAD_BYTES);
  } catch (err) {
    return (err as { code?: string }).code === "ENOENT" ? "gone" : "foreign";
  }
  if (!sameOwnedFile(opened.stat, stat)) return "foreign";
  const ours = parsed.temporary ? couldBeOurTemp(opened.head) : startsWithOurHeader(opened.head);
  return ours ? "ours" : "foreign";
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
