/**
 * Attachments: binary content of a result (images, audio, blobs) written to
 * files of their own, `{prefix}-{operation}-{ulid}.{ext}`, never inlined into
 * a JSONL file. Same directory checks, 0600 mode, temporary dot-name and
 * rename, ULID source and file system as every offload file; the sweeper
 * deletes them after the same TTL.
 */
import { join } from "node:path";
import { type AttachmentExtension, offloadFileNaming } from "../materialize/file-name.js";
import { ensureOutputDir, writePrivateChunks } from "../materialize/write-jsonl.js";
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
  const bytes = await writePrivateChunks({ fs: ctx.fs, path, tempPath, chunks: [input.data] });
  return { path, bytes };
}
