/** Mapping node-postgres failures to {@link StoreError}s. */
import { StoreError } from "../errors.js";

/** A server error with its SQLSTATE (see the PostgreSQL "Error Codes" appendix). */
function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** SQLSTATEs of a value the schema refuses: check, not-null, bad text or number. */
const INVALID_STATES = new Set(["23514", "23502", "22P02", "22021", "22003", "22007", "22008"]);

/**
 * SQLSTATE classes and codes of a server that is going away or not there:
 * connection exceptions, shutdown, too many connections, a statement cancelled
 * (`statement_timeout`).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[1-3]|53300|57014)$/;

/** Driver-side failures to reach or hear from the server (socket errors, pg's timeouts). */
const UNAVAILABLE_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|timeout expired/;

/** True when `err` says the database cannot be reached or did not answer in time. */
function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "string" && UNAVAILABLE_ERRNOS.has(code)) return true;
  const state = sqlState(err);
  if (state !== undefined) return UNAVAILABLE_STATES.test(state);
  return err instanceof Error && UNAVAILABLE_MESSAGES.test(err.message);
}

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
  if (isUnavailable(err)) {
    // The driver's text names hosts and ports: the operator's log has it (`cause`).
    return new StoreError(
      "UNAVAILABLE",
      `${context}: the memory database cannot be reached or did not answer in time; retry later`,
      { cause: err },
    );
  }
  return new StoreError("BACKEND", `${context}: ${message}`, { cause: err });
}
