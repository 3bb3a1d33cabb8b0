import { z } from "zod";
import { toRecord } from "../../model/detail.js";
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

/** `capture_memory`, `get_memory`, `update_memory`, `forget_memory`. */
export function registerMemoryCrud(ctx: ToolContext): void {
  const { memories } = ctx.services;

  ctx.registerTool(
    "capture_memory",
    {
      title: "Capture a memory",
      description:
        "Store a new memory. Only content is required; title defaults to its first heading (else its " +
        "first line), namespace to _{memory_type}/general, memory_type to semantic.",
      inputSchema: {
        content: contentArg.describe("Markdown content."),
        title: titleArg.optional(),
        namespace: namespaceArg
          .optional()
          .describe("e.g. _semantic/decisions, _episodic/sessions."),
        memory_type: memoryTypeArg.optional(),
        tags: tagsArg.optional(),
        confidence: confidenceArg.optional().describe("0 to 1."),
      },
    },
    async (args) => jsonResult(toRecord(await memories.capture(args), "full")),
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
