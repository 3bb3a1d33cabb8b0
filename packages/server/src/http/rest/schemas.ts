import { z } from "@hono/zod-openapi";
import {
  cursorArg,
  detailArg,
  memoryTypeArg,
  namespaceArg,
  tagsArg,
} from "../../mcp/tools/schemas.js";
import { BATCH_LIMITS, READ_LIMITS } from "../../model/limits.js";
import { MEMORY_STATUSES } from "../../model/memory.js";
import { MAX_LIST_OFFSET } from "../../services/list-service.js";

/**
 * The REST API's schemas, built from the MCP tools' argument fragments (one
 * rule, one place); query parameters arrive as text, hence the coercions. The
 * OpenAPI document is generated from these.
 */
/**
 * A whole number written in decimal digits (`16`; not `0x10`, `1e1`, ` 16`,
 * which a bare coercion would take), from `min` to `max`.
 */
const decimalQuery = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, `must be a decimal integer (digits only) from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    // The default is applied after parsing, as the number it stands for.
    .default(fallback)
    .openapi({ description: `A decimal integer from ${min} to ${max} (default ${fallback})` });

const limitQuery = (fallback: number) => decimalQuery(1, READ_LIMITS.pageSize, fallback);

const filterQuery = {
  namespace: namespaceArg.optional(),
  memory_type: memoryTypeArg.optional(),
  tag: tagsArg.element.optional().openapi({ description: "Only memories with this tag" }),
  detail: detailArg.default("light"),
};

export const ListQuery = z.object({
  ...filterQuery,
  limit: limitQuery(50),
  offset: decimalQuery(0, MAX_LIST_OFFSET, 0),
});

export const RankedQuery = z.object({
  q: z.string().max(READ_LIMITS.queryChars).openapi({ description: "The query" }),
  ...filterQuery,
  limit: limitQuery(20),
  cursor: cursorArg.optional(),
});

export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "id", in: "path" } }),
});

/** Bodies name only known fields: an unknown one is refused, as MCP tools refuse unknown arguments. */
export const CaptureBody = z.strictObject({
  content: z.string().min(1).max(200_000),
  title: z.string().min(1).max(500).optional(),
  namespace: namespaceArg.optional(),
  memory_type: memoryTypeArg.optional(),
  tags: tagsArg.optional(),
  confidence: z.number().min(0).max(1).optional(),
});

/** `POST /v1/memories/batch`: memories shaped like one capture each, all stored or none. */
export const BatchCaptureBody = z.strictObject({
  memories: z.array(CaptureBody).min(1).max(BATCH_LIMITS.memories),
});

export const BatchCaptured = z
  .object({ count: z.number().int(), ids: z.array(z.string()) })
  .openapi("BatchCaptured");

export const PatchBody = CaptureBody.partial().extend({
  status: z.enum(MEMORY_STATUSES).optional(),
});

export const MemoryRecord = z
  .looseObject({
    id: z.string(),
    title: z.string(),
    namespace: z.string(),
    memory_type: memoryTypeArg,
    tags: z.array(z.string()),
  })
  .openapi("Memory");

export const MemoryPage = z
  .object({
    items: z.array(MemoryRecord),
    limit: z.number().int(),
    offset: z.number().int(),
    next_offset: z.number().int().nullable(),
  })
  .openapi("MemoryPage");

export const RankedPage = z
  .object({
    hits: z.array(z.object({ score: z.number(), memory: MemoryRecord })),
    next_cursor: z.string().nullable(),
  })
  .openapi("RankedPage");

export const ProblemBody = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    code: z.string().optional(),
    field: z.string().optional(),
  })
  .openapi("Problem");
