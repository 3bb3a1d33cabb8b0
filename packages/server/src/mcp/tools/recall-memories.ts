import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolContext } from "../tool-context.js";
import { pagedReadShape, rankedRecords } from "./ranked-result.js";
import { filterShape, pickFilter } from "./schemas.js";

/** `recall_memories`: ranked recall; large result sets are offloaded to JSONL. */
export function registerRecallMemories(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "recall_memories",
    {
      title: "Recall memories",
      description:
        "Recall memories relevant to a query, ranked by a score in [0, 1] that combines text relevance, " +
        "confidence and recency. Results above the offload threshold are written to a JSONL file and " +
        "a descriptor (file_path, summary, schema, jq recipes) comes back instead; smaller results are " +
        "inline with a next_cursor when more exist. Default detail: light (no content).",
      inputSchema: {
        query: z
          .string()
          .max(2000)
          .describe("What to recall. Empty recalls everything, ranked by confidence and recency."),
        ...filterShape,
        ...pagedReadShape(20),
      },
      annotations: { readOnlyHint: true },
    },
    ctx.offload(async (args) => {
      const result = await ctx.services.recall.recall({
        query: args.query,
        filter: pickFilter(args),
        limit: args.limit,
        cursor: args.cursor,
      });
      return rankedRecords("recall", args.query, args.detail, result);
    }),
  );
}
