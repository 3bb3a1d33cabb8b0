/**
 * Which files in an output directory are ours to delete. A name is no proof:
 * the directory may be shared with the user's own files (a configured
 * `output_dir`), and anyone can name a file `atlatl-{op}-{ULID}.jsonl`. The
 * sweeper deletes a file only when everything it can check says we wrote it.
 */
import { createHash } from "node:crypto";
import type { OffloadStat } from "../materialize/offload-fs.js";

/** How every offload file begins: line 1 is the header, `type` its first key. */
const OFFLOAD_HEADER_PREFIX = '{"type":"lro_header"';

const PREFIX_BYTES = Buffer.from(OFFLOAD_HEADER_PREFIX, "utf8");

/** Bytes read from a file to judge its first line (a header line is far shorter). */
export const HEAD_BYTES = 64 * 1024;

const SPACE = 0x20;
const NEWLINE = 0x0a;

const myUid = typeof process.getuid === "function" ? process.getuid() : undefined;

/**
 * A regular file of this user with exactly one link. A second link means
 * someone (the user, `ln`) keeps the same data under another name: deleting
 * our name would not free it and would pull it from under whoever linked it.
 */
export function ownedSingleFile(stat: OffloadStat): boolean {
  return stat.isFile() && (myUid === undefined || stat.uid === myUid) && stat.nlink === 1;
}

/** True when the first line of `head` is an `lro_header` JSON object. */
export function startsWithOurHeader(head: Uint8Array): boolean {
  const buf = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (
    buf.length < PREFIX_BYTES.length ||
    !buf.subarray(0, PREFIX_BYTES.length).equals(PREFIX_BYTES)
  )
    return false;
  const nl = buf.indexOf(NEWLINE);
  // A header longer than what was read (a very long query) is judged by its prefix.
  if (nl < 0) return buf.length === HEAD_BYTES;
  try {
    const header = JSON.parse(buf.subarray(0, nl).toString("utf8")) as { type?: unknown };
    return header?.type === "lro_header";
  } catch {
    return false;
  }
}

/**
 * Whether the start of a temporary file (`.atlatl-{op}-{ULID}.{pid}.tmp`) is
 * one our writers could have left. A temporary file has no complete header
 * yet: a crash leaves it empty (killed right after the exclusive create), cut
 * anywhere in the header (a small file written in one piece begins with it), or
 * starting with the blank slot the streaming writer reserves for the header (a
 * run of spaces up to the first newline). Anything else under that name (a
 * user's text, binary data) is not ours, whatever its name says.
 */
export function couldBeOurTemp(head: Uint8Array): boolean {
  const buf = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (buf.length === 0) return true;
  const n = Math.min(buf.length, PREFIX_BYTES.length);
  if (buf.subarray(0, n).equals(PREFIX_BYTES.subarray(0, n))) return true;
  const nl = buf.indexOf(NEWLINE);
  const slot = buf.subarray(0, nl < 0 ? buf.length : nl);
  return slot.length > 0 && slot.every((b) => b === SPACE);
}

/**
 * Attachments (images, audio, PDFs) cannot carry our header, so each is proven
 * ours by a record written beside it, before it: `.{attachment name}.lro`, one
 * header line naming the attachment with its size and SHA-256. The sweeper
 * deletes an attachment only when that record is ours and the bytes match it;
 * a user's `atlatl-report-{ULID}.pdf` has no record (or other bytes) and stays.
 * The record begins like every header, so a crash mid-write leaves a temporary
 * file the sweeper recognises.
 */
export interface AttachmentRecord {
  /** The attachment's file name (no directory). */
  attachment: string;
  bytes: number;
  /** Lower-case hex SHA-256 of the attachment's bytes. */
  sha256: string;
}

/** A record is one short line; more than this is not ours. */
export const ATTACHMENT_RECORD_MAX_BYTES = 1024;

const RECORD_NAME = /^\.(.+)\.lro$/;

/** The name of the record of the attachment `attachmentName`. */
export function attachmentRecordName(attachmentName: string): string {
  return `.${attachmentName}.lro`;
}

/** The attachment name a record name belongs to, or null for any other name. */
export function attachmentOfRecordName(name: string): string | null {
  return RECORD_NAME.exec(name)?.[1] ?? null;
}

/** SHA-256 of `data`, lower-case hex. */
export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The bytes of the record of `data` written as `attachmentName`. */
export function encodeAttachmentRecord(attachmentName: string, data: Uint8Array): Uint8Array {
  const record = {
    type: "lro_header",
    attachment: attachmentName,
    bytes: data.length,
    sha256: sha256Hex(data),
  };
  return Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
}

/** The record in `head` when it is ours and names `attachmentName`; else null. */
export function parseAttachmentRecord(
  head: Uint8Array,
  attachmentName: string,
): AttachmentRecord | null {
  if (head.length >= ATTACHMENT_RECORD_MAX_BYTES || !startsWithOurHeader(head)) return null;
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString("utf8");
  if (!text.endsWith("\n") || text.indexOf("\n") !== text.length - 1) return null;
  try {
    const r = JSON.parse(text) as Partial<AttachmentRecord>;
    const ok =
      r.attachment === attachmentName &&
      Number.isSafeInteger(r.bytes) &&
      (r.bytes as number) >= 0 &&
      typeof r.sha256 === "string" &&
      /^[0-9a-f]{64}$/.test(r.sha256);
    return ok ? (r as AttachmentRecord) : null;
  } catch {
    return null;
  }
}
