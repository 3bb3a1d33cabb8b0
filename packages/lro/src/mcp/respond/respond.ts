/**
 * The one result→response boundary: the only place a tool's result becomes
 * the `CallToolResult` sent to the client. `withOffload` (records of a
 * server's own tools), `offloadCallToolResult` (any result) and the LRO proxy
 * all call {@link respond}. Here, once:
 *
 * - the policy: `auto` (offload above the threshold), `always` (any non-error
 *   result), `never` (pages only), `whole-set-inline` (for a client that
 *   offloads locally: every match in `structuredContent`, see `whole-set.ts`);
 *   a threshold and inline keys of the call's own; a cursor's page (a
 *   `continuation`) is judged by none: only a walk's initial request is;
 * - the estimate (`Offloader.offloadRecords` for records, which measures the
 *   lines it writes; `estimateCallResultTokens` for a ready result), judged by
 *   the one `decide` (`offload/decide.ts`);
 * - the inline envelopes (`inline-envelope.ts`);
 * - the write-failure rule, the specification's, through the one
 *   `fitToThreshold`: the result inline, truncated to the threshold, with a
 *   warning saying exactly what is returned, and an `OffloadWriteFailed` event
 *   (emitted by the offloader, the one place events come from).
 */

import { DEFAULT_OFFLOAD_CONFIG } from "../../config/offload-config.js";
import { estimateCallResultTokens } from "../../estimate/estimate.js";
import type { CallEvents } from "../../events/events.js";
import { failureCode, serializeLine } from "../../offload/context.js";
import { decide } from "../../offload/decide.js";
import { offloadLaidOut } from "../../offload/offload-laid-out.js";
import type { Offloader } from "../../offload/offloader.js";
import { fitToThreshold, textTruncationWarning } from "../../offload/truncate.js";
import type { OffloadRecordsResult, RecordSource, SourceRecord } from "../../offload/types.js";
import type { AnyProfile } from "../../profiles/profile.js";
import { recordsProfile } from "../../profiles/records/records-profile.js";
import { type BuiltinProfileName, profileByName } from "../../profiles/registry.js";
import { callResultGuidance } from "../../profiles/sections/call-result-guidance.js";
import type { CallToolResult } from "../../protocol/mcp-types.js";
import {
  type McpNames,
  mcpNames,
  offloadResourceLink,
} from "../../protocol/offload-resource-uri.js";
import { guidanceFileLine } from "../../recipes/recipe-spec.js";
import {
  cutText,
  recordsEnvelope,
  resultText,
  textResult,
  truncatedRecordsEnvelope,
  truncatedText,
} from "./inline-envelope.js";
import {
  type InlinePage,
  isOffloadableRecords,
  type OffloadableRecords,
  type OffloadHandlerResult,
  resolveProfile,
} from "./offloadable.js";
import {
  AUTO_POLICY,
  offloadRecordsThreshold,
  type ResponsePolicy,
  thresholdPolicyOf,
} from "./policy.js";
import { readWholeSet, type WholeSet, withWholeSet } from "./whole-set.js";

/** Options of {@link respond}: one call's (its `onEvent` gets that call's events). */
interface RespondOptions extends CallEvents {
  offloader: Offloader;
  policy?: ResponsePolicy | undefined;
  /** Profile of records that name none (default `"memory"`). */
  profile?: BuiltinProfileName | AnyProfile | undefined;
  /** Add `resource_link`s to the written files. */
  resourceLinks?: boolean | undefined;
  /** Resource URI prefix of those links (default atlatl's). */
  names?: Partial<McpNames> | undefined;
  /**
   * Judge ready `CallToolResult`s too (default: passed through, except a
   * negotiated whole set, which is always judged). With `operation` (file
   * names, headers; default `result`), `query`, and `descriptorFields` put
   * first on their descriptor (e.g. a proxy's `tool`).
   */
  callResults?: boolean | undefined;
  operation?: string | undefined;
  query?: string | null | undefined;
  descriptorFields?: Record<string, unknown> | undefined;
}

