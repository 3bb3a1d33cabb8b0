import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { toRecord } from "../../model/detail.js";
import type { ToolContext } from "../tool-context.js";
import { cursorArg, detailArg, filterShape, limitArg, pickFilter } from "./schemas.js";

/** `search_memories`: full-text search with the store's query syntax and raw relevance. */
export function registerSearchMemories(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "search_memories",
    {
      title: "Search memories",
      description:
        "Full-text search over title, content and tags using SQLite FTS5 syntax " +
        '(words, "exact phrases", prefix*, AND / OR / NOT, NEAR). Hits carry raw relevance scores. ' +
        "Large result sets are offloaded to a JSONL file with a descriptor; small ones are inline. " +
        "Default detail: light.",
      inputSchema: {
        query: z
          .string()
          .min(1)
          .max(2000)
          .describe("FTS5 query, e.g. `cache AND (redis OR memcached)`."),
        ...filterShape,
        limit: limitArg.default(20).describe("Maximum hits, 1 to 1000 (default 20)."),
        detail: detailArg.default("light").describe("light (no content), medium or full."),
        cursor: cursorArg.optional().describe("next_cursor of a previous inline page."),
      },
      annotations: { readOnlyHint: true },
    },
    ctx.offload(async (args) => {
      const { hits, next_cursor } = await ctx.services.search.search({
        query: args.query,
        filter: pickFilter(args),
        limit: args.limit,
        cursor: args.cursor,
      });
      return {
        operation: "search",
        query: args.query,
        detail: args.detail,
        records: hits.map((h) => toRecord(h.memory, args.detail)),
        scores: hits.map((h) => h.score),
        nextCursor: next_cursor,
      };
    }),
  );
}
