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
 *
 * The records come as an array (with aligned scores) or as a stream (`source`,
 * e.g. a store's cursor over every match). At most `maxRecords` of them are
 * kept for the file; the rest are only counted, and a set that large is
 * offloaded capped, its descriptor saying so.
 */
import { DEFAULT_OFFLOAD_CONFIG } from "../config/offload-config.js";
import { withCapNotice } from "../descriptor/cap-notice.js";
import { LroError } from "../errors.js";
import { LineMeter, utf8Length } from "../estimate/estimate.js";
import {
  ensureOutputDir,
  type JsonlWriter,
  openJsonlWriter,
  writeJsonlFile,
} from "../materialize/write-jsonl.js";
import { unpublish, unpublishFailed } from "../offload-store/publish.js";
import { memoryProfile } from "../profiles/memory/memory-profile.js";
import type { Profile } from "../profiles/profile.js";
import type { OffloadedFile, OffloadHeader, OffloadResponse } from "../types.js";
import {
  asLroError,
  emitCreated,
  emitFailed,
  failureReason,
  type OffloadContext,
  serializeLine,
} from "./context.js";
import { decide, thresholdPolicy } from "./decide.js";
import { fitToThreshold, linesThatFit, truncationWarning } from "./truncate.js";
import type {
  OffloadRecordsInput,
  OffloadRecordsResult,
  RecordSource,
  SourceRecord,
} from "./types.js";

/** Lines beyond this many characters of an offloaded result are streamed to disk. */
export const STREAM_AFTER_CHARS = 8 * 1024 * 1024;

/**
 * The same for a streamed `source`, whose records nobody else holds: lines
 * kept this long survive garbage collections into V8's old generation, so a
 * whole set of 100,000 would leave tens of megabytes behind for a full GC.
 */
export const SOURCE_STREAM_AFTER_CHARS = 1024 * 1024;

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

/** The input's records with their scores, one at a time. */
function recordsOf(input: OffloadRecordsInput<unknown>): RecordSource {
  if (input.source) return input.source;
  const records = input.records ?? [];
  const scores = input.scores;
  return {
    *[Symbol.iterator](): Iterator<SourceRecord> {
      for (let i = 0; i < records.length; i++) {
        yield { record: records[i] as object, score: scores?.[i] };
      }
    },
  };
}

/** `[min, max]` of the finite scores seen, kept as they stream by. */
class ScoreSpan {
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  add(s: number | undefined): void {
    if (typeof s !== "number" || !Number.isFinite(s)) return;
    if (s < this.min) this.min = s;
    if (s > this.max) this.max = s;
  }
  /** The span as a two-score list (what the descriptor's `score_range` reads), if any. */
  result(): number[] | undefined {
    return this.min === Number.POSITIVE_INFINITY ? undefined : [this.min, this.max];
  }
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
  const stats = profile.accumulate(detail);
  const policy = thresholdPolicy(config, input);
  const { threshold } = policy;
  const maxRecords = config.maxRecords ?? DEFAULT_OFFLOAD_CONFIG.maxRecords;
  /** Records seen, and those kept for the file (at most `maxRecords`). */
  let total = 0;
  let count = 0;
  const scores = new ScoreSpan();
  const streamAfter = input.source ? SOURCE_STREAM_AFTER_CHARS : STREAM_AFTER_CHARS;
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
    // The widest header this result can have: count and estimated_tokens at their largest.
    const widest = headerOf(
      input,
      profile,
      detail,
      Number.MAX_SAFE_INTEGER,
      createdAt,
      Number.MAX_SAFE_INTEGER,
    );
    const w = await openJsonlWriter({
      fs: ctx.fs,
      dir: config.outputDir,
      prefix: config.filePrefix,
      operation: input.operation,
      id,
      reserveHeaderBytes: utf8Length(JSON.stringify(widest)),
      onTempOpened: ctx.onTempOpened,
      publish: ctx.publish,
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
    for await (const item of recordsOf(input)) {
      total++;
      if (count >= maxRecords) continue; // counted, not kept: the file is capped
      const i = count++;
      const record = project
        ? (profile.project(item.record, detail) as Record<string, unknown>)
        : (item.record as Record<string, unknown>);
      scores.add(item.score);
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
      // Only a truncated fallback reads records, and never past the threshold:
      // holding more would keep every record of the first megabyte alive, and V8
      // then allocates records in the old generation for the rest of the set.
      if (meter.tokens <= threshold) records.push(record);
      keptChars += line.length + 1;
      if (keptChars > streamAfter && decide(meter.tokens, policy)) {
        try {
          writer = await startStreaming();
          // Written: keep only what the truncated fallback could return (lines
          // within the threshold), so a streamed set holds no megabytes of lines.
          const keep = linesThatFit(lines, meter, threshold).count;
          lines.length = keep;
          lineBytes.length = keep;
          records.length = keep;
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
  // A producer that capped the set says how many match in all.
  if (input.totalMatches !== undefined && input.totalMatches > total) total = input.totalMatches;
  const capped = total > count;
  // A capped set is offloaded (its file says what is missing) unless no set can
  // be (LRO off, or an infinite threshold).
  const inline = !decide(tokens, policy) && (!capped || !decide(Number.POSITIVE_INFINITY, policy));
  if (!failure && !writer && inline) {
    return { kind: "inline", estimatedTokens: tokens, lines, total };
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
          publish: ctx.publish,
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
      await unpublishFailed(ctx.store, err);
      failure = asLroError(err);
    }
  }

  if (file && !failure) {
    try {
      const described = profile.describe({
        filePath: file.path,
        operation: input.operation,
        query: input.query ?? null,
        detail,
        count,
        estimatedTokens: tokens,
        stats: stats.result(),
        scores: scores.result(),
        nativeExtraction: ctx.nativeExtraction,
      });
      const response = capped
        ? withCapNotice(described, {
            total,
            inFile: count,
            maxRecords,
            ...(count < maxRecords ? { cause: input.capCause } : {}),
          })
        : described;
      emitCreated(ctx, file);
      return { kind: "offloaded", estimatedTokens: tokens, response, file, total };
    } catch (err) {
      // A descriptor must never be missing for a file, nor a file for a descriptor.
      await ctx.fs.unlink(file.path).catch(() => {});
      await unpublish(ctx.store, file.path);
      failure = asLroError(err);
    }
  }

  const error = failure ?? new LroError("WRITE_FAILED", "offload failed");
  emitFailed(ctx, input.operation, error, total, tokens);
  const code = failureReason(error);
  const fitted = fitToThreshold(
    threshold,
    total,
    (kept) => truncationWarning(code, kept, total, threshold),
    (budget) => linesThatFit(lines, meter, budget).count,
  );
  return {
    kind: "truncated",
    estimatedTokens: tokens,
    records: records.slice(0, fitted.kept),
    lines: lines.slice(0, fitted.kept),
    total,
    warning: fitted.warning,
    error,
  };
}
