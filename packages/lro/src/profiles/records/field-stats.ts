/**
 * What the records profile learns about the top-level fields of arbitrary
 * records in one pass: which fields exist, their JSON types, the values of
 * low-cardinality string fields, numeric ranges, date-like strings. Values are
 * seen as JSON sees them (`toJSON` applied), so the same statistics come out of
 * the records in memory and of the lines read back from the file.
 */
import {
  type JsonType,
  jsonTypeOf,
  jsonValue,
  LineSchemaAccumulator,
} from "../../descriptor/infer-schema.js";
import { previewValue } from "../../descriptor/preview.js";
import type { JsonSchema } from "../../types.js";

/** Distinct string values tracked per field; beyond it a field is high-cardinality. */
const MAX_TRACKED_VALUES = 32;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/** What was seen of one top-level field. */
export interface FieldStats {
  name: string;
  /** Records that have the field (any value, null included). */
  present: number;
  types: Set<JsonType>;
  /** Counts of string values, while there are at most {@link MAX_TRACKED_VALUES}. */
  values: Map<string, number> | null;
  /** Every string value looks like an ISO 8601 date. */
  dateLike: boolean;
  /** Every array value holds only strings. */
  stringArrays: boolean;
  min: number;
  max: number;
  /** The first non-empty string value seen. */
  firstString: string | undefined;
}

/** Statistics of a records result. */
export interface RecordsStats {
  count: number;
  /** Top-level fields in first-seen order. */
  fields: FieldStats[];
  /** Records that were not JSON objects. */
  nonObjects: number;
  lineSchema: JsonSchema;
  /** The first record, shortened (`descriptor/preview.ts`); undefined when there is none. */
  preview?: unknown;
}

/** Accumulates {@link RecordsStats} record by record. */
export class RecordsStatsAccumulator {
  private readonly fields = new Map<string, FieldStats>();
  private readonly schema = new LineSchemaAccumulator();
  private count = 0;
  private nonObjects = 0;
  private preview: unknown;

  add(record: object): void {
    if (this.count === 0) this.preview = previewValue(record);
    this.count++;
    this.schema.add(record);
    const value = jsonValue(record);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.nonObjects++;
      return;
    }
    for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
      if (raw === undefined || typeof raw === "function" || typeof raw === "symbol") continue;
      let f = this.fields.get(name);
      if (!f) {
        f = {
          name,
          present: 0,
          types: new Set(),
          values: new Map(),
          dateLike: true,
          stringArrays: true,
          min: Number.POSITIVE_INFINITY,
          max: Number.NEGATIVE_INFINITY,
          firstString: undefined,
        };
        this.fields.set(name, f);
      }
      observeField(f, jsonValue(raw));
    }
  }

  result(): RecordsStats {
    return {
      count: this.count,
      fields: [...this.fields.values()],
      nonObjects: this.nonObjects,
      lineSchema: this.schema.result(),
      ...(this.count > 0 ? { preview: this.preview } : {}),
    };
  }
}

function observeField(f: FieldStats, v: unknown): void {
  f.present++;
  const t = jsonTypeOf(v);
  f.types.add(t);
  if (t === "string") {
    const s = v as string;
    if (f.firstString === undefined && s !== "") f.firstString = s;
    if (!ISO_DATE.test(s)) f.dateLike = false;
    if (f.values) {
      f.values.set(s, (f.values.get(s) ?? 0) + 1);
      if (f.values.size > MAX_TRACKED_VALUES) f.values = null;
    }
  } else if (t === "integer" || t === "number") {
    const n = v as number;
    if (n < f.min) f.min = n;
    if (n > f.max) f.max = n;
  } else if (t === "array") {
    if (!(v as unknown[]).every((x) => typeof x === "string")) f.stringArrays = false;
  }
}

/** True when every value of `f` is of one of `types` (null allowed when listed). */
export function only(f: FieldStats, ...types: JsonType[]): boolean {
  for (const t of f.types) if (!types.includes(t)) return false;
  return true;
}

/** String values by frequency, most frequent first (ties by value). */
export function rankedValues(f: FieldStats): string[] {
  if (!f.values) return [];
  return [...f.values.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([k]) => k);
}
