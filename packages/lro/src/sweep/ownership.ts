/**
 * Which files in an output directory are ours to delete. A name is no proof:
 * the directory may be shared with the user's own files (a configured
 * `output_dir`), and anyone can name a file `atlatl-{op}-{ULID}.jsonl`. The
 * sweeper deletes a file only when everything it can check says we wrote it.
 */
import type { OffloadStat } from "../materialize/offload-fs.js";

/** How every offload file begins: line 1 is the header, `type` its first key. */
export const OFFLOAD_HEADER_PREFIX = '{"type":"lro_header"';

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
