/**
 * The single-file pipeline of every profile (memory by default). Each record is
 * projected by the profile and serialized once; the same line is measured and,
 * if the result is offloaded, written; the profile's accumulator sees it on the
 * way and its `describe` builds the descriptor.
 *
 * Lines are kept in memory up to {@link STREAM_AFTER_CHARS}. A result that is
 * both over the threshold and larger than that is streamed to disk as it is
 * serialized, so 100,000 records never sit in memory as lines: its header line
 * (whose `estimated_tokens` is only known at the end) goes into a slot reserved
 * at the start of the file, padded with trailing spaces, which JSON ignores.
 * Smaller results are written in one go with an exact header.
 */
import { LroError } from "../errors.js";
import { LineMeter, utf8Length } from "../estimate/estimate.js";
import {
  ensureOutputDir,
  type JsonlWriter,
  openJsonlWriter,
  writeJsonlFile,
} from "../materialize/write-jsonl.js";
import { memoryProfile } from "../profiles/memory/memory-profile.js";
import type { Profile } from "../profiles/profile.js";
import type { OffloadedFile, OffloadHeader, OffloadResponse } from "../types.js";
import {
  asLroError,
  emitCreated,
  emitFailed,
  failureCode,
  type OffloadContext,
  serializeLine,
} from "./context.js";
import { linesThatFit, reserveFor, truncationWarning } from "./truncate.js";
import type { OffloadRecordsInput, OffloadRecordsResult } from "./types.js";

/** Lines beyond this many characters of an offloaded result are streamed to disk. */
export const STREAM_AFTER_CHARS = 8 * 1024 * 1024;

function headerOf(
  input: OffloadRecordsInput<unknown>,
  profile: Profile<unknown, unknown>,
  detail: string,
  count: number,
  createdAt: number,
  tokens: number,
): OffloadHeader {
  return {
    type: "lro_header",
    operation: input.operation,
    query: input.query ?? null,
    count,
    schema_version: profile.schemaVersion,
    timestamp: new Date(createdAt).toISOString(),
    estimated_tokens: tokens,
    detail,
    ...profile.headerFields(),
  };
}

