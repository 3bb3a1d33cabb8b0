/**
 * Materialization: header line + one record per line, written under a temporary
 * dot-name with one open file descriptor in ~1 MiB chunks, then renamed into
 * place, so a reader (or a crash) never leaves half a file behind a name that
 * matches `atlatl-*.jsonl`.
 */
import { basename, join } from "node:path";
import { defaultOutputDir } from "../config/offload-config.js";
import { LroError } from "../errors.js";
import { utf8Length } from "../estimate/estimate.js";
import { offloadFileNaming } from "./file-name.js";
import type { OffloadFs, OffloadStat } from "./offload-fs.js";

function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** This process's uid, where the platform has one. */
const myUid = typeof process.getuid === "function" ? process.getuid() : undefined;

/**
 * Make sure `dir` exists and is a real directory (see {@link checkOutputDir}).
 * Created directories are made 0700 (explicitly, whatever the umask). The
 * default directory ({@link defaultOutputDir}, under the shared temp dir, or its
 * name under another one: see {@link isDefaultDir}) is moreover tightened to
 * 0700 when its mode is looser. A configured directory is the user's choice and
 * keeps its mode.
 */
export async function ensureOutputDir(fs: OffloadFs, dir: string): Promise<void> {
  let stat: OffloadStat;
  try {
    stat = fs.lstatSync(dir);
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw unusable(dir, err);
    try {
      const created = await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      if (created !== undefined) await fs.chmod(dir, 0o700);
    } catch (mkErr) {
      throw new LroError(
        "OUTPUT_DIR_UNUSABLE",
        `cannot create output directory ${dir}: ${(mkErr as Error).message}`,
        { cause: mkErr },
      );
    }
    stat = fs.lstatSync(dir);
  }
  checkOutputDir(dir, stat);
  if (isDefaultDir(dir)) await tightenMode(fs, dir, stat);
}

/**
 * The output directory as readers find it: its `lstat` when it passes
 * {@link checkOutputDir} (the writer's check, so a reader refuses exactly
 * what the writer refuses), null when it does not exist. Throws `LroError`.
 */
export function inspectOutputDir(fs: OffloadFs, dir: string): OffloadStat | null {
  let stat: OffloadStat;
  try {
    stat = fs.lstatSync(dir);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return null;
    throw unusable(dir, err);
  }
  checkOutputDir(dir, stat);
  return stat;
}

function unusable(dir: string, err: unknown): LroError {
  return new LroError("OUTPUT_DIR_UNUSABLE", `output directory ${dir}: ${(err as Error).message}`, {
    cause: err,
  });
}

/**
 * Whether an existing `dir` may hold offload files, for writers and readers
 * alike. A symlink is refused: whoever controls its target would receive the
 * records (or, to a reader, another directory's files would pass as this
 * one's, e.g. a principal's directory linked to another principal's). The
 * default directory must be this user's: one owned by another uid is refused
 * (someone made it first to read or plant files).
 */
function checkOutputDir(dir: string, stat: OffloadStat): void {
  if (stat.isSymbolicLink()) {
    throw new LroError("OUTPUT_DIR_SYMLINK", `output directory ${dir} is a symbolic link; refused`);
  }
  if (!stat.isDirectory()) {
    throw new LroError("OUTPUT_DIR_UNUSABLE", `output directory ${dir} is not a directory`);
  }
  if (isDefaultDir(dir) && myUid !== undefined && stat.uid !== myUid) {
    throw new LroError(
      "OUTPUT_DIR_NOT_OWNED",
      `output directory ${dir} belongs to uid ${stat.uid}, not to this user (uid ${myUid}); refused. Remove it, or set prompt.offload.output_dir to a directory of your own`,
    );
  }
}

/**
 * The default directory, or one of its name (`atlatl-{uid}`) under another temp
 * dir: `install` names its own default in the entries it writes, since a client
 * may start the server without TMPDIR, and that directory keeps the default's rules.
 */
function isDefaultDir(dir: string): boolean {
  const own = defaultOutputDir();
  return dir === own || basename(dir) === basename(own);
}

