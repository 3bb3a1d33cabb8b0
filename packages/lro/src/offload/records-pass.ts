/**
 * One pass over a result's records: each projected by the profile and
 * serialized once; the same line is measured and seen by the profile's
 * accumulator. Lines are kept in memory up to {@link STREAM_AFTER_CHARS}; a
 * result both above the threshold and larger than that is streamed to its
 * file as it is serialized, so 100,000 records never sit in memory as lines.
 * At most `maxRecords` records are kept; the rest are only counted.
 */
import { DEFAULT_OFFLOAD_CONFIG } from "../config/offload-config.js";
import type { LroError } from "../errors.js";
import { LineMeter } from "../estimate/estimate.js";
import type { ProfileAccumulator } from "../profiles/profile.js";
import { asLroError, type OffloadContext, serializeLine } from "./context.js";
import { decide, type ThresholdPolicy } from "./decide.js";
import { openRecordsStream, type RecordsFileSpec, type RecordsStream } from "./records-file.js";
import { linesThatFit } from "./truncate.js";
import type { OffloadRecordsInput, RecordSource, SourceRecord } from "./types.js";

/** Lines beyond this many characters of an offloaded result are streamed to disk. */
export const STREAM_AFTER_CHARS = 8 * 1024 * 1024;

/**
 * The same for a streamed `source`, whose records nobody else holds: lines
 * kept this long survive garbage collections into V8's old generation, so a
 * whole set of 100,000 would leave tens of megabytes behind for a full GC.
 */
const SOURCE_STREAM_AFTER_CHARS = 1024 * 1024;

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

/** What one pass over the records found. */
export interface RecordsPass {
  /** Records seen. */
  total: number;
  /** Records kept for the file (at most `maxRecords`). */
  count: number;
  /** Lines held in memory (all of them, or when streamed the leading ones within the threshold). */
  lines: string[];
  /** UTF-8 size of each held line. */
  lineBytes: number[];
  /** The held lines' records, while within the threshold (what a truncated fallback returns). */
  records: Record<string, unknown>[];
  meter: LineMeter;
  /** The finite scores' `[min, max]`, if any. */
  scoreRange: number[] | undefined;
  /** The profile's statistics over the kept records. */
  stats: ProfileAccumulator<unknown>;
  /** The file being streamed, when the result was large and decided offloaded on the way. */
  stream: RecordsStream | undefined;
  /** A write failure; after it lines were only measured, for the totals. */
  failure: LroError | undefined;
}

/** Read, project, serialize and measure every record once (see the module comment). */
export async function readRecords(
  ctx: OffloadContext,
  spec: RecordsFileSpec,
  policy: ThresholdPolicy,
): Promise<RecordsPass> {
  const { input, profile, detail } = spec;
  const project = input.project ?? true;
  const stats = profile.accumulate(detail);
  const { threshold } = policy;
  const maxRecords = ctx.config.maxRecords ?? DEFAULT_OFFLOAD_CONFIG.maxRecords;
  let total = 0;
  let count = 0;
  const scores = new ScoreSpan();
  const streamAfter = input.source ? SOURCE_STREAM_AFTER_CHARS : STREAM_AFTER_CHARS;
  const meter = new LineMeter();
  const lines: string[] = [];
  const records: Record<string, unknown>[] = [];
  const lineBytes: number[] = [];
  let keptChars = 0;
  let stream: RecordsStream | undefined;
  let failure: LroError | undefined;

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
      if (stream) {
        try {
          const pending = stream.writer.push(line, bytes);
          if (pending) await pending;
        } catch (err) {
          await stream.writer.abort();
          stream = undefined;
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
          stream = await openRecordsStream(ctx, spec, lines, lineBytes);
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
    await stream?.writer.abort();
    throw err;
  }
  return {
    total,
    count,
    lines,
    lineBytes,
    records,
    meter,
    scoreRange: scores.result(),
    stats,
    stream,
    failure,
  };
}
