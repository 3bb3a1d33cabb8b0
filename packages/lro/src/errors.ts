/** Stable string codes of local LRO errors. */
export type LroErrorCode =
  | "CONFIG_INVALID"
  | "OUTPUT_DIR_SYMLINK"
  | "OUTPUT_DIR_UNUSABLE"
  | "OUTPUT_DIR_NOT_OWNED"
  | "WRITE_FAILED"
  | "PATH_REFUSED"
  | "FILE_EXPIRED"
  | "INVALID_ARGUMENT"
  | "FILTER_INVALID"
  | "FILTER_ABORTED"
  | "INPUT_TOO_LARGE"
  | "BUSY";

/** A local error with a machine-readable code and a message a model can act on. */
export class LroError extends Error {
  readonly code: LroErrorCode;
  constructor(code: LroErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LroError";
    this.code = code;
  }
}

/** True when `err` is an {@link LroError}, optionally of one code. */
export function isLroError(err: unknown, code?: LroErrorCode): err is LroError {
  return err instanceof LroError && (code === undefined || err.code === code);
}
