/** Mapping node-postgres failures to {@link StoreError}s. */
import { StoreError } from "../errors.js";

/** A server error with its SQLSTATE (see the PostgreSQL "Error Codes" appendix). */
function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** SQLSTATEs of a value the schema refuses: check, not-null, bad text or number. */
const INVALID_STATES = new Set(["23514", "23502", "22P02", "22021", "22003", "22007", "22008"]);

/** Map a driver failure to a {@link StoreError}; StoreErrors pass through. */
export function pgStoreError(err: unknown, context: string): StoreError {
  if (err instanceof StoreError) return err;
  const state = sqlState(err);
  const message = err instanceof Error ? err.message : String(err);
  if (state === "23505" && /memories_id_key/.test(message)) {
    return new StoreError("DUPLICATE_ID", `${context}: a memory with this id exists`, {
      cause: err,
    });
  }
  if (state !== undefined && INVALID_STATES.has(state)) {
    return new StoreError("INVALID_MEMORY", `${context}: ${message}`, { cause: err });
  }
  if (/pool after calling end|Client was closed/.test(message)) {
    return new StoreError("CLOSED", "the memory store is closed", { cause: err });
  }
  return new StoreError("BACKEND", `${context}: ${message}`, { cause: err });
}
