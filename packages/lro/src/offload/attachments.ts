/**
 * Attachments: binary content of a result (images, audio, blobs) written to
 * files of their own, `{prefix}-{operation}-{ulid}.{ext}`, never inlined into
 * a JSONL file. Same directory checks, 0600 mode, temporary dot-name and
 * rename, ULID source and file system as every offload file. A name proves
 * nothing, and binary content has no header, so each attachment is written
 * after a record of it (`.{name}.lro`: size and SHA-256, see `ownership.ts`);
 * the sweeper deletes an attachment after the TTL only when the record is ours
 * and the bytes still match it.
 */
import { basename, dirname, join } from "node:path";
import { type AttachmentExtension, offloadFileNaming } from "../materialize/file-name.js";
import { ensureOutputDir, writePrivateChunks } from "../materialize/write-jsonl.js";
import { attachmentRecordName, encodeAttachmentRecord } from "../sweep/ownership.js";
import type { OffloadContext } from "./context.js";

/** File extension for a MIME type (`bin` when unknown). */
export function attachmentExtension(mimeType: string | undefined): AttachmentExtension {
  const m = (mimeType ?? "").toLowerCase().split(";")[0]?.trim() ?? "";
  const known: Record<string, AttachmentExtension> = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/jpg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/svg+xml": "svg",
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
    "audio/ogg": "ogg",
    "application/pdf": "pdf",
  };
  return known[m] ?? "bin";
}

/** Write `data` as an attachment; returns its path and size. Throws `WriteFailedError`. */
export async function writeAttachment(
  ctx: OffloadContext,
  input: { operation: string; createdAt: number; data: Uint8Array; extension: AttachmentExtension },
): Promise<{ path: string; bytes: number }> {
  await ensureOutputDir(ctx.fs, ctx.config.outputDir);
  const naming = offloadFileNaming(ctx.config.filePrefix);
  const id = ctx.nextId(input.createdAt);
  const path = join(
    ctx.config.outputDir,
    naming.attachmentName(input.operation, id, input.extension),
  );
  const tempPath = join(ctx.config.outputDir, naming.tempName(input.operation, id, process.pid));
  // The record first: a crash between the two leaves a record (swept) and never
  // an attachment nothing proves ours (which would stay forever).
  const [, recordPath] = attachmentPaths(path);
  const record = encodeAttachmentRecord(basename(path), input.data);
  await writePrivateChunks({ fs: ctx.fs, path: recordPath, tempPath, chunks: [record] });
  try {
    const bytes = await writePrivateChunks({ fs: ctx.fs, path, tempPath, chunks: [input.data] });
    return { path, bytes };
  } catch (err) {
    await ctx.fs.unlink(recordPath).catch(() => {});
    throw err;
  }
}

/** An attachment's path and its record's: what removing an attachment removes. */
export function attachmentPaths(path: string): [attachment: string, record: string] {
  return [path, join(dirname(path), attachmentRecordName(basename(path)))];
}
