import { CodedError, type CodedErrorCode } from "@atlatl/lro";

/** Stable string codes of MIF import/export failures that abort a whole operation. */
export type MifErrorCode = Extract<
  CodedErrorCode,
  "PATH_NOT_FOUND" | "READ_FAILED" | "BAD_OPTIONS" | "STORE_FAILED"
>;

/**
 * An error that stops an import or export as a whole (a missing path, an unreadable
 * directory). Problems with single documents are not thrown: they are collected in
 * the import report as rejections.
 */
export class MifError extends CodedError<MifErrorCode> {
  constructor(code: MifErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "MifError";
  }
}
