/**
 * Writes serialized lines as one offload file through the engine's own
 * materializer, ULID source, clock and file system (the context), so every
 * file of every profile, derived extraction files included, is named, made
 * private and renamed into place the same way.
 */
import { join } from "node:path";
import type { EncodedLines } from "../materialize/encoded-lines.js";
import { offloadFileNaming } from "../materialize/file-name.js";
import { ensureOutputDir, writeJsonlFile, writePrivateChunks } from "../materialize/write-jsonl.js";
import type { OffloadedFile, OffloadHeader } from "../types.js";
import type { OffloadContext } from "./context.js";

/** Inputs of {@link writeLinesFile}. */
interface WriteLinesInput {
  operation: string;
  /** Creation time (epoch ms): shared by the files of one result. */
  createdAt: number;
  header: OffloadHeader;
  lines: readonly string[];
  /** Or the lines already encoded (`lines` is then ignored). */
  encoded?: EncodedLines;
  /** Total UTF-8 bytes of the lines (with their newlines) when already measured. */
  linesBytes?: number;
}

/** Write header + lines under a fresh name in the configured directory. */
export async function writeLinesFile(
  ctx: OffloadContext,
  input: WriteLinesInput,
): Promise<OffloadedFile> {
  await ensureOutputDir(ctx.fs, ctx.config.outputDir);
  if (input.encoded) return writeEncoded(ctx, input, input.encoded);
  const written = await writeJsonlFile({
    fs: ctx.fs,
    dir: ctx.config.outputDir,
    operation: input.operation,
    id: ctx.nextId(input.createdAt),
    headerLine: JSON.stringify(input.header),
    lines: input.lines,
    ...(input.linesBytes !== undefined ? { linesBytes: input.linesBytes } : {}),
    ...(ctx.config.filePrefix !== undefined ? { prefix: ctx.config.filePrefix } : {}),
    onTempOpened: ctx.onTempOpened,
    publish: ctx.publish,
  });
  return {
    path: written.path,
    header: input.header,
    ttlSeconds: ctx.config.ttlSeconds,
    createdAt: input.createdAt,
    bytes: written.bytes,
  };
}

/** Header line + encoded lines, in one private atomic write of the chunks as they are. */
async function writeEncoded(
  ctx: OffloadContext,
  input: WriteLinesInput,
  encoded: EncodedLines,
): Promise<OffloadedFile> {
  const naming = offloadFileNaming(ctx.config.filePrefix);
  const id = ctx.nextId(input.createdAt);
  const dir = ctx.config.outputDir;
  const header = Buffer.from(`${JSON.stringify(input.header)}\n`, "utf8");
  const bytes = await writePrivateChunks({
    fs: ctx.fs,
    path: join(dir, naming.fileName(input.operation, id)),
    tempPath: join(dir, naming.tempName(input.operation, id, process.pid)),
    chunks: [header, ...encoded.finish()],
    onTempOpened: ctx.onTempOpened,
    publish: ctx.publish,
  });
  return {
    path: join(dir, naming.fileName(input.operation, id)),
    header: input.header,
    ttlSeconds: ctx.config.ttlSeconds,
    createdAt: input.createdAt,
    bytes,
  };
}
