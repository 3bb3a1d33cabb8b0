/**
 * The one coded error base of atlatl and its one list of codes: `@atlatl/lro`'s
 * errors, the server's (services, store, MIF) and the proxy's all extend
 * {@link CodedError} with a code from {@link ERROR_CODES}, so a failure reaches
 * a client as `CODE (field): message` whichever layer raised it.
 */
export const ERROR_CODES = [
  // Arguments and lookups (every layer).
  "INVALID_ARGUMENT",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "CONFLICT",
  "INTERNAL",
  // LRO: configuration, output directory, files, extraction.
  "CONFIG_INVALID",
  "OUTPUT_DIR_SYMLINK",
  "OUTPUT_DIR_UNUSABLE",
  "OUTPUT_DIR_NOT_OWNED",
  "WRITE_FAILED",
  "PATH_REFUSED",
  "FILE_NOT_FOUND",
  "FILE_EXPIRED",
  "FILTER_INVALID",
  "FILTER_ABORTED",
  "INPUT_TOO_LARGE",
  "BUSY",
  // LRO: the shared offload store (scale-out).
  "OFFLOAD_QUOTA_EXCEEDED",
  "OFFLOAD_STORE_FAILED",
  // Store.
  "DUPLICATE_ID",
  "QUERY_INVALID",
  "INVALID_MEMORY",
  "SCHEMA_TOO_NEW",
  "SCHEMA_INCOMPATIBLE",
  "OPEN_FAILED",
  "CLOSED",
  "UNAVAILABLE",
  "BACKEND",
  // MIF import and export.
  "PATH_NOT_FOUND",
  "READ_FAILED",
  "BAD_OPTIONS",
  "STORE_FAILED",
  // Embeddings (hybrid recall).
  "EMBEDDINGS_UNAVAILABLE",
  "EMBEDDINGS_MISMATCH",
] as const;

/** A code of {@link ERROR_CODES}. */
export type CodedErrorCode = (typeof ERROR_CODES)[number];

/** An error with a machine-readable code, the argument at fault if any, and a message a model can act on. */
export class CodedError<C extends CodedErrorCode = CodedErrorCode> extends Error {
  readonly code: C;
  /** The argument at fault, e.g. `query`, `file_path`. */
  readonly field: string | undefined;
  constructor(code: C, message: string, options?: { field?: string | undefined; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CodedError";
    this.code = code;
    this.field = options?.field;
  }
}

/** True when `err` is a {@link CodedError} of any layer. */
export function isCodedError(err: unknown): err is CodedError {
  return err instanceof CodedError;
}

/** Stable string codes of local LRO errors. */
export type LroErrorCode = Extract<
  CodedErrorCode,
  | "CONFIG_INVALID"
  | "OUTPUT_DIR_SYMLINK"
  | "OUTPUT_DIR_UNUSABLE"
  | "OUTPUT_DIR_NOT_OWNED"
  | "WRITE_FAILED"
  | "PATH_REFUSED"
  | "FILE_EXPIRED"
  | "FILE_NOT_FOUND"
  | "INVALID_ARGUMENT"
  | "FILTER_INVALID"
  | "FILTER_ABORTED"
  | "INPUT_TOO_LARGE"
  | "BUSY"
  | "OFFLOAD_QUOTA_EXCEEDED"
  | "OFFLOAD_STORE_FAILED"
>;

/** A local LRO error. */
export class LroError extends CodedError<LroErrorCode> {
  constructor(code: LroErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "LroError";
  }
}

/** True when `err` is an {@link LroError}, optionally of one code. */
export function isLroError(err: unknown, code?: LroErrorCode): err is LroError {
  return err instanceof LroError && (code === undefined || err.code === code);
}
