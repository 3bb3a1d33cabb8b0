/**
 * Projection of memory records to a detail level, so a record line carries
 * exactly the fields its level promises (and the line schema and recipes 9-10
 * stay true). Idempotent: an already projected record projects to itself.
 */
import type { DetailLevel } from "../../types.js";

/** Fields of a `light` record line, in line order. */
export const LIGHT_FIELDS = [
  "id",
  "title",
  "namespace",
  "memory_type",
  "tags",
  "created",
  "modified",
  "status",
] as const;

/** Fields a `medium` line adds to `light` (`confidence` is flattened from provenance). */
export const MEDIUM_EXTRA_FIELDS = ["content", "summary", "confidence"] as const;

type Rec = Record<string, unknown>;

function flattenConfidence(record: Rec): number | null {
  if (typeof record.confidence === "number") return record.confidence;
  const provenance = record.provenance as Rec | null | undefined;
  const nested = provenance && typeof provenance === "object" ? provenance.confidence : undefined;
  return typeof nested === "number" ? nested : null;
}

/**
 * The record as its `detail` line: `light` picks identity and classification,
 * `medium` adds content, summary and a flattened `confidence` (no provenance),
 * `full` is the record unchanged.
 */
export function projectRecord(record: object, detail: DetailLevel): Rec {
  const r = record as Rec;
  if (detail === "full") return r;
  const out: Rec = {};
  for (const key of LIGHT_FIELDS) {
    if (r[key] !== undefined) out[key] = r[key];
  }
  if (detail === "medium") {
    out.content = r.content ?? "";
    out.summary = r.summary ?? null;
    out.confidence = flattenConfidence(r);
  }
  return out;
}
