/**
 * LRO as middleware for `@modelcontextprotocol/sdk` tool callbacks. The wrapped
 * handler returns either a ready `CallToolResult` (passed through untouched) or
 * the records of a result set; the middleware estimates them at the requested
 * detail level and builds the response: inline JSON (or the caller's inline
 * text), the `OffloadResponse` descriptor, or the truncated fallback. Services
 * stay unaware of LRO; only this layer sees records and the serialized result.
 */
import { basename } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serializeLine } from "../offload/context.js";
import type { Offloader, OffloadRecordsResult, RecordSource } from "../offload/offloader.js";
import { reserveFor } from "../offload/truncate.js";
import type { AnyProfile } from "../profiles/profile.js";
import { type BuiltinProfileName, profileByName } from "../profiles/registry.js";
import type { DetailLevel } from "../types.js";
import { type OffloadCallResultOptions, offloadCallToolResult } from "./offload-call-result.js";
import {
  type McpNames,
  mcpNames,
  OFFLOAD_MIME_TYPE,
  offloadResourceUri,
} from "./offload-resource-uri.js";

/** What a wrapped handler returns instead of a `CallToolResult` to have LRO applied. */
export interface OffloadableRecords {
  /** `recall`, `search`, `inject`, `list`, or a producer's own. */
  operation: string;
  query?: string | null;
  /** Detail level of memory records (other profiles ignore it). */
  detail?: DetailLevel | undefined;
  /**
   * What the records are: `"memory"` (default: MIF memories, the specification's
   * descriptor), `"records"` (any objects: inferred schema, recipes on their
   * fields), `"sections"`, or a {@link Profile} object of your own.
   */
  profile?: BuiltinProfileName | AnyProfile | undefined;
  /** The complete (for `inject`: pre-budget) result set. */
  records: readonly object[];
  /** Hit scores aligned with `records`, when the operation has them. */
  scores?: readonly number[] | undefined;
  /**
   * What to return when the result stays inline: a string is returned as the
   * text (e.g. `inject_context`'s formatted Markdown), any other value as JSON.
   * Default: `{count, records, next_cursor?}` built from the same serialized lines.
   */
  inline?: unknown;
  /** Pagination cursor for the inline case only (offloaded results carry none). */
  nextCursor?: string | null;
  /**
   * The whole result set, judged instead of `records` (which are then unused:
   * pass `[]`). LRO precedes pagination: above the threshold (or past
   * `maxRecords`) every match goes to the file and no cursor exists; below it
   * the inline page comes from `whole.page()`, with the number of matches.
   */
  whole?: WholeResultSet;
}

/** Every match of a paged read, and how to get its first inline page. */
export interface WholeResultSet {
  /** Every match in the tool's order (rank or sort order), each with its score if any. */
  source: RecordSource;
  /** The inline page; asked for only when the whole set stays inline (or LRO is off). */
  page(): Promise<InlinePage>;
}

/** An inline page of a {@link WholeResultSet}. */
export type InlinePage = Pick<OffloadableRecords, "records" | "scores" | "inline" | "nextCursor">;

/** Either a finished tool result or records to decide on. */
export type OffloadHandlerResult = CallToolResult | OffloadableRecords;

/** Options of {@link withOffload}. */
export interface WithOffloadOptions {
  offloader: Offloader;
  /** Profile of results that name none (default `"memory"`). */
  profile?: BuiltinProfileName | AnyProfile;
  /** Add a `resource_link` to the offloaded file (`atlatl://offload/{name}`). */
  resourceLinks?: boolean;
  /** Resource URI prefix of those links (default atlatl's). */
  names?: Partial<McpNames>;
  /**
   * Also offload `CallToolResult`s a handler returns when they are too large
   * (see `offloadCallToolResult`): `true`, or the options (e.g. the
   * `operation` naming the files, default `result`). Default: passed through.
   */
  callResults?: boolean | Partial<Omit<OffloadCallResultOptions, "resourceLinks" | "names">>;
  /**
   * For a client that offloads on its own disk (an LRO proxy): a whole result
   * set above the threshold comes back inline, every match (up to `maxRecords`)
   * and no cursor, instead of being written here; below it, the usual page.
   * With `maxBytes`, an inline set longer than that (JSON text) is cut to its
   * leading records with `truncated`, `total_count` and a `warning`.
   */
  inlineWholeSet?: boolean | { maxBytes: number };
}

