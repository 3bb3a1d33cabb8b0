import { z } from "zod";
import { READ_LIMITS } from "../../model/limits.js";
import type { LightRecord } from "../../model/memory.js";
import type { PositionedSearchHit } from "../../services/search-service.js";
import type { ToolContext } from "../tool-context.js";
import {
  asRecords,
  pagedReadShape,
  rankedRecords,
  WholeHead,
  wholeResult,
} from "./ranked-result.js";
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
              ? `A ${syntax.name} query, e.g. \`${syntax.example}\`.`
              : "Words to search for.",
          ),
        ...filterShape,
        ...pagedReadShape(20),
      },
      annotations: { readOnlyHint: true },
    },
    ctx.offload(async (args) => {
      const input = { query: args.query, filter: pickFilter(args) };
      const search = ctx.services.search;
      // The first page is the whole read's head: no second query when the set stays inline.
      const whole = new WholeHead<PositionedSearchHit<LightRecord>>(args.limit + 1);
      return wholeResult(
        { operation: "search", query: args.query, detail: args.detail },
        asRecords((fields) => whole.tap(search.all(input, fields)), args.detail),
        args.cursor,
        async () => {
          const paged = { ...input, limit: args.limit };
          const page =
            args.cursor === undefined && whole.complete
              ? search.firstPage(paged, { head: whole.head, horizon: whole.horizon })
              : await search.search({ ...paged, cursor: args.cursor });
          return rankedRecords("search", args.query, args.detail, page);
        },
      );
    }),
  );
}
