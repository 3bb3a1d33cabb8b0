import { z } from "zod";
import { READ_LIMITS } from "../../model/limits.js";
import { readProgress } from "../progress.js";
import type { ToolContext } from "../tool-context.js";
import {
  asRecords,
  fieldsFor,
  pagedReadShape,
  rankedRecords,
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
    ctx.offload(async (args, extra) => {
      const input = { query: args.query, filter: pickFilter(args), limit: args.limit };
      const fields = fieldsFor(args.detail);
      // One read: every match for LRO's judgement, and the inline first page from it.
      const read = ctx.services.recall.read(input, {
        fields,
        onProgress: readProgress(extra),
        signal: extra.mcpReq.signal,
      });
      return wholeResult(
        { operation: "recall", query: args.query, detail: args.detail },
        asRecords(read.stream(), args.detail),
        args.cursor,
        async () => {
          const page =
            args.cursor === undefined
              ? await read.firstPage(args.limit)
              : await ctx.services.recall.recall({ ...input, cursor: args.cursor });
          return rankedRecords("recall", args.query, args.detail, page);
        },
      );
    }),
  );
}
