import type { DetailLevel } from "@atlatl/lro";
import type { InlinePage, OffloadableRecords } from "@atlatl/lro/mcp";
import type { SourceRecord } from "@atlatl/lro/node";
import { type MemoryRecord, toRecord } from "../../model/detail.js";
import type { LightRecord, Memory } from "../../model/memory.js";
import type { Fielded, ReadFields } from "../../store/store.js";
import { cursorArg, detailArg, limitArg } from "./schemas.js";

/** Input fragments every ranked read tool (recall, search) shares. */
export const pagedReadShape = (defaultLimit: number) => ({
  limit: limitArg
    .default(defaultLimit)
    .describe(
      `Page size of inline results, 1 to 1000 (default ${defaultLimit}). An offloaded result holds every match.`,
    ),
  detail: detailArg.default("light").describe("light (no content), medium or full."),
  cursor: cursorArg
    .optional()
    .describe("next_cursor of a previous inline page: the next page, always inline."),
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
  result: {
    hits: readonly { memory: LightRecord; score: number }[];
    next_cursor?: string | null;
    /** The hits are the whole-set read's first ones (`RankedRead.firstPage`). */
    fromStream?: boolean;
  },
): OffloadableRecords & InlinePage {
  return {
    operation,
    query,
    detail,
    // Light memories only come from a light read, made for light detail (see asRecords).
    records: result.hits.map((h) => toRecord(h.memory as Memory, detail)),
    scores: result.hits.map((h) => h.score),
    ...(result.next_cursor !== undefined ? { nextCursor: result.next_cursor } : {}),
    ...(result.fromStream ? { leadingOfSource: true } : {}),
  };
}

/** One item of a whole-set read: a memory, or a scored hit. */
type WholeItem<M extends LightRecord> = M | { memory: M; score: number };

/**
 * The fields a whole-set read at `detail` needs: at light detail only the
 * light fields are read from the store (content and enrichment would be read
 * and decoded only to be dropped).
 */
export function fieldsFor(detail: DetailLevel): "light" | "full" {
  return detail === "light" ? "light" : "full";
}

/**
 * Every match of a read made with `fieldsFor(detail)`, streamed as records at
 * `detail`. A light read's memories are light records already (the store
 * decodes its light columns in light-record order): they are not copied again.
 */
export function asRecords(
  items: AsyncIterable<WholeItem<Fielded<ReadFields>>>,
  detail: DetailLevel,
): AsyncIterable<SourceRecord> {
  if (detail === "light") return projected(items, (light) => light);
  return projected(items as AsyncIterable<WholeItem<Memory>>, (memory) => toRecord(memory, detail));
}

async function* projected<M extends LightRecord>(
  items: AsyncIterable<WholeItem<M>>,
  project: (memory: M) => MemoryRecord,
): AsyncGenerator<SourceRecord> {
  for await (const item of items) {
    if ("memory" in item) yield { record: project(item.memory), score: item.score };
    else yield { record: project(item) };
  }
}
