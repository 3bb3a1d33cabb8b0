import { z } from "zod";
import { READ_LIMITS } from "../../model/limits.js";
import type { ToolContext } from "../tool-context.js";
import { pagedReadShape, rankedRecords } from "./ranked-result.js";
import { readTool } from "./read-tool.js";
import { filterShape, pickFilter } from "./schemas.js";

/** `recall_memories`: ranked recall; large result sets are offloaded to JSONL. */
export function registerRecallMemories(ctx: ToolContext): void {
  ctx.registerTool(
    "recall_memories",
    {
      title: "Recall memories",
      description:
        // Meaning only when recall is hybrid: the services are known when the tool list is built.
        `Recall memories relevant to a query${ctx.services.recall.byMeaning ? " by words or meaning" : ""}, ` +
        "ranked by a score in [0, 1] that combines text relevance, " +
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
    readTool(ctx, (args, call) => {
      const input = { query: args.query, filter: pickFilter(args), limit: args.limit };
      // One read: every match for LRO's judgement, and the inline first page from it.
      const read = ctx.services.recall.read(input, call);
      return {
        operation: "recall",
        query: args.query,
        whole: () => read.stream(),
        page: async () => {
          const page =
            args.cursor === undefined
              ? await read.firstPage(args.limit)
              : await ctx.services.recall.recall({ ...input, cursor: args.cursor });
          return rankedRecords("recall", args.query, args.detail, page);
        },
      };
    }),
  );
}
