/**
 * Projection of memory records to a detail level, so a record line carries
 * exactly the fields its level promises (and the line schema and recipes 9-10
 * stay true). Idempotent: an already projected record projects to itself.
 * The lines are built by `memory-record.ts`, the one definition of them.
 */
import type { DetailLevel } from "../../types.js";
import { lightRecord, mediumRecord } from "./memory-record.js";

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
 * `full` is the record unchanged (a full record is built in line order by its
 * producer, e.g. atlatl's `toFullRecord`). A field the record lacks is left
 * out of the line.
 */
export function projectRecord(record: object, detail: DetailLevel): Rec {
  const r = record as Rec;
  if (detail === "full") return r;
  // Any object: a field it lacks is undefined here, and JSON leaves it out.
  const fields = r as Parameters<typeof lightRecord>[0];
  if (detail === "light") return lightRecord(fields);
  return mediumRecord(fields, flattenConfidence(r));
}
