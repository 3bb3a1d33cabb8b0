/** Mapping better-sqlite3 failures to {@link StoreError}s. */
import { StoreError } from "../errors.js";

/** True for a driver error carrying SQLite's result code name (e.g. `SQLITE_ERROR`). */
export function isSqliteError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === "string";
}

/** Map a driver failure to a {@link StoreError}; StoreErrors pass through. */
export function storeError(err: unknown, context: string): StoreError {
  if (err instanceof StoreError) return err;
  if (err instanceof TypeError && /database connection is not open/.test(err.message)) {
    return new StoreError("CLOSED", "the memory store is closed", { cause: err });
  }
  if (isSqliteError(err)) {
    if (err.code === "SQLITE_CONSTRAINT_UNIQUE" && /memories\.id/.test(err.message)) {
      return new StoreError("DUPLICATE_ID", `${context}: a memory with this id exists`, {
        cause: err,
      });
    }
    if (err.code.startsWith("SQLITE_CONSTRAINT")) {
      return new StoreError("INVALID_MEMORY", `${context}: ${err.message}`, { cause: err });
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return new StoreError("BACKEND", `${context}: ${message}`, { cause: err });
}
