import { z } from "zod";
import { CONTEXT_BUDGET, READ_LIMITS } from "../../model/limits.js";
import type { RecallHit } from "../../services/recall-service.js";
import type { ToolContext } from "../tool-context.js";
import { readTool } from "./read-tool.js";
import { detailArg, filterShape, limitArg, pickFilter } from "./schemas.js";

/**
 * `inject_context`: recall, then format a Markdown context block within a token
 * budget. LRO judges the pre-budget result set (spec, "Integration with
 * inject_context"): the top `limit` hits (inject has no cursor, so `limit` is
 * not a page size here). Above the threshold that set is written and
 * described and no string is formatted; below it, the same hits are
 * formatted within the budget.
 */
export function registerInjectContext(ctx: ToolContext): void {
  ctx.registerTool(
    "inject_context",
    {
      title: "Inject context",
      description:
        "Recall memories for a query and return them as a Markdown context block that fits " +
        "budget_tokens (default 2000). When the top `limit` matches before budgeting are above the " +
        "offload threshold, they are written to a JSONL file and a descriptor comes back instead. " +
        "Default detail: medium.",
      inputSchema: {
        query: z.string().max(READ_LIMITS.queryChars).describe("What the context is for."),
        budget_tokens: z
          .number()
          .int()
          .min(CONTEXT_BUDGET.min)
          .max(CONTEXT_BUDGET.max)
          .default(CONTEXT_BUDGET.default),
        ...filterShape,
        limit: limitArg
          .default(100)
          .describe("Memories recalled before budgeting, 1 to 1000 (default 100)."),
        detail: detailArg
          .default("medium")
          .describe("Detail of offloaded records: light, medium or full."),
      },
      annotations: { readOnlyHint: true },
    },
    readTool(ctx, (args, call) => {
      const input = { query: args.query, filter: pickFilter(args), limit: args.limit };
      const read = ctx.services.recall.read(input, call);
      return {
        operation: "inject",
        query: args.query,
        // The pre-budget set is the top `limit` hits (inject has no cursor, so
        // `limit` is no page size here): that set is judged, written and described.
        whole: () => read.stream(args.limit),
        page: async () => {
          // Formatting needs content: a light read cannot stand in for the recall.
          const { hits } =
            call.fields === "light"
              ? await ctx.services.recall.recall(input)
              : ((await read.firstPage(args.limit)) as { hits: RecallHit[] });
          return {
            records: [],
            inline: (await ctx.services.context.format(hits, args.budget_tokens)).context,
          };
        },
      };
    }),
  );
}
