import type { DetailLevel } from "@atlatl/lro";
import type { OffloadableRecords } from "@atlatl/lro/mcp";
import { toRecord } from "../../model/detail.js";
import type { Memory } from "../../model/memory.js";
import { cursorArg, detailArg, limitArg } from "./schemas.js";

/** Input fragments every ranked read tool (recall, search) shares. */
export const pagedReadShape = (defaultLimit: number) => ({
  limit: limitArg
    .default(defaultLimit)
    .describe(`Maximum hits, 1 to 1000 (default ${defaultLimit}).`),
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
