/**
 * The descriptor ablation: fields are removed from the `OffloadResponse`
 * before the agent sees it (it cannot see what was removed). The bare pointer
 * keeps `file_path` only.
 */
import type { DescriptorFields } from "../conditions/conditions.js";
import type { OffloadResponse } from "./lro-descriptor.js";

export function ablateDescriptor(
  d: OffloadResponse,
  fields: DescriptorFields,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const bare = !fields.summary && !fields.schema && !fields.recipes && !fields.guidance;
  if (!bare) out.offloaded = d.offloaded;
  if (fields.summary) out.summary = d.summary;
  out.file_path = d.file_path;
  if (fields.schema) out.line_schema = d.line_schema;
  if (fields.recipes) out.jq_recipes = d.jq_recipes;
  if (fields.guidance) out.guidance = d.guidance;
  return out;
}
