import { z } from "zod";
import { MEMORY_LIMITS, NAMESPACE_RULE, READ_LIMITS } from "../../model/limits.js";
import { MEMORY_STATUSES, MEMORY_TYPES, NAMESPACE_PATTERN } from "../../model/memory.js";

/**
 * Input fragments shared by the tools. Every field carries the model's bounds
 * (`model/limits.ts`) so a model gets a precise validation message instead of a
 * server fault. Optional fields are declared with a plain type and `.optional()`
 * (never nullable): some clients cannot send a field declared `anyOf [X, null]`.
 */
export const namespaceArg = z
  .string()
  .min(1)
  .max(MEMORY_LIMITS.namespaceChars)
  .regex(NAMESPACE_PATTERN, { message: `namespace must be ${NAMESPACE_RULE}` });

export const idArg = z
  .string()
  .min(1)
  .max(MEMORY_LIMITS.idChars)
  .describe("Memory id, as returned by capture or recall.");
export const contentArg = z.string().min(1).max(MEMORY_LIMITS.contentChars);
export const titleArg = z.string().min(1).max(MEMORY_LIMITS.titleChars);
export const confidenceArg = z.number().min(0).max(1);
export const memoryTypeArg = z.enum(MEMORY_TYPES);
export const tagsArg = z
  .array(z.string().min(1).max(MEMORY_LIMITS.tagChars))
  .max(MEMORY_LIMITS.tags);
export const detailArg = z.enum(["light", "medium", "full"]);
export const cursorArg = z.string().min(1).max(READ_LIMITS.cursorChars);
export const limitArg = z.number().int().min(1).max(READ_LIMITS.pageSize);

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

type FilterArgs = {
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
