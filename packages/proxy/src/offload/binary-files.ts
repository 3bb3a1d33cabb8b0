/**
 * Binary parts of offloaded results (images, audio, blob resources) go to their
 * own files, never into a JSONL text file. Names follow the offload files'
 * (`atlatl-{operation}-{time}-{random}-b{block}.{ext}`); written private (0600)
 * under a temporary name and renamed into place. The JSONL sweeper does not
 * know these names, so {@link sweepBinaryFiles} removes them after the same TTL.
 */
import { randomBytes } from "node:crypto";
import { lstat, open, readdir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type BinaryPart, extensionFor } from "./layout.js";

const BINARY_NAME = /^atlatl-[A-Za-z0-9_-]{1,64}-\d{13}-[0-9a-f]{8}-b\d+\.[a-z0-9]{1,5}$/;

/** Write every part to its own file in `dir` (which exists) and patch its `ref`. */
export async function writeBinaryParts(
  dir: string,
  operation: string,
  parts: readonly BinaryPart[],
  now: number,
): Promise<string[]> {
  const written: string[] = [];
  const stem = `atlatl-${operation}-${now}-${randomBytes(4).toString("hex")}`;
  try {
    for (const part of parts) {
      const bytes = Buffer.from(part.base64, "base64");
      const name = `${stem}-b${part.block}.${extensionFor(part.mimeType)}`;
      const path = join(dir, name);
      await writePrivateFile(path, [bytes]);
      written.push(path);
      part.ref.file = path;
      part.ref.bytes = bytes.length;
    }
    return written;
  } catch (err) {
    await removeFiles(written);
    throw err;
  }
}

/**
 * Write `chunks` to `path` privately (0600) and atomically: an exclusive create
 * under a temporary dot-name in the same directory, then a rename, so no reader
 * sees half a file. The temporary file is removed on failure.
 */
export async function writePrivateFile(path: string, chunks: readonly Buffer[]): Promise<number> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  let bytes = 0;
  try {
    const handle = await open(temp, "wx", 0o600);
    try {
      for (const chunk of chunks) {
        await handle.write(chunk);
        bytes += chunk.length;
      }
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    return bytes;
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/** Delete files, ignoring those already gone. */
export async function removeFiles(paths: readonly string[]): Promise<void> {
  for (const p of paths) await unlink(p).catch(() => {});
}

/** Delete binary parts older than `ttlSeconds`; returns how many were deleted. */
export async function sweepBinaryFiles(
  dir: string,
  ttlSeconds: number,
  now = Date.now(),
): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let deleted = 0;
  for (const name of names) {
    const m = BINARY_NAME.exec(name);
    if (!m) continue;
    const created = Number(name.split("-").at(-3));
    if (!(created + ttlSeconds * 1000 <= now)) continue;
    const path = join(dir, name);
    const st = await lstat(path).catch(() => undefined);
    if (!st?.isFile()) continue;
    await unlink(path).then(
      () => deleted++,
      () => {},
    );
  }
  return deleted;
}
