import { z } from "zod";
import { toRecord } from "../../model/detail.js";
import { BATCH_LIMITS } from "../../model/limits.js";
import { MEMORY_STATUSES } from "../../model/memory.js";
import type { ToolContext } from "../tool-context.js";
import { jsonResult, toolError } from "./json-result.js";
import {
  confidenceArg,
  contentArg,
  idArg,
  memoryTypeArg,
  namespaceArg,
  tagsArg,
  titleArg,
} from "./schemas.js";

const notFound = (id: string) =>
  toolError({
    code: "NOT_FOUND",
    field: "id",
    message: `No memory with id "${id}". Use recall_memories or list_memories to find ids.`,
  });

/** The arguments of `capture_memory`, and of each item of `capture_memories`. */
const captureShape = {
  content: contentArg.describe("Markdown content."),
  title: titleArg.optional(),
  namespace: namespaceArg.optional().describe("e.g. _semantic/decisions, _episodic/sessions."),
  memory_type: memoryTypeArg.optional(),
  tags: tagsArg.optional(),
  confidence: confidenceArg.optional().describe("0 to 1."),
};

/** `capture_memory`, `capture_memories`, `get_memory`, `update_memory`, `forget_memory`. */
export function registerMemoryCrud(ctx: ToolContext): void {
  const { memories } = ctx.services;

  ctx.registerTool(
    "capture_memory",
    {
      title: "Capture a memory",
      description:
        "Store a new memory. Only content is required; title defaults to its first heading (else its " +
        "first line), namespace to _{memory_type}/general, memory_type to semantic.",
      inputSchema: captureShape,
    },
    async (args) => jsonResult(toRecord(await memories.capture(args), "full")),
  );

  ctx.registerTool(
    "capture_memories",
    {
      title: "Capture many memories",
      description:
        `Store up to ${BATCH_LIMITS.memories} new memories (at most ${BATCH_LIMITS.totalBytes} bytes of JSON) ` +
        "in one call, each item shaped and defaulted like capture_memory. All or nothing: an invalid " +
        "item fails the call with INVALID_ARGUMENT naming its index, and nothing is stored. " +
        "Returns the count and the new ids, in the order given.",
      inputSchema: {
        memories: z.array(z.strictObject(captureShape)).min(1).max(BATCH_LIMITS.memories),
      },
    },
    async (args) => {
      const stored = await memories.captureMany(args.memories);
      return jsonResult({ count: stored.length, ids: stored.map((m) => m.id) });
    },
  );

  ctx.registerTool(
    "get_memory",
    {
      title: "Get a memory",
      description: "Fetch one memory by id, at full detail.",
      inputSchema: { id: idArg },
      annotations: { readOnlyHint: true },
    },
    async ({ id }) => {
      const memory = await memories.get(id);
      return memory ? jsonResult(toRecord(memory, "full")) : notFound(id);
    },
  );

  ctx.registerTool(
    "update_memory",
    {
      title: "Update a memory",
      description: "Change some fields of a memory; the others stay. Bumps `modified`.",
      inputSchema: {
        id: idArg,
        content: contentArg.optional(),
        title: titleArg.optional(),
        namespace: namespaceArg.optional(),
        memory_type: memoryTypeArg.optional(),
        tags: tagsArg.optional(),
        confidence: confidenceArg.optional(),
        status: z.enum(MEMORY_STATUSES).optional(),
      },
    },
    async ({ id, ...patch }) => {
      const memory = await memories.update(id, patch);
      return memory ? jsonResult(toRecord(memory, "full")) : notFound(id);
    },
  );

  ctx.registerTool(
    "forget_memory",
    {
      title: "Forget a memory",
      description: "Delete a memory permanently.",
      inputSchema: { id: idArg },
      annotations: { destructiveHint: true },
    },
    async ({ id }) => ((await memories.forget(id)) ? jsonResult({ forgotten: id }) : notFound(id)),
  );
}