/** Turn what a handler produced into the response (see the module comment). */
export async function respond(
  produced: OffloadHandlerResult,
  options: RespondOptions,
): Promise<CallToolResult> {
  if (isOffloadableRecords(produced)) return respondRecords(produced, options);
  // A host's own result goes back to the same host as it came (on SDK 2.x its
  // structuredContent may be any JSON value; LRO reads it only as an object).
  const result = produced as CallToolResult;
  const negotiated = readWholeSet(result);
  if (negotiated) return respondWholeSet(negotiated.set, negotiated.page, result, options);
  if (!options.callResults) return result;
  return respondCallResult(result, options);
}

async function respondRecords(
  result: OffloadableRecords,
  options: RespondOptions,
): Promise<CallToolResult> {
  const { offloader } = options;
  const policy = options.policy ?? AUTO_POLICY;
  // A page of a walk judged at its first request: its lines as given, like the first page's.
  if (result.continuation) return inlineResult(result, result.records.map(serializeLine));
  const resolved = resolveProfile(result.profile ?? options.profile);
  const profile = resolved ? { profile: resolved } : {};
  if (policy.mode === "whole-set-inline") return wholeSetInline(result, resolved, options);
  const judgement = thresholdPolicyOf(policy, offloader.config);
  if (result.whole && !judgement.off) {
    const outcome = await offloader.offloadRecords<unknown>({
      operation: result.operation,
      query: result.query ?? null,
      detail: result.detail,
      source: result.whole.source,
      ...profile,
      ...offloadRecordsThreshold(judgement),
      onEvent: options.onEvent,
    });
    if (outcome.kind === "offloaded") return offloadedResult(outcome, options);
    const page = { ...result, ...(await result.whole.page()) };
    if (outcome.kind === "truncated") return truncatedResult(outcome, page, judgement.threshold);
    return pageResult(page, outcome.total ?? outcome.lines.length, outcome.lines);
  }
  // Pages only when LRO is off, as the specification says (no whole-set read to count).
  const page = result.whole ? { ...result, ...(await result.whole.page()) } : result;
  const outcome = await offloader.offloadRecords<unknown>({
    operation: page.operation,
    query: page.query ?? null,
    detail: page.detail,
    records: page.records,
    scores: page.scores,
    ...profile,
    ...offloadRecordsThreshold(judgement),
    onEvent: options.onEvent,
  });
  if (outcome.kind === "offloaded") return offloadedResult(outcome, options);
  if (outcome.kind === "truncated") return truncatedResult(outcome, page, judgement.threshold);
  return inlineResult(page, outcome.lines);
}

/** The inline text of a page whose records are serialized as `lines`. */
function inlineResult(page: InlinePage, lines: readonly string[], total?: number): CallToolResult {
  if (typeof page.inline === "string") return textResult(page.inline);
  if (page.inline !== undefined) return textResult(JSON.stringify(page.inline));
  return textResult(recordsEnvelope(lines, { total, nextCursor: page.nextCursor }));
}

/**
 * An inline page of a whole set: `total` counts every match (exact: the set
 * was read in full). A page of the source's leading records takes their
 * `measured` lines: each record is serialized once.
 */
function pageResult(page: InlinePage, total: number, measured?: readonly string[]): CallToolResult {
  if (page.inline !== undefined) return inlineResult(page, [], total);
  const n = page.records.length;
  const reuse = page.leadingOfSource === true && measured !== undefined && measured.length >= n;
  const lines = reuse ? measured.slice(0, n) : page.records.map(serializeLine);
  return inlineResult(page, lines, total);
}

function offloadedResult(
  outcome: Extract<OffloadRecordsResult<unknown>, { kind: "offloaded" }>,
  options: Pick<RespondOptions, "resourceLinks" | "names">,
): CallToolResult {
  const out = textResult(JSON.stringify(outcome.response));
  if (options.resourceLinks) {
    out.content.push(
      offloadResourceLink(
        outcome.file.path,
        mcpNames(options.names).resourcePrefix,
        `${outcome.file.header.operation} result, ${outcome.file.header.count} records`,
      ),
    );
  }
  return out;
}

