import type { Memory, MemoryStatus, MemoryType } from "../model/memory.js";

/** Filters shared by list, search and recall. All given conditions must hold. */
export interface MemoryFilter {
  /** Namespace prefix on whole segments: `_semantic` matches `_semantic/decisions`. */
  namespace?: string | undefined;
  memory_type?: MemoryType | undefined;
  /** Every listed tag must be present. */
  tags?: readonly string[] | undefined;
  /** Defaults to `active`; `any` disables the status filter. */
  status?: MemoryStatus | "any" | undefined;
}

export type ListSort = "created" | "modified" | "title";
export type SortOrder = "asc" | "desc";

/** Keyset position: the sort key and id of the last row already seen. */
export interface ListPosition {
  key: string;
  id: string;
}

export interface ListQuery {
  filter?: MemoryFilter | undefined;
  sort: ListSort;
  order: SortOrder;
  limit: number;
  /** Rows strictly after this position in (sort key, id) order. */
  after?: ListPosition | undefined;
}

export interface TextQuery {
  /**
   * Full-text query. `syntax: "plain"` treats it as words (any may match);
   * `syntax: "native"` passes the backend's own query language (FTS5 MATCH syntax).
   */
  text: string;
  syntax: "plain" | "native";
  filter?: MemoryFilter | undefined;
  limit: number;
}

/** A full-text hit with the backend's raw relevance (higher is better). */
export interface TextHit {
  memory: Memory;
  relevance: number;
}

export interface UpsertReport {
  inserted: number;
  updated: number;
}

/** What a backend can do; services branch on these, never on the backend's kind. */
export interface StoreCapabilities {
  /** Name of the full-text engine, e.g. `fts5`. */
  readonly fullText: string;
  /** True when native query syntax (phrases, boolean operators, prefixes) is supported. */
  readonly nativeQuerySyntax: boolean;
}

/**
 * The storage seam. `store/sqlite/` implements it now; a PostgreSQL implementation
 * follows without touching the services. Every method is async so that a network
 * backend fits the same shape.
 */
export interface MemoryStore {
  readonly capabilities: StoreCapabilities;
  get(id: string): Promise<Memory | undefined>;
  /** Fails with a `StoreError` of code `DUPLICATE_ID` when the id exists. */
  insert(memory: Memory): Promise<void>;
  /** Insert or replace by id, all in one transaction: either every memory is stored or none. */
  upsertMany(memories: readonly Memory[]): Promise<UpsertReport>;
  /** Replace a stored memory; false when the id is unknown. */
  update(memory: Memory): Promise<boolean>;
  /** False when the id is unknown. */
  delete(id: string): Promise<boolean>;
  list(query: ListQuery): Promise<Memory[]>;
  search(query: TextQuery): Promise<TextHit[]>;
  count(filter?: MemoryFilter): Promise<number>;
  /** Every matching memory, in (created, id) order, read in pages. */
  iterate(filter?: MemoryFilter): AsyncIterable<Memory>;
  close(): Promise<void>;
}
