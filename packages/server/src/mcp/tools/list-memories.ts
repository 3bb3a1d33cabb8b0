import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { toRecord } from "../../model/detail.js";
import type { ToolContext } from "../tool-context.js";
import { cursorArg, detailArg, filterShape, limitArg, pickFilter } from "./schemas.js";

/** `list_memories`: filtered, sorted listing with opaque keyset cursors. */
export function registerListMemories(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "list_memories",
    {
      title: "List memories",
      description:
        "List memories by filter, sorted by created, modified or title. Inline pages carry a " +
        "next_cursor while more exist; pass it back to continue. A page above the offload threshold " +
        "is written to a JSONL file and a descriptor comes back instead. Default detail: light.",
      inputSchema: {
        ...filterShape,
        sort: z.enum(["created", "modified", "title"]).default("created"),
        order: z.enum(["asc", "desc"]).default("desc"),
        limit: limitArg.default(50).describe("Page size, 1 to 1000 (default 50)."),
        detail: detailArg.default("light").describe("light (no content), medium or full."),
        cursor: cursorArg.optional().describe("next_cursor of the previous page."),
      },
      annotations: { readOnlyHint: true },
    },
    ctx.offload(async (args) => {
      const { memories, next_cursor } = await ctx.services.list.list({
        filter: pickFilter(args),
        sort: args.sort,
        order: args.order,
        limit: args.limit,
        cursor: args.cursor,
      });
      return {
        operation: "list",
        query: null,
        detail: args.detail,
        records: memories.map((m) => toRecord(m, args.detail)),
        nextCursor: next_cursor,
      };
    }),
  );
}