/** Run a profile on records: inline, offloaded, or truncated on a write failure. */
export async function offloadRecords<D = OffloadResponse>(
  ctx: OffloadContext,
  input: OffloadRecordsInput<D>,
): Promise<OffloadRecordsResult<D>> {
  const { config } = ctx;
  const profile = (input.profile ?? memoryProfile) as Profile<D, unknown>;
  const detail = profile.normalizeDetail(input.detail);
  const project = input.project ?? true;
  const source = input.records;
  const count = source.length;
  const stats = profile.accumulate(detail);
  /** Offloaded when the estimate is above this (forced: always; disabled: never). */
  const offloadAbove = input.force
    ? -1
    : config.enabled
      ? (input.thresholdTokens ?? config.thresholdTokens)
      : Number.POSITIVE_INFINITY;
  const meter = new LineMeter();
  /** Lines kept in memory (all of them, or the first ones when streaming), and their records. */
  const lines: string[] = [];
  const records: Record<string, unknown>[] = [];
  const lineBytes: number[] = [];
  let keptChars = 0;
  let createdAt = 0;
  let id = "";
  let writer: JsonlWriter | undefined;
  /** A write failure; after it lines are only measured, for the totals. */
  let failure: LroError | undefined;

  const startStreaming = async (): Promise<JsonlWriter> => {
    createdAt = ctx.now();
    id = ctx.nextId(createdAt);
    await ensureOutputDir(ctx.fs, config.outputDir);
    // The widest header this result can have: estimated_tokens at its largest.
    const widest = headerOf(input, profile, detail, count, createdAt, Number.MAX_SAFE_INTEGER);
    const w = await openJsonlWriter({
      fs: ctx.fs,
      dir: config.outputDir,
      prefix: config.filePrefix,
      operation: input.operation,
      id,
      reserveHeaderBytes: utf8Length(JSON.stringify(widest)),
      onTempOpened: ctx.onTempOpened,
    });
    try {
      for (let j = 0; j < lines.length; j++) {
        const pending = w.push(lines[j] as string, lineBytes[j] as number);
        if (pending) await pending;
      }
    } catch (err) {
      await w.abort();
      throw err;
    }
    return w;
  };

  try {
    for (let i = 0; i < count; i++) {
      const record = project
        ? (profile.project(source[i] as object, detail) as Record<string, unknown>)
        : (source[i] as Record<string, unknown>);
      stats.add(record);
      const line = serializeLine(record);
      let bytes = meter.add(line, i);
      if (bytes < 0) bytes = await meter.addAsync(line, i);
      if (failure) continue;
      if (writer) {
        try {
          const pending = writer.push(line, bytes);
          if (pending) await pending;
        } catch (err) {
          await writer.abort();
          writer = undefined;
          failure = asLroError(err);
        }
        continue;
      }
      lines.push(line);
      lineBytes.push(bytes);
      records.push(record);
      keptChars += line.length + 1;
      if (keptChars > STREAM_AFTER_CHARS && meter.tokens > offloadAbove) {
        try {
          writer = await startStreaming();
        } catch (err) {
          failure = asLroError(err);
        }
      }
    }
  } catch (err) {
    // Not a write failure (those are caught above): a record that cannot be
    // serialized. Leave nothing behind, and let the caller see its own error.
    await writer?.abort();
    throw err;
  }

  const tokens = meter.tokens;
  if (!failure && !writer && tokens <= offloadAbove) {
    return { kind: "inline", estimatedTokens: tokens, lines };
  }

  let file: OffloadedFile | undefined;
  if (!failure) {
    const w = writer;
    try {
      if (!w) {
        createdAt = ctx.now();
        id = ctx.nextId(createdAt);
        await ensureOutputDir(ctx.fs, config.outputDir);
        let linesBytes = 0;
        for (const b of lineBytes) linesBytes += b + 1;
        // At most STREAM_AFTER_CHARS in memory already: written whole (synchronously
        // when small), a few large writes otherwise.
        const done = await writeJsonlFile({
          fs: ctx.fs,
          dir: config.outputDir,
          prefix: config.filePrefix,
          operation: input.operation,
          id,
          headerLine: JSON.stringify(headerOf(input, profile, detail, count, createdAt, tokens)),
          lines,
          linesBytes,
          chunkChars: 1 << 20,
          onTempOpened: ctx.onTempOpened,
        });
        file = {
          path: done.path,
          header: headerOf(input, profile, detail, count, createdAt, tokens),
          ttlSeconds: config.ttlSeconds,
          createdAt,
          bytes: done.bytes,
        };
      } else {
        const header = headerOf(input, profile, detail, count, createdAt, tokens);
        const done = await w.finish(JSON.stringify(header));
        file = {
          path: done.path,
          header,
          ttlSeconds: config.ttlSeconds,
          createdAt,
          bytes: done.bytes,
        };
      }
    } catch (err) {
      await w?.abort();
      failure = asLroError(err);
    }
  }

  if (file && !failure) {
    try {
      const response = profile.describe({
        filePath: file.path,
        operation: input.operation,
        query: input.query ?? null,
        detail,
        count,
        estimatedTokens: tokens,
        stats: stats.result(),
        scores: input.scores,
        nativeExtraction: ctx.nativeExtraction,
      });
      emitCreated(ctx, file);
      return { kind: "offloaded", estimatedTokens: tokens, response, file };
    } catch (err) {
      // A descriptor must never be missing for a file, nor a file for a descriptor.
      await ctx.fs.unlink(file.path).catch(() => {});
      failure = asLroError(err);
    }
  }

  const error = failure ?? new LroError("WRITE_FAILED", "offload failed");
  emitFailed(ctx, input.operation, error, count, tokens);
  const code = failureCode(error);
  const budget =
    config.thresholdTokens -
    reserveFor(truncationWarning(code, count, count, config.thresholdTokens));
  const kept = linesThatFit(lines, meter, budget).count;
  return {
    kind: "truncated",
    estimatedTokens: tokens,
    records: records.slice(0, kept),
    lines: lines.slice(0, kept),
    total: count,
    warning: truncationWarning(code, kept, count, config.thresholdTokens),
    error,
  };
}
