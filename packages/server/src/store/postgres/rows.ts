/** Memory <-> parameters and rows of the PostgreSQL store (the row shape is `../memory-row.ts`'s). */
import type { LightRecord, Memory } from "../../model/memory.js";
import { type MemoryRow, type PreparedRow, toRow } from "../memory-row.js";
import type { ListedMemory, RankedHit, TextHit } from "../store.js";
import type { WRITE_COLUMNS } from "./writer.js";

/** A ranked page row: the memory columns, its seq, relevance and (rank) score. */
export type PageRow = MemoryRow & { seq: number; relevance: number; score?: number };

/** A listed row: the memory columns, its seq and sort key. */
export type ListRow = MemoryRow & { seq: number; sort_key: string | number };

/** SQL types of the written columns, for typed comparisons of parameters. */
export const CAST: Record<(typeof WRITE_COLUMNS)[number], string> = {
  id: "text",
  memory_type: "text",
  status: "text",
  namespace: "text",
  created_ms: "int8",
  modified_ms: "int8",
  confidence: "float8",
  created: "text",
  modified: "text",
  title: "text",
  tags: "text[]",
  tags_json: "text",
  content: "text",
  doc: "text",
};

/**
 * A prepared row's values in {@link WRITE_COLUMNS} order, the tag list as
 * `tagList` renders it (an array parameter, or a COPY literal).
 */
export function rowValues<T>(
  { row, tags }: PreparedRow,
  tagList: (tags: string[]) => T,
): (string | number | null | T)[] {
  return [
    row.id,
    row.memory_type,
    row.status,
    row.namespace,
    row.created_ms,
    row.modified_ms,
    row.confidence,
    row.created,
    row.modified,
    row.title,
    tagList(tags),
    row.tags,
    row.content,
    row.doc,
  ];
}

/** Parameter values in {@link WRITE_COLUMNS} order. */
export function writeValues(memory: Memory): unknown[] {
  return rowValues(toRow(memory), (tags) => tags);
}

/** `read` decodes the memory columns (see `rowReader`). */
export function listed<M extends LightRecord>(
  row: ListRow,
  read: (row: MemoryRow) => M,
): ListedMemory<M> {
  return { memory: read(row), position: { key: row.sort_key, seq: row.seq } };
}

export function textHit<M extends LightRecord>(
  row: PageRow,
  read: (row: MemoryRow) => M,
): TextHit<M> {
  return {
    memory: read(row),
    relevance: row.relevance,
    position: { value: row.relevance, seq: row.seq },
  };
}

export function rankedHit<M extends LightRecord>(
  row: PageRow,
  read: (row: MemoryRow) => M,
): RankedHit<M> {
  const score = row.score ?? 0;
  return {
    memory: read(row),
    score,
    relevance: row.relevance,
    position: { value: score, seq: row.seq },
  };
}