/** Text cut to fit `threshold` with a warning that counts exactly what is kept. */
function truncatedTextOf(text: string, code: string, threshold: number): string {
  const fitted = fitToThreshold(
    threshold,
    text.length,
    (kept) => textTruncationWarning(code, kept, text.length, threshold),
    (budget) => cutText(text, budget).length,
  );
  return truncatedText(text.slice(0, fitted.kept), fitted.warning);
}

/** The write-failure fallback: the page's own text cut to fit, or the records that fit. */
function truncatedResult(
  outcome: Extract<OffloadRecordsResult<unknown>, { kind: "truncated" }>,
  page: InlinePage,
  threshold: number,
): CallToolResult {
  if (typeof page.inline === "string") {
    return textResult(truncatedTextOf(page.inline, failureCode(outcome.error), threshold));
  }
  return textResult(truncatedRecordsEnvelope(outcome.lines, outcome.total, outcome.warning));
}

/** Pairs of records and scores as a source. */
function sourceOf(result: OffloadableRecords): RecordSource {
  if (result.whole) return result.whole.source;
  const { records, scores } = result;
  return records.map((record, i): SourceRecord => ({ record, score: scores?.[i] }));
}

/**
 * For a client that offloads locally: the usual page, and every match (up to
 * `max_records`) in `structuredContent` with what its descriptor needs.
 * Nothing is written or estimated here; the client judges.
 */
async function wholeSetInline(
  result: OffloadableRecords,
  profile: AnyProfile | undefined,
  options: RespondOptions,
): Promise<CallToolResult> {
  const maxRecords = options.offloader.config.maxRecords ?? DEFAULT_OFFLOAD_CONFIG.maxRecords;
  const maxBytes = options.policy?.maxInlineBytes ?? Number.POSITIVE_INFINITY;
  const setting = options.policy?.maxInlineBytesSetting;
  const records: object[] = [];
  const scores: number[] = [];
  let scored = true;
  let total = 0;
  let bytes = 0;
  let cutByBytes = false;
  for await (const item of sourceOf(result)) {
    total++;
    if (records.length >= maxRecords || cutByBytes) continue;
    // Measured only under a bound: unbounded (stdio), no record is serialized here.
    if (maxBytes !== Number.POSITIVE_INFINITY) {
      bytes += Buffer.byteLength(JSON.stringify(item.record)) + 1;
    }
    if (bytes > maxBytes) {
      cutByBytes = true;
      continue;
    }
    records.push(item.record);
    if (typeof item.score === "number" && Number.isFinite(item.score)) scores.push(item.score);
    else scored = false;
  }
  const page = result.whole ? { ...result, ...(await result.whole.page()) } : result;
  const response = result.whole
    ? pageResult(page, total)
    : inlineResult(page, await inlineLines(page, profile, options.offloader));
  const set: WholeSet = {
    operation: result.operation,
    query: result.query ?? null,
    detail: result.detail ?? null,
    profile: profile?.name ?? "memory",
    records: records as Record<string, unknown>[],
    ...(scored && scores.length > 0 ? { scores } : {}),
    total,
    text_inline: typeof page.inline === "string",
    ...(cutByBytes
      ? {
          warning:
            `cut to the first ${records.length} of ${total} records: the whole result set is ` +
            `larger than the ${maxBytes}-byte bound on inline results for LRO proxy clients` +
            `${setting ? ` (${setting})` : ""}; ` +
            "narrow the query (filters, a lower detail level) to receive every match",
        }
      : {}),
  };
  return withWholeSet(response, set);
}

