import { z } from "zod";
import { READ_LIMITS } from "../../model/limits.js";
import type { ToolContext } from "../tool-context.js";
import { pagedReadShape, rankedRecords } from "./ranked-result.js";
import { readTool } from "./read-tool.js";
import { filterShape, pickFilter } from "./schemas.js";

/** `search_memories`: full-text search with the store's query syntax and raw relevance. */
export function registerSearchMemories(ctx: ToolContext): void {
  const syntax = ctx.services.search.syntax;
  const language = syntax.native
    ? `${syntax.summary} `
    : "Words (any may match, the last also as a prefix). ";
  ctx.registerTool(
    "search_memories",
    {
      title: "Search memories",
      description:
        `Full-text search over title, content and tags (engine: ${syntax.engine}). Query syntax: ${language}` +
        "Hits carry raw relevance scores (higher is better, comparable within one query). " +
        "When all hits together are above the offload threshold, every hit is written to a JSONL file " +
        "and a descriptor comes back; otherwise a page of `limit` hits is inline, with `total` and a " +
        "next_cursor when more exist. " +
        "Default detail: light.",
      inputSchema: {
        query: z
          .string()
          .min(1)
          .max(READ_LIMITS.queryChars)
          .describe(
            syntax.native
              ? `Words to search for, with optional operators, e.g. \`${syntax.example}\`.`
              : "Words to search for.",
          ),
        ...filterShape,
        ...pagedReadShape(20),
      },
      annotations: { readOnlyHint: true },
    },
    readTool(ctx, (args, call) => {
      const input = { query: args.query, filter: pickFilter(args), limit: args.limit };
      // One read: every match for LRO's judgement, and the inline first page from it.
      const read = ctx.services.search.read(input, call);
      return {
        operation: "search",
        query: args.query,
        whole: () => read.stream(),
        page: async () => {
          const page =
            args.cursor === undefined
              ? await read.firstPage(args.limit)
              : await ctx.services.search.search({ ...input, cursor: args.cursor });
          return rankedRecords("search", args.query, args.detail, page);
        },
      };
    }),
  );
}
