import { CodedError, type CodedErrorCode } from "@atlatl/lro";

/** Stable string codes of store failures. */
export type StoreErrorCode = Extract<
  CodedErrorCode,
  /** `insert` of an id that is already stored. */
  | "DUPLICATE_ID"
  /** The id is not stored (for operations that require it). */
  | "NOT_FOUND"
  /** A conditional update found the memory changed by another writer since it was read. */
  | "CONFLICT"
  /** A full-text query the engine refused (the query language quotes every word, so a bug, not user text). */
  | "QUERY_INVALID"
  /** A memory the store cannot hold (bad type, status, timestamp, ...). */
  | "INVALID_MEMORY"
  /** The database was written by a newer version of atlatl. */
  | "SCHEMA_TOO_NEW"
  /** The database has a schema this version cannot use (e.g. from a development build). */
  | "SCHEMA_INCOMPATIBLE"
  /** The database cannot be opened or created (missing file, unreachable server). */
  | "OPEN_FAILED"
  /** The store was closed. */
  | "CLOSED"
  /** The database server cannot be reached or did not answer in time (retry later). */
  | "UNAVAILABLE"
  /** Any other backend failure (I/O, locking, corruption). */
  | "BACKEND"
>;

/** A store failure with a machine-readable code and a message a person or model can act on. */
export class StoreError extends CodedError<StoreErrorCode> {
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "StoreError";
  }
}

/** True when `err` is a {@link StoreError}, optionally of one code. */
export function isStoreError(err: unknown, code?: StoreErrorCode): err is StoreError {
  return err instanceof StoreError && (code === undefined || err.code === code);
}

/** The `CONFLICT` of an optimistic update whose memory changed since it was read. */
export function conflict(id: string): StoreError {
  return new StoreError(
    "CONFLICT",
    `memory ${JSON.stringify(id)} was changed by another writer since it was read; read it again and retry`,
  );
}
