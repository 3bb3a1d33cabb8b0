/**
 * The one builder of the read tools' handlers (recall, search, list, inject):
 * what every call hands its read is made here, once, so no read tool can drop
 * it: the fields its detail level needs, progress (for a client that sent a
 * progress token, or a task) and the request's abort signal, which stops the
 * store read so a cancelled call writes no file. And here, once, LRO's
 * sequencing: an initial request hands the whole result set to the middleware
 * with its first page; a cursor continues a walk that request began, so it is
 * that page alone, inline (specification, "Relationship to Pagination":
 * threshold evaluation occurs on the initial request only).
 */
import type { DetailLevel } from "@atlatl/lro";
import type { InlinePage, OffloadableRecords } from "@atlatl/lro/mcp";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ReadOptions } from "../../services/read-watch.js";
import type { Fielded, ReadFields } from "../../store/store.js";
import type { ToolCallContext } from "../client-facts.js";
import { readProgress } from "../progress.js";
import type { ToolContext } from "../tool-context.js";
import { asRecords, fieldsFor } from "./ranked-result.js";

/** The arguments every read tool has (inject has no cursor). */
interface ReadArgs {
  detail: DetailLevel;
  cursor?: string | undefined;
}

/** What one call hands its read: the fields for its detail, its progress and its abort signal. */
type ReadCall = ReadOptions<"light" | "full"> & { fields: "light" | "full" };

/** What a read tool makes of one call. */
interface ReadPlan {
  operation: string;
  query: string | null;
  /** Every match in the tool's order, read with the call's options (an initial request only). */
  whole(): AsyncIterable<Fielded<ReadFields> | { memory: Fielded<ReadFields>; score: number }>;
  /** The inline page: the first one, or the cursor's. */
  page(): Promise<InlinePage>;
}

/** A read tool's handler from its `plan` (see the module comment), LRO applied. */
export function readTool<A extends ReadArgs>(
  ctx: ToolContext,
  plan: (args: A, call: ReadCall) => ReadPlan,
): (args: A, extra: ToolCallContext) => Promise<CallToolResult> {
  return ctx.offload(async (args: A, extra: ToolCallContext): Promise<OffloadableRecords> => {
    const call: ReadCall = {
      fields: fieldsFor(args.detail),
      onProgress: readProgress(extra),
      signal: extra.mcpReq.signal,
    };
    const read = plan(args, call);
    const head = { operation: read.operation, query: read.query, detail: args.detail };
    if (args.cursor !== undefined) {
      const { leadingOfSource: _whole, ...page } = await read.page();
      return { ...head, ...page, continuation: true };
    }
    const source = asRecords(read.whole(), args.detail);
    return { ...head, records: [], whole: { source, page: () => read.page() } };
  });
}
