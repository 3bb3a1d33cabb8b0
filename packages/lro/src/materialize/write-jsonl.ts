/**
 * Materialization: header line + one record per line, written under a temporary
 * dot-name with one open file descriptor in ~1 MiB chunks, then renamed into
 * place, so a reader (or a crash) never leaves half a file behind a name that
 * matches `atlatl-*.jsonl`.
 */
import { join } from "node:path";
import { LroError } from "../errors.js";
import { offloadFileName, offloadTempName } from "./file-name.js";
import type { OffloadFs } from "./offload-fs.js";

/** Chunk size in UTF-16 units: large enough to amortize syscalls, small enough to bound memory. */
const CHUNK_CHARS = 1 << 20;

function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Make sure `dir` exists and is a real directory. Created directories are made
 * 0700 (explicitly, whatever the umask); an existing one is left as it is. A
 * symlink is refused: whoever controls its target would receive the records.
 */
export async function ensureOutputDir(fs: OffloadFs, dir: string): Promise<void> {
  let stat: Awaited<ReturnType<OffloadFs["lstat"]>>;
  try {
    stat = await fs.lstat(dir);
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") {
      throw new LroError(
        "OUTPUT_DIR_UNUSABLE",
        `output directory ${dir}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
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
    stat = await fs.lstat(dir);
  }
  if (stat.isSymbolicLink()) {
    throw new LroError("OUTPUT_DIR_SYMLINK", `output directory ${dir} is a symbolic link; refused`);
  }
  if (!stat.isDirectory()) {
    throw new LroError("OUTPUT_DIR_UNUSABLE", `output directory ${dir} is not a directory`);
  }
}

const NON_ASCII = /[^\x00-\x7f]/;

/** UTF-8 size of a line: its length when ASCII (the common case, no encoding pass). */
function utf8Bytes(line: string): number {
  return NON_ASCII.test(line) ? Buffer.byteLength(line, "utf8") : line.length;
}

/**
 * Write `text` (whose UTF-8 size is `bytes`) completely. Strings are handed to
 * Node as strings; a short write (disk filling up) is resumed from the encoded
 * remainder, so a file is never silently missing bytes.
 */
async function writeAll(
  handle: Awaited<ReturnType<OffloadFs["open"]>>,
  text: string,
  bytes: number,
): Promise<number> {
  const { bytesWritten } = await handle.write(text);
  if (bytesWritten === bytes) return bytes;
  const buf = Buffer.from(text, "utf8");
  let offset = bytesWritten;
  while (offset < buf.length) {
    const { bytesWritten: n } = await handle.write(buf.subarray(offset));
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

/** Inputs of {@link writeJsonlFile}. */
export interface WriteJsonlOptions {
  fs: OffloadFs;
  /** Absolute output directory (already checked by {@link ensureOutputDir}). */
  dir: string;
  operation: string;
  /** ULID of the file. */
  id: string;
  /** Line 1. */
  headerLine: string;
  /** Record lines, already serialized (no newline). */
  lines: readonly string[];
  /** Chunk size in UTF-16 units (default 1 MiB). */
  chunkChars?: number;
  /** Called with the temporary path once it is open (tests kill the process there). */
  onTempOpened?: (tempPath: string) => void;
}

/**
 * Write header + lines to `{dir}/.atlatl-{op}-{id}.{pid}.tmp` (created 0600,
 * exclusively), then rename it to `{dir}/atlatl-{op}-{id}.jsonl`. On any error the
 * temporary file is removed and an `LroError` `WRITE_FAILED` is thrown whose
 * cause is the original error (its `code`, e.g. `ENOSPC`, is kept on `cause`).
 */
export async function writeJsonlFile(
  o: WriteJsonlOptions,
): Promise<{ path: string; bytes: number }> {
  const finalPath = join(o.dir, offloadFileName(o.operation, o.id));
  const tempPath = join(o.dir, offloadTempName(o.operation, o.id, process.pid));
  const chunkChars = o.chunkChars ?? CHUNK_CHARS;
  let handle: Awaited<ReturnType<OffloadFs["open"]>> | undefined;
  let created = false;
  try {
    handle = await o.fs.open(tempPath, "wx", 0o600);
    created = true;
    o.onTempOpened?.(tempPath);
    // Header and lines joined into ~1 MiB chunks: one write per chunk, never a
    // copy of the whole file in memory.
    let parts: string[] = [o.headerLine];
    let size = o.headerLine.length + 1;
    let chunkBytes = utf8Bytes(o.headerLine) + 1;
    let bytes = 0;
    for (const line of o.lines) {
      parts.push(line);
      size += line.length + 1;
      chunkBytes += utf8Bytes(line) + 1;
      if (size >= chunkChars) {
        parts.push("");
        bytes += await writeAll(handle, parts.join("\n"), chunkBytes);
        parts = [];
        size = 0;
        chunkBytes = 0;
      }
    }
    if (parts.length > 0) {
      parts.push("");
      bytes += await writeAll(handle, parts.join("\n"), chunkBytes);
    }
    const h = handle;
    handle = undefined;
    await h.close();
    await o.fs.rename(tempPath, finalPath);
    return { path: finalPath, bytes };
  } catch (err) {
    if (handle) await handle.close().catch(() => {});
    if (created) await o.fs.unlink(tempPath).catch(() => {});
    throw new WriteFailedError(finalPath, err);
  }
}