/** A page's records projected and serialized as the inline path does (nothing judged). */
async function inlineLines(
  page: OffloadableRecords,
  profile: AnyProfile | undefined,
  offloader: Offloader,
): Promise<string[]> {
  const outcome = await offloader.offloadRecords<unknown>({
    operation: page.operation,
    detail: page.detail,
    records: page.records,
    ...(profile ? { profile } : {}),
    thresholdTokens: Number.POSITIVE_INFINITY,
  });
  return outcome.kind === "inline" ? outcome.lines : [];
}

/** A negotiated whole set, judged against this side's policy (an LRO proxy's). */
async function respondWholeSet(
  set: WholeSet,
  page: CallToolResult,
  produced: CallToolResult,
  options: RespondOptions,
): Promise<CallToolResult> {
  const { offloader } = options;
  const policy = options.policy ?? AUTO_POLICY;
  // Another local offloader further on: pass the set on as it came.
  if (policy.mode === "whole-set-inline") return produced;
  const judgement = thresholdPolicyOf(policy, offloader.config);
  if (judgement.off) return page;
  const outcome = await offloader.offloadRecords<unknown>({
    operation: set.operation,
    query: set.query,
    ...(set.detail !== null ? { detail: set.detail } : {}),
    // A profile this side does not know describes its records generically.
    profile: profileByName(set.profile) ?? recordsProfile,
    records: set.records,
    scores: set.scores,
    totalMatches: set.total,
    // The server cut the set for a bound of its own: the cap notice names it.
    ...(set.warning !== undefined ? { capCause: set.warning } : {}),
    ...offloadRecordsThreshold(judgement),
    onEvent: options.onEvent,
  });
  const kept = keptFields(page);
  if (outcome.kind === "inline") return page;
  if (outcome.kind === "offloaded") return { ...kept, ...offloadedResult(outcome, options) };
  const inline: InlinePage = set.text_inline
    ? { records: [], inline: resultText(page) }
    : { records: [] };
  return { ...kept, ...truncatedResult(outcome, inline, judgement.threshold) };
}

/** Everything of `result` but what is offloaded (`content`, `structuredContent`). */
function keptFields(result: CallToolResult): Record<string, unknown> {
  const { content: _c, structuredContent: _s, ...rest } = result;
  return rest;
}

/** Any ready result: estimated whole; above the threshold laid out and written. */
async function respondCallResult(
  result: CallToolResult,
  options: RespondOptions,
): Promise<CallToolResult> {
  if (result.isError === true) return result;
  const { offloader } = options;
  const policy = options.policy ?? AUTO_POLICY;
  const judgement = thresholdPolicyOf(policy, offloader.config);
  if (judgement.off) return result;
  const tokens = await estimateCallResultTokens(result, judgement.force ? 0 : judgement.threshold);
  if (!decide(tokens, judgement)) return result;
  const operation = options.operation ?? "result";
  const done = await offloadLaidOut(offloader, result, {
    operation,
    query: options.query ?? null,
    estimatedTokens: tokens,
    inlineKeys: policy.inlineKeys,
    ...(options.descriptorFields ? { inline: options.descriptorFields } : {}),
    onEvent: options.onEvent,
  });
  const kept = keptFields(result);
  if (done.kind === "failed") {
    return {
      ...kept,
      ...textResult(truncatedTextOf(resultText(result), done.code, judgement.threshold)),
    };
  }
  const descriptor = done.descriptor;
  if (done.profile === "sections") {
    const tool = offloader.nativeExtraction === false ? undefined : offloader.nativeExtraction;
    descriptor.guidance = callResultGuidance(
      guidanceFileLine(descriptor as { guidance: string }),
      operation,
      descriptor.files as Record<string, string>,
      tokens,
      tool,
      done.attachments,
    );
  }
  const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(descriptor) }];
  if (options.resourceLinks) {
    const prefix = mcpNames(options.names).resourcePrefix;
    for (const f of done.files) {
      content.push(offloadResourceLink(f.path, prefix, `${operation} result, ${f.description}`));
    }
  }
  return { ...kept, content };
}
