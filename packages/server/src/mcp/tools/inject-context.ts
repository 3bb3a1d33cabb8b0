import { z } from "zod";
import { CONTEXT_BUDGET, READ_LIMITS } from "../../model/limits.js";
import type { Memory } from "../../model/memory.js";
import type { PositionedHit, WholeRecall } from "../../services/recall-service.js";
import type { ToolContext } from "../tool-context.js";
import { asRecords, firstOf, WholeHead, wholeResult } from "./ranked-result.js";
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
    ctx.offload(async (args) => {
      const input = { query: args.query, filter: pickFilter(args) };
      const recall = ctx.services.recall;
      const whole = new WholeHead<PositionedHit<Memory>>(args.limit + 1);
      let asOf = 0;
      return wholeResult(
        { operation: "inject", query: args.query, detail: args.detail },
        asRecords((fields) => {
          const read = recall.all(input, fields);
          asOf = read.asOf;
          return whole.tap(firstOf(read as WholeRecall<Memory>, args.limit));
        }, args.detail),
        undefined,
        async () => {
          const paged = { ...input, limit: args.limit };
          // Formatting needs content: a light whole-set read cannot stand in for the recall.
          // The read stops at `limit`: a head that long is the whole pre-budget set.
          const read = whole.complete || whole.head.length >= args.limit;
          const { hits } =
            args.detail !== "light" && read
              ? recall.firstPage(paged, { head: whole.head, horizon: whole.horizon, asOf })
              : await recall.recall(paged);
          return {
            records: [],
            inline: ctx.services.context.format(hits, args.budget_tokens).context,
          };
        },
      );
    }),
  );
}
