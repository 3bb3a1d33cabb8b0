/**
 * Confinement of `file_path`: extraction reads only live offload files, i.e.
 * regular files directly inside the output directory whose names match
 * `atlatl-{operation}-{ULID}.jsonl`. Everything else (`..`, symlinks, other
 * directories, `/proc`, devices, FIFOs, NUL bytes, overlong names, files of
 * other users, hard links) is refused with `PATH_REFUSED`; an output
 * directory the writer refuses (a symlink) with the writer's code
 * (`OUTPUT_DIR_SYMLINK`). The file is opened
 * with `O_NOFOLLOW | O_NONBLOCK` and the open descriptor is checked with fstat
 * against what was inspected, so a file swapped for a symlink (or anything
 * else) between the check and the open is refused too.
 */
import { constants } from "node:fs";
import { type FileHandle, lstat, open, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { LroError } from "../errors.js";
import { offloadFileNaming } from "../materialize/file-name.js";
import { nodeOffloadFs } from "../materialize/offload-fs.js";
import { inspectOutputDir } from "../materialize/write-jsonl.js";
import type { OffloadStoreBinding } from "../offload-store/offload-store.js";
import { OFFLOAD_RESOURCE_PREFIX } from "../protocol/offload-resource-uri.js";
import { fetchIntoDir } from "./store-fetch.js";

/** Longest `file_path` considered at all (PATH_MAX on Linux). */
const MAX_PATH_LENGTH = 4096;
/** Longest file name (NAME_MAX). */
const MAX_NAME_LENGTH = 255;

/** Where offload files live and how long they do. */
export interface ConfinementOptions {
  /** The configured output directory. */
  outputDir: string;
  /** Seconds a file lives after its creation (the ULID time). */
  ttlSeconds: number;
  /** Clock, epoch milliseconds (tests control it). */
  now?: () => number;
  /** First word of offload file names (default `atlatl`). */
  filePrefix?: string | undefined;
  /** Resource URI prefix also accepted as `file_path` (default `atlatl://offload/`). */
  resourcePrefix?: string | undefined;
  /** What a refusal tells the caller to pass instead (default: lro_extract's `file_path`). */
  refusedHint?: string | undefined;
  /**
   * The offload store and the caller's principal: a live file missing from
   * `outputDir` (written by another instance) is fetched from it into
   * `outputDir` first (the local store has none to give). Undefined: local files only.
   */
  store?: OffloadStoreBinding | undefined;
}

/** An offload file that passed every check, open for reading. */
export interface OpenOffloadFile {
  /** Canonical absolute path (inside the real output directory). */
  path: string;
  /** File name. */
  name: string;
  /** Operation from the name. */
  operation: string;
  /** Creation time from the ULID, epoch ms. */
  createdAt: number;
  /** The open descriptor (the caller closes it). */
  handle: FileHandle;
  /** Identity and version of the file: changes when it is replaced or rewritten. */
  identity: { dev: number; ino: number; size: number; mtimeMs: number };
}

function refuse(message: string): LroError {
  return new LroError("PATH_REFUSED", message);
}

function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A file that is not there: `FILE_EXPIRED` when its time to live has passed,
 * else `FILE_NOT_FOUND` (deleted early, or a name that was never written: no
 * way to tell, so the message claims neither). Both ask for a fresh query.
 */
function gone(name: string, operation: string, expired: boolean): LroError {
  const again = `Offload files are temporary: re-run the original ${operation} query to get a fresh file_path, then extract from that.`;
  return expired
    ? new LroError(
        "FILE_EXPIRED",
        `${name} is no longer available (its time to live has passed). ${again}`,
      )
    : new LroError("FILE_NOT_FOUND", `there is no offload file ${name}. ${again}`);
}

const REFUSED_HINT =
  "lro_extract reads only offload files: pass file_path exactly as the offload descriptor gave it";

/**
 * Check `filePath` and open it. Accepts the absolute path from a descriptor, a
 * bare offload file name (looked up in the output directory), or the file's
 * resource URI (`atlatl://offload/{name}`). Throws `LroError` `PATH_REFUSED`,
 * `FILE_EXPIRED` or `FILE_NOT_FOUND`.
 */
export async function openOffloadFile(
  filePath: unknown,
  options: ConfinementOptions,
): Promise<OpenOffloadFile> {
  const hint = options.refusedHint ?? REFUSED_HINT;
  if (typeof filePath !== "string" || filePath === "") {
    throw refuse(`file_path must be a non-empty string; ${hint}`);
  }
  if (filePath.length > MAX_PATH_LENGTH) throw refuse(`file_path is too long; ${hint}`);
  if (filePath.includes("\0")) throw refuse(`file_path contains a NUL byte; ${hint}`);

  let candidate = filePath;
  const uriPrefix = options.resourcePrefix ?? OFFLOAD_RESOURCE_PREFIX;
  const naming = offloadFileNaming(options.filePrefix);
  if (candidate.startsWith(uriPrefix)) {
    try {
      candidate = decodeURIComponent(candidate.slice(uriPrefix.length));
    } catch {
      throw refuse(`malformed resource URI; ${hint}`);
    }
    if (candidate.includes("\0")) throw refuse(`file_path contains a NUL byte; ${hint}`);
  }
  const bare = !isAbsolute(candidate);
  if (bare && /[/\\]/.test(candidate)) {
    throw refuse(`relative paths are refused (${JSON.stringify(filePath)}); ${hint}`);
  }
  // Only canonical spellings: no `..`, `.`, `//` or trailing slash anywhere.
  if (!bare && resolve(candidate) !== candidate) {
    throw refuse(`file_path is not a canonical absolute path; ${hint}`);
  }
  const name = basename(candidate);
  if (name.length > MAX_NAME_LENGTH || !naming.pattern.test(name)) {
    throw refuse(
      `${JSON.stringify(name.slice(0, 80))} is not an offload file name (${naming.prefix}-{operation}-{ULID}.jsonl); ${hint}`,
    );
  }
  const parsed = naming.parse(name);
  if (!parsed || parsed.temporary) throw refuse(`not an offload file name; ${hint}`);

  const now = options.now?.() ?? Date.now();
  const expired = parsed.createdAt + options.ttlSeconds * 1000 <= now;
  const { store } = options;
  /** Fetch a live file another instance wrote; false when there is none to fetch. */
  const fetched = async (): Promise<boolean> =>
    store !== undefined &&
    !expired &&
    (await fetchIntoDir(store, options.outputDir, name, options.filePrefix));

  // The directory passes the writer's check (a symlink, e.g. to another
  // principal's directory, is refused as the writer refuses it), and its real
  // path is that same directory.
  let dirStat = inspectOutputDir(nodeOffloadFs, options.outputDir);
  if (dirStat === null) {
    if (!(await fetched())) throw gone(name, parsed.operation, expired);
    dirStat = inspectOutputDir(nodeOffloadFs, options.outputDir);
  }
  let dirReal: string;
  try {
    dirReal = await realpath(options.outputDir);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") throw gone(name, parsed.operation, expired);
    throw refuse(`the offload directory is unusable: ${(err as Error).message}`);
  }
  const realStat = await lstat(dirReal).catch(() => null);
  if (!dirStat || !realStat || realStat.dev !== dirStat.dev || realStat.ino !== dirStat.ino) {
    throw refuse(`the offload directory changed while ${name} was being opened; refused`);
  }
  if (!bare) {
    // Spelled with the configured directory (as descriptors are) or its real path,
    // and that directory still resolving to the real one: nothing else.
    const dir = dirname(candidate);
    let parentReal: string | undefined;
    if (dir === dirReal || dir === resolve(options.outputDir)) {
      parentReal = await realpath(dir).catch(() => undefined);
    }
    if (parentReal !== dirReal) {
      throw refuse(
        `${JSON.stringify(filePath.slice(0, 200))} is not inside the offload directory; ${hint}`,
      );
    }
  }
  const path = join(dirReal, name);

  let before: Awaited<ReturnType<typeof lstat>>;
  try {
    before = await lstat(path);
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") {
      throw refuse(`cannot inspect ${name}: ${(err as Error).message}`);
    }
    if (!(await fetched())) throw gone(name, parsed.operation, expired);
    before = await lstat(path);
  }
  if (before.isSymbolicLink()) throw refuse(`${name} is a symbolic link; refused`);
  if (!before.isFile()) throw refuse(`${name} is not a regular file; refused`);
  if (expired) throw gone(name, parsed.operation, true);

  let handle: FileHandle;
  try {
    handle = await open(
      path,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
    );
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT") throw gone(name, parsed.operation, expired);
    if (code === "ELOOP") throw refuse(`${name} is a symbolic link; refused`);
    throw refuse(`cannot open ${name}: ${(err as Error).message}`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw refuse(`${name} is not a regular file; refused`);
    if (st.dev !== before.dev || st.ino !== before.ino) {
      throw refuse(`${name} changed while it was being opened; refused`);
    }
    if (st.nlink !== 1) throw refuse(`${name} has other hard links; refused`);
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) {
      throw refuse(`${name} belongs to another user; refused`);
    }
    await checkDescriptorPath(handle, path, name);
    return {
      path,
      name,
      operation: parsed.operation,
      createdAt: parsed.createdAt,
      handle,
      identity: { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs },
    };
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}

/**
 * On Linux, the kernel's own name for the open descriptor must be the path we
 * meant (a directory swapped for a symlink mid-way would show up here).
 */
async function checkDescriptorPath(handle: FileHandle, path: string, name: string): Promise<void> {
  if (process.platform !== "linux") return;
  let actual: string;
  try {
    actual = await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return; // no /proc mounted: the fstat checks above stand alone
  }
  if (actual !== path) throw refuse(`${name} resolved outside the offload directory; refused`);
}