export { OFFLOAD_MIME_TYPE } from "./offload-resource-uri.js";

/** True when a handler's result asks for LRO (has `records`, is not a `CallToolResult`). */
export function isOffloadableRecords(value: unknown): value is OffloadableRecords {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.records) && !Array.isArray(v.content) && typeof v.operation === "string";
}

/**
 * An inline page that says how many matches there are: `total` counts the whole
 * result set (exact: a set small enough to stay inline was read in full).
 */
function pageWithTotal(page: InlinePage, total: number): CallToolResult {
  if (typeof page.inline === "string") return text(page.inline);
  if (page.inline !== undefined) return text(JSON.stringify(page.inline));
  const lines = page.records.map(serializeLine);
  const cursor =
    page.nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(page.nextCursor)}`;
  return text(`{"count":${lines.length},"total":${total},"records":[${lines.join(",")}]${cursor}}`);
}

/** Room left for the envelope and the notice of a cut whole set. */
const CUT_NOTICE_BYTES = 512;

/** A whole set inline (for a proxy), cut to `maxBytes` of JSON text with a notice when longer. */
function wholeSetInline(
  lines: readonly string[],
  total: number,
  maxBytes?: number,
): CallToolResult {
  let kept = lines.length;
  if (maxBytes !== undefined) {
    let bytes = 0;
    for (let i = 0; i < lines.length; i++) {
      bytes += Buffer.byteLength(lines[i] as string) + 1;
      if (bytes > maxBytes - CUT_NOTICE_BYTES) {
        kept = i;
        break;
      }
    }
  }
  const records = `"records":[${(kept === lines.length ? lines : lines.slice(0, kept)).join(",")}]`;
  if (kept === lines.length) return text(`{"count":${kept},"total":${total},${records}}`);
  const warning =
    `cut to the first ${kept} of ${total} records: the whole result set is larger than the ` +
    `${maxBytes}-byte bound on inline results for LRO proxy clients; narrow the query ` +
    "(filters, a lower detail level) to receive every match";
  return text(
    `{"count":${kept},"total":${total},${records},"truncated":true,"total_count":${total},` +
      `"warning":${JSON.stringify(warning)}}`,
  );
}

function text(t: string): CallToolResult {
  return { content: [{ type: "text", text: t }] };
}

function defaultInline(lines: readonly string[], nextCursor: string | null | undefined): string {
  const cursor = nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(nextCursor)}`;
  return `{"count":${lines.length},"records":[${lines.join(",")}]${cursor}}`;
}

/** Cut Markdown to about `tokens` (chars / 4), at a line break when there is one. */
function truncateText(s: string, tokens: number): string {
  const max = Math.max(0, tokens * 4);
  if (s.length <= max) return s;
  const cut = s.lastIndexOf("\n", max);
  return s.slice(0, cut > 0 ? cut : max);
}

/** The profile a result asks for: a profile object, or a built-in one by name. */
export function resolveProfile(
  profile: BuiltinProfileName | AnyProfile | undefined,
): AnyProfile | undefined {
  if (profile === undefined || typeof profile === "object") return profile;
  const found = profileByName(profile);
  if (!found) throw new TypeError(`unknown LRO profile ${JSON.stringify(profile)}`);
  return found;
}

/** Turn an offload decision into the tool result. */
export function offloadOutcomeToResult(
  outcome: OffloadRecordsResult<unknown>,
  result: OffloadableRecords,
  options: Pick<WithOffloadOptions, "resourceLinks" | "names"> & { thresholdTokens: number },
): CallToolResult {
  switch (outcome.kind) {
    case "inline": {
      if (typeof result.inline === "string") return text(result.inline);
      if (result.inline !== undefined) return text(JSON.stringify(result.inline));
      return text(defaultInline(outcome.lines, result.nextCursor));
    }
    case "offloaded": {
      const out = text(JSON.stringify(outcome.response));
      if (options.resourceLinks) {
        out.content.push({
          type: "resource_link",
          uri: offloadResourceUri(outcome.file.path, mcpNames(options.names).resourcePrefix),
          name: basename(outcome.file.path),
          mimeType: OFFLOAD_MIME_TYPE,
          description: `Offloaded ${outcome.file.header.operation} result (${outcome.file.header.count} records, JSONL; line 1 is the header)`,
        });
      }
      return out;
    }
    case "truncated": {
      if (typeof result.inline === "string") {
        const budget = options.thresholdTokens - reserveFor(outcome.warning);
        return text(`${truncateText(result.inline, budget)}\n\n> Warning: ${outcome.warning}`);
      }
      return text(
        `{"count":${outcome.lines.length},"records":[${outcome.lines.join(",")}],"truncated":true,` +
          `"total_count":${outcome.total},"warning":${JSON.stringify(outcome.warning)}}`,
      );
    }
  }
}

