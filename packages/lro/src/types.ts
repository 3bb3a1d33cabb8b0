/**
 * Wire types of the LRO specification (`OffloadHeader`, `OffloadResponse`, ...)
 * and of the generic multi-section profile. Field names are the specification's.
 */

/** Serialization detail of memory records: what fields a record line carries. */
export type DetailLevel = "light" | "medium" | "full";

/** Every detail level, in increasing order of size. */
export const DETAIL_LEVELS: readonly DetailLevel[] = ["light", "medium", "full"];

/** Operations of the memory profile. Other producers (proxy, extract) may add their own. */
export type MemoryOperation = "recall" | "search" | "inject" | "list";

/** MIF schema version written into every header. */
export const MIF_SCHEMA_VERSION = "0.1.0";

/** Line 1 of every offload file. Exactly the specification's fields. */
export interface OffloadHeader {
  type: "lro_header";
  operation: string;
  query: string | null;
  count: number;
  schema_version: string;
  timestamp: string;
  estimated_tokens: number;
  detail: string;
}

/** `OffloadSummary` of the specification. */
export interface OffloadSummary {
  count: number;
  estimated_tokens: number;
  operation: string;
  top_namespaces: string[];
  /** `[min, max]` of the hits' scores, or null when the operation has no scores. */
  score_range: [number, number] | null;
  detail: string;
}

/** One ready-to-run extraction recipe. */
export interface JqRecipe {
  description: string;
  command: string;
}

/** The specification's `OffloadResponse`: what replaces an offloaded result. */
export interface OffloadResponse {
  offloaded: true;
  summary: OffloadSummary;
  file_path: string;
  line_schema: JsonSchema;
  jq_recipes: JqRecipe[];
  guidance: string;
  /** Present only when the result set had more records than one file may hold. */
  capped?: CapNotice;
}

/** How a capped offload differs from the whole result set (not in the specification). */
export interface CapNotice {
  /** Records in the whole result set. */
  total_matches: number;
  /** Records in the file (= `summary.count`). */
  records_in_file: number;
  /** `prompt.offload.max_records`. */
  max_records: number;
  /** The same, in one sentence. */
  note: string;
}

/** Generic (multi-section) profile, after the Python library's descriptor. */
export interface GenericOffloadResponse {
  offloaded: true;
  /** Inline keys copied verbatim from the original payload are spread here. */
  [inlineKey: string]: unknown;
  summary: Record<string, Record<string, unknown>>;
  files: Record<string, string>;
  /** Each section's layout and its lines' fields and types, compact (`descriptor/infer-schema.ts`). */
  schemas: Record<string, { description: string; line_schema: CompactShape }>;
  jq_recipes: Record<string, string>;
  guidance: string;
}

/** A line's fields and types in a generic descriptor: `"string"`, `"null|string"`, `"array<object>"`, nested objects as their own shape. */
export type CompactShape = string | { [field: string]: CompactShape };

/** A JSON Schema document (kept loose on purpose: it is data for the model). */
export type JsonSchema = { [key: string]: unknown };

/** What describes one materialized file (the specification's `OffloadedResult`). */
export interface OffloadedFile {
  /** Absolute path of the JSONL file. */
  path: string;
  header: OffloadHeader;
  ttlSeconds: number;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Bytes written, header included. */
  bytes: number;
}
