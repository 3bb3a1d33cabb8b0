/**
 * The file of the records pipeline: its header line, and the file itself,
 * either streamed while the records are still being read (its header goes
 * into a slot reserved at the start, padded with trailing spaces, which JSON
 * ignores, because `estimated_tokens` is only known at the end) or written
 * whole once every line is measured, with an exact header.
 */
import { utf8Length } from "../estimate/estimate.js";
import {
  ensureOutputDir,
  type JsonlWriter,
  openJsonlWriter,
  writeJsonlFile,
} from "../materialize/write-jsonl.js";
import { unpublishFailed } from "../offload-store/publish.js";
import type { Profile } from "../profiles/profile.js";
import type { OffloadedFile, OffloadHeader } from "../types.js";
import type { OffloadContext } from "./context.js";
import type { OffloadRecordsInput } from "./types.js";

/** What names and heads a records file: the call, its profile and detail level. */
export interface RecordsFileSpec {
  input: OffloadRecordsInput<unknown>;
  profile: Profile<unknown, unknown>;
  detail: string;
}

/** A file being streamed: its writer and its creation time (the ULID's). */
export interface RecordsStream {
  writer: JsonlWriter;
  createdAt: number;
}

/** The header line of a records file. */
function headerOf(
  spec: RecordsFileSpec,
  count: number,
  createdAt: number,
  tokens: number,
): OffloadHeader {
  return {
    type: "lro_header",
    operation: spec.input.operation,
    query: spec.input.query ?? null,
    count,
    schema_version: spec.profile.schemaVersion,
    timestamp: new Date(createdAt).toISOString(),
    estimated_tokens: tokens,
    detail: spec.detail,
    ...spec.profile.headerFields(),
  };
}

/** Start streaming the file: open it with a header slot and write the lines held so far. */
export async function openRecordsStream(
  ctx: OffloadContext,
  spec: RecordsFileSpec,
  lines: readonly string[],
  lineBytes: readonly number[],
): Promise<RecordsStream> {
  const { config } = ctx;
  const createdAt = ctx.now();
  const id = ctx.nextId(createdAt);
  await ensureOutputDir(ctx.fs, config.outputDir);
  // The widest header this result can have: count and estimated_tokens at their largest.
  const widest = headerOf(spec, Number.MAX_SAFE_INTEGER, createdAt, Number.MAX_SAFE_INTEGER);
  const writer = await openJsonlWriter({
    fs: ctx.fs,
    dir: config.outputDir,
    prefix: config.filePrefix,
    operation: spec.input.operation,
    id,
    reserveHeaderBytes: utf8Length(JSON.stringify(widest)),
    onTempOpened: ctx.onTempOpened,
    publish: ctx.publish,
  });
  try {
    for (let j = 0; j < lines.length; j++) {
      const pending = writer.push(lines[j] as string, lineBytes[j] as number);
      if (pending) await pending;
    }
  } catch (err) {
    await writer.abort();
    throw err;
  }
  return { writer, createdAt };
}

/**
 * The completed file: the stream finished under its exact header, or (none
 * streamed) the measured lines written whole. A failure leaves no file and
 * nothing published, and is thrown.
 */
export async function completeRecordsFile(
  ctx: OffloadContext,
  spec: RecordsFileSpec,
  stream: RecordsStream | undefined,
  measured: {
    lines: readonly string[];
    lineBytes: readonly number[];
    count: number;
    tokens: number;
  },
): Promise<OffloadedFile> {
  const { config } = ctx;
  try {
    if (stream) {
      const header = headerOf(spec, measured.count, stream.createdAt, measured.tokens);
      const done = await stream.writer.finish(JSON.stringify(header));
      return {
        path: done.path,
        header,
        ttlSeconds: config.ttlSeconds,
        createdAt: stream.createdAt,
        bytes: done.bytes,
      };
    }
    const createdAt = ctx.now();
    const id = ctx.nextId(createdAt);
    await ensureOutputDir(ctx.fs, config.outputDir);
    let linesBytes = 0;
    for (const b of measured.lineBytes) linesBytes += b + 1;
    // At most STREAM_AFTER_CHARS in memory already: written whole (synchronously
    // when small), a few large writes otherwise.
    const done = await writeJsonlFile({
      fs: ctx.fs,
      dir: config.outputDir,
      prefix: config.filePrefix,
      operation: spec.input.operation,
      id,
      headerLine: JSON.stringify(headerOf(spec, measured.count, createdAt, measured.tokens)),
      lines: measured.lines,
      linesBytes,
      chunkChars: 1 << 20,
      onTempOpened: ctx.onTempOpened,
      publish: ctx.publish,
    });
    return {
      path: done.path,
      header: headerOf(spec, measured.count, createdAt, measured.tokens),
      ttlSeconds: config.ttlSeconds,
      createdAt,
      bytes: done.bytes,
    };
  } catch (err) {
    await stream?.writer.abort();
    await unpublishFailed(ctx.store, err);
    throw err;
  }
}