/** The default directory is made 0700 when looser (it is ours: checked by `checkOutputDir`). */
async function tightenMode(fs: OffloadFs, dir: string, stat: OffloadStat): Promise<void> {
  if ((stat.mode & 0o077) !== 0) {
    try {
      // Ours and in a sticky temp dir: nobody else can swap it.
      await fs.chmod(dir, 0o700);
    } catch (err) {
      throw new LroError(
        "OUTPUT_DIR_UNUSABLE",
        `output directory ${dir} is mode ${(stat.mode & 0o777).toString(8)} and cannot be made 0700: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
}

type Handle = Awaited<ReturnType<OffloadFs["open"]>>;

/**
 * Write `text` (whose UTF-8 size is `bytes`) completely, at `position` or at the
 * current end. Strings are handed to Node as strings; a short write (a disk
 * filling up) is resumed from the encoded remainder, so a file is never silently
 * missing bytes.
 */
async function writeAll(
  handle: Handle,
  text: string,
  bytes: number,
  position?: number,
): Promise<number> {
  const { bytesWritten } = await handle.write(text, position);
  if (bytesWritten === bytes) return bytes;
  const buf = Buffer.from(text, "utf8");
  let offset = bytesWritten;
  while (offset < buf.length) {
    const at = position === undefined ? undefined : position + offset;
    const { bytesWritten: n } = await handle.write(buf.subarray(offset), at);
    if (n <= 0) throw new Error("write made no progress");
    offset += n;
  }
  return buf.length;
}

/** Writing an offload file failed; `cause` is the original error (its `code`, e.g. `ENOSPC`). */
export class WriteFailedError extends LroError {
  /** The path the file would have had. */
  readonly path: string;
  constructor(path: string, cause: unknown) {
    super("WRITE_FAILED", `writing ${path} failed: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = "WriteFailedError";
    this.path = path;
  }
}

/**
 * Hands a completed file to the offload store before it takes its name:
 * the file is closed and complete at `tempPath`, `chunks` are its bytes when
 * they are in memory already. A rejection fails the write (the temporary file
 * is removed, no file takes the name); a coded `LroError` (a quota refusal)
 * reaches the caller as it is.
 */
export type PublishOffload = (file: {
  name: string;
  tempPath: string;
  size: number;
  chunks?: readonly Uint8Array[] | undefined;
}) => Promise<void>;

/** A failure of the write path: a publish's own coded error as is, anything else as `WRITE_FAILED`. */
function writeError(path: string, err: unknown): LroError {
  return err instanceof LroError ? err : new WriteFailedError(path, err);
}

/** Options of {@link openJsonlWriter}. */
export interface JsonlWriterOptions {
  fs: OffloadFs;
  /** Absolute output directory (already checked by {@link ensureOutputDir}). */
  dir: string;
  operation: string;
  /** ULID of the file. */
  id: string;
  /** First word of the file name (default `atlatl`). */
  prefix?: string | undefined;
  /**
   * Line 1, when known up front. Otherwise `reserveHeaderBytes` bytes of spaces
   * are written first and {@link JsonlWriter.finish} overwrites them with the
   * header, padded with trailing spaces (JSON ignores them): for results streamed
   * to disk before their total is known.
   */
  headerLine?: string;
  reserveHeaderBytes?: number;
  /** Chunk size in UTF-16 units (default 120 Ki: chunks stay in V8's young generation). */
  chunkChars?: number;
  /** Called with the temporary path once it is open (tests kill the process there). */
  onTempOpened?: (tempPath: string) => void;
  /** The offload store's publish, run on the complete file before the rename. */
  publish?: PublishOffload | undefined;
}

/** A JSONL file being written under its temporary name. */
export interface JsonlWriter {
  /** The final path. */
  readonly path: string;
  readonly tempPath: string;
  /**
   * Queue one line (no newline) of `bytes` UTF-8 bytes. When a chunk fills up it
   * is written in the background and the previous chunk's write is returned:
   * await it (backpressure: at most two chunks in memory). Otherwise undefined,
   * so a caller's loop pays no promise per line.
   */
  push(line: string, bytes: number): Promise<void> | undefined;
  /** Flush, write the header (into the reserved slot if any), close, rename into place. */
  finish(headerLine?: string): Promise<{ path: string; bytes: number }>;
  /** Close and delete the temporary file; never throws. */
  abort(): Promise<void>;
}

/** Default chunk size: under V8's large-object threshold (128 KiB), so chunks die young. */
const DEFAULT_CHUNK_CHARS = 120 * 1024;

/**
 * Open `{dir}/.atlatl-{op}-{id}.{pid}.tmp` (created 0600, exclusively) for a
 * JSONL file that {@link JsonlWriter.finish} renames to
 * `{dir}/atlatl-{op}-{id}.jsonl`. Errors are thrown as {@link WriteFailedError}
 * and leave no temporary file behind once `abort()` ran.
 */
export async function openJsonlWriter(options: JsonlWriterOptions): Promise<JsonlWriter> {
  const naming = offloadFileNaming(options.prefix);
  const finalPath = join(options.dir, naming.fileName(options.operation, options.id));
  const tempPath = join(options.dir, naming.tempName(options.operation, options.id, process.pid));
  const chunkChars = options.chunkChars ?? DEFAULT_CHUNK_CHARS;
  let handle: Handle | undefined;
  try {
    handle = await options.fs.open(tempPath, "wx", 0o600);
  } catch (err) {
    throw new WriteFailedError(finalPath, err);
  }
  options.onTempOpened?.(tempPath);
  const h = handle;
  let closed = false;
  let parts: string[] = [];
  let chars = 0;
  let chunkBytes = 0;
  let bytes = 0;
  const reserved = options.headerLine === undefined ? (options.reserveHeaderBytes ?? 0) : 0;
  if (options.headerLine !== undefined) {
    parts.push(options.headerLine);
    chars = options.headerLine.length + 1;
    chunkBytes = utf8Length(options.headerLine) + 1;
  } else {
    parts.push(" ".repeat(reserved));
    chars = reserved + 1;
    chunkBytes = reserved + 1;
  }

  /**
   * The write in flight. Writes are chained (never concurrent on one fd), and a
   * caller waits only for the previous chunk, so serializing the next chunk
   * overlaps writing this one.
   */
  let inflight: Promise<void> | undefined;

  const flush = (): Promise<void> | undefined => {
    if (parts.length === 0) return undefined;
    parts.push("");
    const text = parts.join("\n");
    const size = chunkBytes;
    parts = [];
    chars = 0;
    chunkBytes = 0;
    const previous = inflight;
    inflight = (previous ?? Promise.resolve()).then(async () => {
      try {
        bytes += await writeAll(h, text, size);
      } catch (err) {
        throw new WriteFailedError(finalPath, err);
      }
    });
    // Marked handled here; the failure still reaches whoever awaits it next.
    inflight.catch(() => {});
    return previous;
  };

  return {
    path: finalPath,
    tempPath,
    push(line, lineBytes) {
      parts.push(line);
      chars += line.length + 1;
      chunkBytes += lineBytes + 1;
      return chars >= chunkChars ? flush() : undefined;
    },
    async finish(headerLine) {
      flush();
      await inflight;
      try {
        if (options.headerLine === undefined && headerLine !== undefined) {
          const headerBytes = utf8Length(headerLine);
          if (headerBytes > reserved)
            throw new Error(`header of ${headerBytes} bytes exceeds its slot`);
          await writeAll(h, headerLine + " ".repeat(reserved - headerBytes), reserved, 0);
        }
        closed = true;
        await h.close();
        if (options.publish)
          await options.publish({ name: basename(finalPath), tempPath, size: bytes });
        await options.fs.rename(tempPath, finalPath);
      } catch (err) {
        throw writeError(finalPath, err);
      }
      return { path: finalPath, bytes };
    },
    async abort() {
      await inflight?.catch(() => {});
      if (!closed) {
        closed = true;
        await h.close().catch(() => {});
      }
      await options.fs.unlink(tempPath).catch(() => {});
    },
  };
}

/**
 * Whole files up to this size are written synchronously (one open-write-close
 * and a rename, well under a millisecond for a few hundred KiB); larger ones go
 * through the chunked asynchronous writer so the event loop is never blocked
 * for long. Measured in the `lro-engine` benchmark.
 */
const SYNC_WRITE_MAX_BYTES = 1024 * 1024;

/** Inputs of {@link writeJsonlFile}. */
export interface WriteJsonlOptions extends Omit<JsonlWriterOptions, "reserveHeaderBytes"> {
  headerLine: string;
  /** Record lines, already serialized (no newline). */
  lines: readonly string[];
  /** Total UTF-8 bytes of the lines when the caller measured them already. */
  linesBytes?: number;
}

/**
 * Write header + lines to a temporary name and rename it into place
 * (see {@link openJsonlWriter}). On any error the temporary file is removed and
 * a {@link WriteFailedError} is thrown.
 */
export async function writeJsonlFile(
  options: WriteJsonlOptions,
): Promise<{ path: string; bytes: number }> {
  const linesBytes =
    options.linesBytes ?? options.lines.reduce((sum, line) => sum + utf8Length(line) + 1, 0);
  if (linesBytes <= SYNC_WRITE_MAX_BYTES) return writeSmallJsonlFile(options, linesBytes);
  const writer = await openJsonlWriter(options);
  try {
    for (const line of options.lines) {
      const pending = writer.push(line, utf8Length(line));
      if (pending) await pending;
    }
    return await writer.finish();
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

/**
 * `buf.utf8Write(text, offset)`: Buffer's own encoder without `buf.write`'s
 * argument handling, which costs more than the encoding for lines this short
 * (0.15 ms against 0.39 ms for 500 lines). Present on every Node Buffer, though
 * undocumented, hence the fallback.
 */
function utf8Writer(buf: Buffer): (text: string, offset: number) => number {
  const direct = (buf as { utf8Write?: (text: string, offset: number) => number }).utf8Write;
  return direct ? direct.bind(buf) : (text, offset) => buf.write(text, offset, "utf8");
}

/**
 * Header and lines as one UTF-8 buffer, each line encoded straight into its
 * place: joining them into one string and encoding that copies everything
 * twice more (measured: 1.4 ms against 0.2 ms for 500 full records).
 */
function encodeJsonl(headerLine: string, lines: readonly string[], linesBytes: number): Buffer {
  const size = utf8Length(headerLine) + 1 + linesBytes;
  const data = Buffer.allocUnsafeSlow(size);
  const write = utf8Writer(data);
  let at = write(headerLine, 0);
  data[at++] = 0x0a;
  for (const line of lines) {
    at += write(line, at);
    data[at++] = 0x0a;
  }
  // A wrong byte count would have cut lines short (write stops at the end).
  if (at !== size) throw new Error(`encoded ${at} bytes, expected ${size}`);
  return data;
}

/**
 * The synchronous path of {@link writeJsonlFile}, for files of at most
 * {@link SYNC_WRITE_MAX_BYTES}; asynchronous only when a store publishes the file.
 */
function writeSmallJsonlFile(
  options: WriteJsonlOptions,
  linesBytes: number,
): { path: string; bytes: number } | Promise<{ path: string; bytes: number }> {
  const naming = offloadFileNaming(options.prefix);
  const finalPath = join(options.dir, naming.fileName(options.operation, options.id));
  const tempPath = join(options.dir, naming.tempName(options.operation, options.id, process.pid));
  let created = false;
  try {
    const data = encodeJsonl(options.headerLine, options.lines, linesBytes);
    const bytes = options.fs.writeNewFileSync(tempPath, data, 0o600);
    created = true;
    options.onTempOpened?.(tempPath);
    if (options.publish)
      return publishThenRename(options.fs, options.publish, { tempPath, finalPath, data, bytes });
    options.fs.renameSync(tempPath, finalPath);
    return { path: finalPath, bytes };
  } catch (err) {
    // An exclusive create that failed made nothing of ours; anything else may
    // have left the temporary file.
    if (created || errnoCode(err) !== "EEXIST") {
      try {
        options.fs.unlinkSync(tempPath);
      } catch {
        // Already gone, or never created.
      }
    }
    throw new WriteFailedError(finalPath, err);
  }
}

/** Publish a small file written whole, then give it its name; on failure remove it. */
async function publishThenRename(
  fs: OffloadFs,
  publish: PublishOffload,
  f: { tempPath: string; finalPath: string; data: Uint8Array; bytes: number },
): Promise<{ path: string; bytes: number }> {
  try {
    await publish({
      name: basename(f.finalPath),
      tempPath: f.tempPath,
      size: f.bytes,
      chunks: [f.data],
    });
    fs.renameSync(f.tempPath, f.finalPath);
    return { path: f.finalPath, bytes: f.bytes };
  } catch (err) {
    try {
      fs.unlinkSync(f.tempPath);
    } catch {
      // Already gone.
    }
    throw writeError(f.finalPath, err);
  }
}

/** Inputs of {@link writePrivateChunks}. */
export interface WriteChunksOptions {
  fs: OffloadFs;
  /** Final path, and the temporary dot-name beside it. */
  path: string;
  tempPath: string;
  /** The bytes, in memory or streamed (a file fetched from a shared store). */
  chunks: readonly Uint8Array[] | AsyncIterable<Uint8Array>;
  onTempOpened?: ((tempPath: string) => void) | undefined;
  /** The offload store's publish, run on the complete file before the rename. */
  publish?: PublishOffload | undefined;
}

/**
 * Write bytes already encoded (a JSONL file's encoded lines, an attachment)
 * privately and atomically: exclusive 0600 create under the temporary name,
 * every chunk written completely, rename into place. On any error the
 * temporary file is removed and a {@link WriteFailedError} is thrown.
 */
export async function writePrivateChunks(options: WriteChunksOptions): Promise<number> {
  let opened = false;
  let bytes = 0;
  try {
    const handle = await options.fs.open(options.tempPath, "wx", 0o600);
    opened = true;
    options.onTempOpened?.(options.tempPath);
    try {
      for await (const chunk of options.chunks) {
        let done = 0;
        while (done < chunk.length) {
          const { bytesWritten } = await handle.write(chunk.subarray(done));
          if (bytesWritten <= 0) throw new Error("write made no progress");
          done += bytesWritten;
        }
        bytes += chunk.length;
      }
    } finally {
      await handle.close();
    }
    if (options.publish) {
      // Streamed chunks are spent: the publisher reads the file back.
      const chunks = Array.isArray(options.chunks)
        ? (options.chunks as readonly Uint8Array[])
        : undefined;
      await options.publish({
        name: basename(options.path),
        tempPath: options.tempPath,
        size: bytes,
        chunks,
      });
    }
    await options.fs.rename(options.tempPath, options.path);
    return bytes;
  } catch (err) {
    if (opened) await options.fs.unlink(options.tempPath).catch(() => {});
    throw writeError(options.path, err);
  }
}
