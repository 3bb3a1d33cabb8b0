import { CodedError, type CodedErrorCode } from "@atlatl/lro";
import { isStoreError } from "../store/errors.js";

/** Stable string codes of service failures. */
export type ServiceErrorCode = Extract<
  CodedErrorCode,
  /** An argument is missing, out of bounds or malformed; the message says which and how to fix it. */
  | "INVALID_ARGUMENT"
  /** A memory with this id already exists. */
  | "ALREADY_EXISTS"
  /** No memory has this id (tools report it; the services return undefined). */
  | "NOT_FOUND"
  /** The memory kept changing under concurrent writers; retry the call. */
  | "CONFLICT"
>;

/**
 * A failure the caller can act on (a model sees the message as a tool error).
 * Other failures (I/O, a closed store) propagate as they are.
 */
export class ServiceError extends CodedError<ServiceErrorCode> {
  constructor(
    code: ServiceErrorCode,
    message: string,
    options?: { field?: string | undefined; cause?: unknown },
  ) {
    super(code, message, options);
    this.name = "ServiceError";
  }
}

/** True when `err` is a {@link ServiceError}, optionally of one code. */
export function isServiceError(err: unknown, code?: ServiceErrorCode): err is ServiceError {
  return err instanceof ServiceError && (code === undefined || err.code === code);
}

/** An `INVALID_ARGUMENT` error for `field`. */
export function invalidArgument(field: string, message: string, cause?: unknown): ServiceError {
  return new ServiceError("INVALID_ARGUMENT", message, { field, cause });
}

/**
 * Translate store failures the caller can fix (a query the backend cannot parse, a
 * duplicate id) into service errors; everything else is rethrown unchanged.
 */
export function fromStoreError(err: unknown, field = "query"): never {
  if (isStoreError(err, "QUERY_INVALID")) throw invalidArgument(field, err.message, err);
  if (isStoreError(err, "INVALID_MEMORY")) throw invalidArgument("memory", err.message, err);
  if (isStoreError(err, "CONFLICT")) {
    throw new ServiceError("CONFLICT", err.message, { field: "id", cause: err });
  }
  if (isStoreError(err, "DUPLICATE_ID")) {
    throw new ServiceError("ALREADY_EXISTS", err.message, { field: "id", cause: err });
  }
  throw err;
}
