/**
 * The single-file pipeline of every profile (memory by default): one pass
 * reads, projects, serializes and measures the records (`records-pass.ts`);
 * the one threshold decision keeps them inline or writes them to one file
 * (`records-file.ts`, streamed already when large), which the profile's
 * `describe` turns into the descriptor; a write failure gives the truncated
 * fallback.
 *
 * The records come as an array (with aligned scores) or as a stream (`source`,
 * e.g. a store's cursor over every match). At most `maxRecords` of them are
 * kept for the file; the rest are only counted, and a set that large is
 * offloaded capped, its descriptor saying so.
 */
import { DEFAULT_OFFLOAD_CONFIG } from "../config/offload-config.js";
import { withCapNotice } from "../descriptor/cap-notice.js";
import { LroError } from "../errors.js";
import { unpublish } from "../offload-store/publish.js";
import { memoryProfile } from "../profiles/memory/memory-profile.js";
import type { Profile } from "../profiles/profile.js";
import type { OffloadedFile, OffloadResponse } from "../types.js";
import {
  asLroError,
  emitCreated,
  emitFailed,
  failureReason,
  type OffloadContext,
} from "./context.js";
import { decide, thresholdPolicy } from "./decide.js";
import { completeRecordsFile, type RecordsFileSpec } from "./records-file.js";
import { type RecordsPass, readRecords } from "./records-pass.js";
import { fitToThreshold, linesThatFit, truncationWarning } from "./truncate.js";
import type { OffloadRecordsInput, OffloadRecordsResult } from "./types.js";

/** Run a profile on records: inline, offloaded, or truncated on a write failure. */
export async function offloadRecords<D = OffloadResponse>(
  ctx: OffloadContext,
  input: OffloadRecordsInput<D>,
): Promise<OffloadRecordsResult<D>> {
  const profile = (input.profile ?? memoryProfile) as Profile<D, unknown>;
  const spec: RecordsFileSpec = { input, profile, detail: profile.normalizeDetail(input.detail) };
  const policy = thresholdPolicy(ctx.config, input);
  const pass = await readRecords(ctx, spec, policy);
  const tokens = pass.meter.tokens;
  // A producer that capped the set says how many match in all.
  const total = Math.max(pass.total, input.totalMatches ?? 0);
  const capped = total > pass.count;
  // A capped set is offloaded (its file says what is missing) unless no set can
  // be (LRO off, or an infinite threshold).
  const inline = !decide(tokens, policy) && (!capped || !decide(Number.POSITIVE_INFINITY, policy));
  if (!pass.failure && !pass.stream && inline) {
    return { kind: "inline", estimatedTokens: tokens, lines: pass.lines, total };
  }

  let failure = pass.failure;
  if (!failure) {
    let file: OffloadedFile | undefined;
    try {
      file = await completeRecordsFile(ctx, spec, pass.stream, { ...pass, tokens });
      const response = describeFile<D>(ctx, spec, pass, file, total, tokens);
      emitCreated(ctx, file);
      return { kind: "offloaded", estimatedTokens: tokens, response, file, total };
    } catch (err) {
      if (file) {
        // A descriptor must never be missing for a file, nor a file for a descriptor.
        await ctx.fs.unlink(file.path).catch(() => {});
        await unpublish(ctx.store, file.path);
      }
      failure = asLroError(err);
    }
  }

  const error = failure ?? new LroError("WRITE_FAILED", "offload failed");
  emitFailed(ctx, input.operation, error, total, tokens);
  const code = failureReason(error);
  const { threshold } = policy;
  const fitted = fitToThreshold(
    threshold,
    total,
    (kept) => truncationWarning(code, kept, total, threshold),
    (budget) => linesThatFit(pass.lines, pass.meter, budget).count,
  );
  return {
    kind: "truncated",
    estimatedTokens: tokens,
    records: pass.records.slice(0, fitted.kept),
    lines: pass.lines.slice(0, fitted.kept),
    total,
    warning: fitted.warning,
    error,
  };
}

/** The profile's descriptor of the written `file`, with the cap notice when the set was capped. */
function describeFile<D>(
  ctx: OffloadContext,
  spec: RecordsFileSpec,
  pass: RecordsPass,
  file: OffloadedFile,
  total: number,
  tokens: number,
): D {
  const { input, detail } = spec;
  const profile = spec.profile as Profile<D, unknown>;
  const described = profile.describe({
    filePath: file.path,
    operation: input.operation,
    query: input.query ?? null,
    detail,
    count: pass.count,
    estimatedTokens: tokens,
    stats: pass.stats.result(),
    scores: pass.scoreRange,
    nativeExtraction: ctx.nativeExtraction,
  });
  if (total <= pass.count) return described;
  const maxRecords = ctx.config.maxRecords ?? DEFAULT_OFFLOAD_CONFIG.maxRecords;
  return withCapNotice(described, {
    total,
    inFile: pass.count,
    maxRecords,
    ...(pass.count < maxRecords ? { cause: input.capCause } : {}),
  });
}
