import { z } from "zod";
import { MEMORY_STATUSES, MEMORY_TYPES } from "../../model/memory.js";

/**
 * Input fragments shared by the tools. Every field carries bounds so a model gets
 * a precise validation message instead of a server fault.
 */
export const namespaceArg = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[a-zA-Z0-9_-]+(\/[a-zA-Z0-9_-]+)*$/, {
    message:
      "namespace must be slash-separated segments of letters, digits, _ or -, e.g. _semantic/decisions",
  });

export const memoryTypeArg = z.enum(MEMORY_TYPES);
export const tagsArg = z.array(z.string().min(1).max(64)).max(32);
export const detailArg = z.enum(["light", "medium", "full"]);
export const cursorArg = z.string().min(1).max(4096);
export const limitArg = z.number().int().min(1).max(1000);

/** Filters accepted by recall, search and list. */
export const filterShape = {
  namespace: namespaceArg
    .optional()
    .describe("Namespace prefix on whole segments: `_semantic` matches `_semantic/decisions`."),
  memory_type: memoryTypeArg.optional().describe("semantic, episodic or procedural."),
  tags: tagsArg.optional().describe("Only memories carrying every one of these tags."),
  status: z
    .enum([...MEMORY_STATUSES, "any"])
    .optional()
    .describe("Lifecycle status; default active."),
};

export type FilterArgs = {
  namespace?: string | undefined;
  memory_type?: (typeof MEMORY_TYPES)[number] | undefined;
  tags?: string[] | undefined;
  status?: (typeof MEMORY_STATUSES)[number] | "any" | undefined;
};

/** Keep only the filter keys that were given. */
export function pickFilter(args: FilterArgs): FilterArgs {
  const filter: FilterArgs = {};
  if (args.namespace !== undefined) filter.namespace = args.namespace;
  if (args.memory_type !== undefined) filter.memory_type = args.memory_type;
  if (args.tags !== undefined) filter.tags = args.tags;
  if (args.status !== undefined) filter.status = args.status;
  return filter;
}
