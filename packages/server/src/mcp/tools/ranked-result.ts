import type { DetailLevel } from "@atlatl/lro";
import type { InlinePage, OffloadableRecords } from "@atlatl/lro/mcp";
import type { RecordSource, SourceRecord } from "@atlatl/lro/node";
import { toRecord } from "../../model/detail.js";
import type { Memory } from "../../model/memory.js";
import { cursorArg, detailArg, limitArg } from "./schemas.js";

/** Input fragments every ranked read tool (recall, search) shares. */
export const pagedReadShape = (defaultLimit: number) => ({
  limit: limitArg
    .default(defaultLimit)
    .describe(
      `Page size of inline results, 1 to 1000 (default ${defaultLimit}). An offloaded result holds every match.`,
    ),
  detail: detailArg.default("light").describe("light (no content), medium or full."),
  cursor: cursorArg.optional().describe("next_cursor of a previous inline page."),
});

/**
 * Scored hits as records for the LRO middleware: one record per hit at the
 * requested detail, the scores alongside (never inside the records: the
 * specification keeps `.score` out of the JSONL lines).
 */
export function rankedRecords(
  operation: string,
  query: string,
  detail: DetailLevel,
  result: { hits: readonly { memory: Memory; score: number }[]; next_cursor?: string | null },
): OffloadableRecords {
  return {
    operation,
    query,
    detail,
    records: result.hits.map((h) => toRecord(h.memory, detail)),
    scores: result.hits.map((h) => h.score),
    ...(result.next_cursor !== undefined ? { nextCursor: result.next_cursor } : {}),
  };
}

/** Memories (or scored hits) streamed as records at `detail`, for LRO's whole-set judgement. */
export async function* asRecords(
  items: AsyncIterable<Memory | { memory: Memory; score: number }>,
  detail: DetailLevel,
): AsyncGenerator<SourceRecord> {
  for await (const item of items) {
    if ("memory" in item) yield { record: toRecord(item.memory, detail), score: item.score };
    else yield { record: toRecord(item, detail) };
  }
}

/**
 * A paged read for the LRO middleware: every match (`source`) is judged first;
 * `readPage` gives the inline page and is called only when the set stays
 * inline. With a cursor the page is read at once, so a bad cursor fails as an
 * error rather than being ignored by an offload.
 */
export async function wholeResult(
  head: Pick<OffloadableRecords, "operation" | "query" | "detail">,
  source: RecordSource,
  cursor: string | undefined,
  readPage: () => Promise<InlinePage>,
): Promise<OffloadableRecords> {
  const early = cursor !== undefined ? await readPage() : undefined;
  return { ...head, records: [], whole: { source, page: async () => early ?? readPage() } };
}
