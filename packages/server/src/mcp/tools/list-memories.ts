import { z } from "zod";
import { toRecord } from "../../model/detail.js";
import type { ToolContext } from "../tool-context.js";
import { readTool } from "./read-tool.js";
import { cursorArg, detailArg, filterShape, limitArg, pickFilter } from "./schemas.js";

/** `list_memories`: filtered, sorted listing with opaque keyset cursors. */
export function registerListMemories(ctx: ToolContext): void {
  ctx.registerTool(
    "list_memories",
    {
      title: "List memories",
      description:
        "List memories by filter, sorted by created, modified or title. When all matching memories " +
        "together are above the offload threshold, every one is written to a JSONL file (in the sort " +
        "order) and a descriptor comes back instead. Otherwise a page of `limit` is inline with " +
        "`total` (all matches) and a next_cursor while more exist; pass it back to continue. " +
        "Default detail: light.",
      inputSchema: {
        ...filterShape,
        sort: z.enum(["created", "modified", "title"]).default("created"),
        order: z.enum(["asc", "desc"]).default("desc"),
        limit: limitArg
          .default(50)
          .describe(
            "Page size of inline results, 1 to 1000 (default 50). An offloaded result holds every match.",
          ),
        detail: detailArg.default("light").describe("light (no content), medium or full."),
        cursor: cursorArg
          .optional()
          .describe("next_cursor of the previous page: the next page, always inline."),
      },
      annotations: { readOnlyHint: true },
    },
    readTool(ctx, (args, call) => {
      const input = { filter: pickFilter(args), sort: args.sort, order: args.order };
      return {
        operation: "list",
        query: null,
        whole: () => ctx.services.list.all(input, call),
        page: async () => {
          const { memories, next_cursor } = await ctx.services.list.list({
            ...input,
            limit: args.limit,
            cursor: args.cursor,
          });
          return {
            records: memories.map((m) => toRecord(m, args.detail)),
            nextCursor: next_cursor,
          };
        },
      };
    }),
  );
}
