import { z } from "zod";
import { READ_LIMITS } from "../../model/limits.js";
import type { LightRecord } from "../../model/memory.js";
import type { PositionedHit } from "../../services/recall-service.js";
import type { ToolContext } from "../tool-context.js";
import {
  asRecords,
  pagedReadShape,
  rankedRecords,
  WholeHead,
  wholeResult,
} from "./ranked-result.js";
import { filterShape, pickFilter } from "./schemas.js";

/** `recall_memories`: ranked recall; large result sets are offloaded to JSONL. */
export function registerRecallMemories(ctx: ToolContext): void {
  ctx.registerTool(
    "recall_memories",
    {
      title: "Recall memories",
      description:
        "Recall memories relevant to a query, ranked by a score in [0, 1] that combines text relevance, " +
        "confidence and recency. When all matches together are above the offload threshold, every " +
        "match is written to a JSONL file and a descriptor (file_path, summary, schema, jq recipes) " +
        "comes back instead; otherwise a page of `limit` hits is inline, with `total` (all matches) " +
        "and a next_cursor when more exist. Default detail: light (no content).",
      inputSchema: {
        query: z
          .string()
          .max(READ_LIMITS.queryChars)
          .default("")
          .describe(
            "What to recall. Empty or absent recalls everything, ranked by confidence and recency.",
          ),
        ...filterShape,
        ...pagedReadShape(20),
      },
      annotations: { readOnlyHint: true },
    },
    ctx.offload(async (args) => {
      const input = { query: args.query, filter: pickFilter(args) };
      const recall = ctx.services.recall;
      // The first page is the whole read's head: no second query when the set stays inline.
      const whole = new WholeHead<PositionedHit<LightRecord>>(args.limit + 1);
      let asOf = 0;
      return wholeResult(
        { operation: "recall", query: args.query, detail: args.detail },
        asRecords((fields) => {
          const read = recall.all(input, fields);
          asOf = read.asOf;
          return whole.tap(read);
        }, args.detail),
        args.cursor,
        async () => {
          const paged = { ...input, limit: args.limit };
          const page =
            args.cursor === undefined && whole.complete
              ? recall.firstPage(paged, { head: whole.head, horizon: whole.horizon, asOf })
              : await recall.recall({ ...paged, cursor: args.cursor });
          return rankedRecords("recall", args.query, args.detail, page);
        },
      );
    }),
  );
}
