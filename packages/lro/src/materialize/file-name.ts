/**
 * Offload file names: `{prefix}-{operation}-{ulid}.jsonl` (prefix `atlatl` unless
 * the embedder chooses another). The ULID carries the
 * creation time, so the sweeper needs no side index. Files are first written as
 * `.atlatl-{operation}-{ulid}.{pid}.tmp`, which no `atlatl-*.jsonl` glob matches.
 */
import { decodeTime, monotonicFactory } from "ulid";

/** The default first word of offload file names (`atlatl-{operation}-{ulid}.jsonl`). */
export const DEFAULT_FILE_PREFIX = "atlatl";

/** A file prefix: letters, digits, `_`, `-`, at most 32, not starting with `-`. */
const PREFIX = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,31}$/;

/** A parsed offload file name. */
export interface ParsedOffloadFileName {
  operation: string;
  ulid: string;
  /** Epoch milliseconds from the ULID. */
  createdAt: number;
  /** True for a temporary (not yet renamed) file. */
  temporary: boolean;
  /** True for an attachment (a binary file a descriptor names, e.g. an image). */
  attachment?: boolean;
}

/** Extensions of attachment files (binary content kept out of the JSONL files). */
export const ATTACHMENT_EXTENSIONS = [
  "png",
  "jpg",
  "gif",
  "webp",
  "svg",
  "wav",
  "mp3",
  "ogg",
  "pdf",
  "bin",
] as const;

/** One attachment extension. */
export type AttachmentExtension = (typeof ATTACHMENT_EXTENSIONS)[number];

/** The names of one prefix's files: live `{prefix}-{op}-{ulid}.jsonl`, temporary dot-names. */
export interface OffloadFileNaming {
  readonly prefix: string;
  /** Live files: group 1 is the operation, group 2 the ULID. */
  readonly pattern: RegExp;
  /** Temporary files (dot-prefixed so no reader's glob sees half a file). */
  readonly tempPattern: RegExp;
  /** The live file name of an offload. */
  fileName(operation: string, id: string): string;
  /** The temporary name the file is written under before the rename. */
  tempName(operation: string, id: string, pid: number): string;
  /** Attachment files: `{prefix}-{op}-{ulid}.{ext}`. */
  readonly attachmentPattern: RegExp;
  attachmentName(operation: string, id: string, extension: AttachmentExtension): string;
  /** Parse a live, temporary or attachment name of this prefix; null for any other name. */
  parse(name: string): ParsedOffloadFileName | null;
}

const namings = new Map<string, OffloadFileNaming>();

/** The naming of `prefix` (default `atlatl`); throws a TypeError on an unusable prefix. */
export function offloadFileNaming(prefix: string = DEFAULT_FILE_PREFIX): OffloadFileNaming {
  const cached = namings.get(prefix);
  if (cached) return cached;
  if (!PREFIX.test(prefix)) {
    throw new TypeError(
      `offload file prefix ${JSON.stringify(prefix)} must be 1-32 letters, digits, "_" or "-"`,
    );
  }
  const pattern = new RegExp(
    `^${prefix}-([A-Za-z0-9_-]{1,64})-([0-7][0-9A-HJKMNP-TV-Z]{25})\\.jsonl$`,
  );
  const tempPattern = new RegExp(
    `^\\.${prefix}-([A-Za-z0-9_-]{1,64})-([0-7][0-9A-HJKMNP-TV-Z]{25})\\.\\d+\\.tmp$`,
  );
  const attachmentPattern = new RegExp(
    `^${prefix}-([A-Za-z0-9_-]{1,64})-([0-7][0-9A-HJKMNP-TV-Z]{25})\\.(${ATTACHMENT_EXTENSIONS.join("|")})$`,
  );
  const naming: OffloadFileNaming = {
    prefix,
    pattern,
    tempPattern,
    attachmentPattern,
    attachmentName: (operation, id, extension) =>
      `${prefix}-${sanitizeOperation(operation)}-${id}.${extension}`,
    fileName: (operation, id) => `${prefix}-${sanitizeOperation(operation)}-${id}.jsonl`,
    tempName: (operation, id, pid) => `.${prefix}-${sanitizeOperation(operation)}-${id}.${pid}.tmp`,
    parse(name) {
      const live = pattern.exec(name);
      const attached = live ? null : attachmentPattern.exec(name);
      const match = live ?? attached ?? tempPattern.exec(name);
      if (!match) return null;
      const operation = match[1] as string;
      const id = match[2] as string;
      let createdAt: number;
      try {
        createdAt = decodeTime(id);
      } catch {
        return null;
      }
      if (attached) return { operation, ulid: id, createdAt, temporary: false, attachment: true };
      return { operation, ulid: id, createdAt, temporary: live === null };
    },
  };
  namings.set(prefix, naming);
  return naming;
}

const defaultNaming = offloadFileNaming();

/** Live offload files of the default prefix: group 1 is the operation, group 2 the ULID. */
export const OFFLOAD_FILE_PATTERN = defaultNaming.pattern;

/** Temporary files of the default prefix. */
export const OFFLOAD_TEMP_PATTERN = defaultNaming.tempPattern;

/**
 * Parse `{prefix}-{operation}-{ulid}.jsonl` (or one of our temporary names); null
 * for any other name (those files are never ours to touch).
 */
export function parseOffloadFileName(
  name: string,
  prefix: string = DEFAULT_FILE_PREFIX,
): ParsedOffloadFileName | null {
  return offloadFileNaming(prefix).parse(name);
}

/** Make an operation name safe for a file name (`[A-Za-z0-9_-]`, at most 64). */
export function sanitizeOperation(operation: string): string {
  const safe = operation.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return safe === "" ? "result" : safe;
}

/** The live file name of an offload. */
export function offloadFileName(
  operation: string,
  id: string,
  prefix: string = DEFAULT_FILE_PREFIX,
): string {
  return offloadFileNaming(prefix).fileName(operation, id);
}

/** The temporary name the file is written under before the rename. */
export function offloadTempName(
  operation: string,
  id: string,
  pid: number,
  prefix: string = DEFAULT_FILE_PREFIX,
): string {
  return offloadFileNaming(prefix).tempName(operation, id, pid);
}

const POOL_BYTES = 4096;

/**
 * Random bytes for ULIDs from a pool refilled 4 KiB at a time. `ulid`'s default
 * asks the system for one byte per character (16 calls per id, a tenth of a
 * millisecond per offload); the bytes are the same CSPRNG's either way.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(POOL_BYTES);
  let next = POOL_BYTES;
  return () => {
    if (next === POOL_BYTES) {
      globalThis.crypto.getRandomValues(pool);
      next = 0;
    }
    return (pool[next++] as number) / 256;
  };
}

/** A ULID source for file names: monotonic within the process, time from the caller's clock. */
export function offloadIdFactory(): (time: number) => string {
  return monotonicFactory(pooledRandom());
}