/** What {@link withOffload} returns: wraps a handler into a tool callback. */
export type OffloadMiddleware = <A extends unknown[]>(
  next: (...args: A) => OffloadHandlerResult | Promise<OffloadHandlerResult>,
) => (...args: A) => Promise<CallToolResult>;

/**
 * Middleware: `withOffload({ offloader })(handler)` is a tool callback for
 * `McpServer.registerTool`. The handler may return a `CallToolResult` (passed
 * through) or {@link OffloadableRecords} (estimated, then inline, offloaded or
 * truncated). Works for callbacks with and without arguments.
 */
export function withOffload(options: WithOffloadOptions): OffloadMiddleware {
  const { offloader } = options;
  return <A extends unknown[]>(
    next: (...args: A) => OffloadHandlerResult | Promise<OffloadHandlerResult>,
  ) =>
    async (...args: A): Promise<CallToolResult> => {
      const result = await next(...args);
      if (!isOffloadableRecords(result)) {
        const call = options.callResults;
        if (!call) return result;
        return offloadCallToolResult(offloader, result, {
          operation: "result",
          ...(call === true ? {} : call),
          resourceLinks: options.resourceLinks ?? false,
          ...(options.names ? { names: options.names } : {}),
        });
      }
      const resolved = resolveProfile(result.profile ?? options.profile);
      const profile = resolved ? { profile: resolved } : {};
      const shape = {
        resourceLinks: options.resourceLinks ?? false,
        names: options.names,
        thresholdTokens: offloader.config.thresholdTokens,
      };
      if (result.whole && options.inlineWholeSet && offloader.config.enabled) {
        const outcome = await offloader.offloadRecords<unknown>({
          operation: result.operation,
          query: result.query ?? null,
          detail: result.detail,
          source: result.whole.source,
          thresholdTokens: Number.POSITIVE_INFINITY, // measured, never written here
          ...profile,
        });
        const total = outcome.total ?? (outcome.kind === "inline" ? outcome.lines.length : 0);
        if (
          outcome.kind === "inline" &&
          outcome.estimatedTokens > offloader.config.thresholdTokens
        ) {
          const bound = options.inlineWholeSet;
          return wholeSetInline(outcome.lines, total, bound === true ? undefined : bound.maxBytes);
        }
        return pageWithTotal(await result.whole.page(), total);
      }
      if (result.whole && offloader.config.enabled) {
        const outcome = await offloader.offloadRecords<unknown>({
          operation: result.operation,
          query: result.query ?? null,
          detail: result.detail,
          source: result.whole.source,
          ...profile,
        });
        if (outcome.kind === "offloaded") return offloadOutcomeToResult(outcome, result, shape);
        if (outcome.kind === "truncated") {
          // The write failed: the page's own inline text (inject's Markdown) is cut to fit.
          const page = { ...result, ...(await result.whole.page()) };
          return offloadOutcomeToResult(outcome, page, shape);
        }
        return pageWithTotal(await result.whole.page(), outcome.total ?? outcome.lines.length);
      }
      // LRO off: pages only, as the specification says (no whole-set read to count).
      const page = result.whole ? { ...result, ...(await result.whole.page()) } : result;
      const outcome = await offloader.offloadRecords<unknown>({
        operation: page.operation,
        query: page.query ?? null,
        detail: page.detail,
        records: page.records,
        scores: page.scores,
        ...profile,
      });
      return offloadOutcomeToResult(outcome, page, shape);
    };
}
