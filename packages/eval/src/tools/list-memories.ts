/**
 * `list_memories`: the memory store's list operation. Under an offload
 * delivery it returns the (ablated) descriptor of the whole corpus, written to
 * the sample's directory on first call; under inline and summary deliveries it
 * returns one page (`page` from 1) of full records or of id + title.
 */
import type { Delivery } from "../conditions/conditions.js";
import { CORPUS_LINE_SCHEMA } from "../corpus/line-schema.js";
import type { MemoryRecord } from "../corpus/records.js";
import { ablateDescriptor } from "../strategies/ablate.js";
import { type OffloadedCorpus, offloadCorpus } from "../strategies/lro-descriptor.js";
import { appendixBRecipes } from "../strategies/recipes.js";
import { fail, ok, type Tool } from "./types.js";

export interface ListMemoriesState {
  offloaded?: OffloadedCorpus;
  /** Milliseconds the offload write took (the paper's file-write overhead). */
  writeMs?: number;
}

/**
 * The descriptor as the agent receives it: compact JSON, as the engine's MCP
 * helpers send it (`offload-call-result`), so Table 1's D is what a memory
 * server would cost.
 */
export const descriptorText = (shown: object) => JSON.stringify(shown);

const PAGED_PARAMS = {
  type: "object",
  properties: { page: { type: "integer", minimum: 1, description: "Page number, from 1" } },
};

export function listMemoriesTool(
  records: readonly MemoryRecord[],
  delivery: Delivery,
  dir: string,
  state: ListMemoriesState,
): Tool {
  if (delivery.kind === "offload") {
    return {
      spec: {
        name: "list_memories",
        description: "List every memory in the store.",
        parameters: { type: "object", properties: {} },
      },
      async run() {
        if (!state.offloaded) {
          const t0 = performance.now();
          state.offloaded = await offloadCorpus(records, dir, {
            native: delivery.native ?? false,
            lineSchema: CORPUS_LINE_SCHEMA,
          });
          state.writeMs = performance.now() - t0;
        }
        const { descriptor, filePath } = state.offloaded;
        const library =
          delivery.recipes === "appendix-b"
            ? { ...descriptor, jq_recipes: appendixBRecipes(filePath) }
            : descriptor;
        const shown = ablateDescriptor(library, delivery.fields);
        return ok(descriptorText(shown));
      },
    };
  }
  const { pageSize } = delivery;
  const totalPages = Math.max(1, Math.ceil(records.length / pageSize));
  const what = delivery.kind === "summary" ? "id and title of each memory" : "full memory records";
  return {
    spec: {
      name: "list_memories",
      description: `List the memories in the store, ${pageSize} a page (${what}).`,
      parameters: PAGED_PARAMS,
    },
    async run(args) {
      const page = args.page === undefined ? 1 : args.page;
      if (typeof page !== "number" || !Number.isInteger(page) || page < 1 || page > totalPages) {
        return fail(
          "BAD_ARGUMENTS",
          `page must be an integer from 1 to ${totalPages}; got ${JSON.stringify(page)}`,
        );
      }
      const slice = records.slice((page - 1) * pageSize, page * pageSize);
      const items =
        delivery.kind === "summary" ? slice.map((r) => ({ id: r.id, title: r.title })) : slice;
      return ok(
        JSON.stringify({
          page,
          page_size: pageSize,
          total_pages: totalPages,
          total_records: records.length,
          records: items,
        }),
      );
    },
  };
}
