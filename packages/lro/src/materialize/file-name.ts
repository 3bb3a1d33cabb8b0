/**
 * Offload file names: `atlatl-{operation}-{ulid}.jsonl`. The ULID carries the
 * creation time, so the sweeper needs no side index. Files are first written as
 * `.atlatl-{operation}-{ulid}.{pid}.tmp`, which no `atlatl-*.jsonl` glob matches.
 */
import { decodeTime, monotonicFactory } from "ulid";

/** Live offload files: group 1 is the operation, group 2 the ULID. */
export const OFFLOAD_FILE_PATTERN =
  /^atlatl-([A-Za-z0-9_-]{1,64})-([0-7][0-9A-HJKMNP-TV-Z]{25})\.jsonl$/;

/** Our temporary files (dot-prefixed so no reader's glob sees half a file). */
export const OFFLOAD_TEMP_PATTERN =
  /^\.atlatl-([A-Za-z0-9_-]{1,64})-([0-7][0-9A-HJKMNP-TV-Z]{25})\.\d+\.tmp$/;

/** A parsed offload file name. */
export interface ParsedOffloadFileName {
  operation: string;
  ulid: string;
  /** Epoch milliseconds from the ULID. */
  createdAt: number;
  /** True for a temporary (not yet renamed) file. */
  temporary: boolean;
}

/**
 * Parse `atlatl-{operation}-{ulid}.jsonl` (or one of our temporary names); null
 * for any other name (those files are never ours to touch).
 */
export function parseOffloadFileName(name: string): ParsedOffloadFileName | null {
  const live = OFFLOAD_FILE_PATTERN.exec(name);
  const match = live ?? OFFLOAD_TEMP_PATTERN.exec(name);
  if (!match) return null;
  const operation = match[1] as string;
  const id = match[2] as string;
  let createdAt: number;
  try {
    createdAt = decodeTime(id);
  } catch {
    return null;
  }
  return { operation, ulid: id, createdAt, temporary: live === null };
}

/** Make an operation name safe for a file name (`[A-Za-z0-9_-]`, at most 64). */
export function sanitizeOperation(operation: string): string {
  const safe = operation.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return safe === "" ? "result" : safe;
}

/** The live file name of an offload. */
export function offloadFileName(operation: string, id: string): string {
  return `atlatl-${sanitizeOperation(operation)}-${id}.jsonl`;
}

/** The temporary name the file is written under before the rename. */
export function offloadTempName(operation: string, id: string, pid: number): string {
  return `.atlatl-${sanitizeOperation(operation)}-${id}.${pid}.tmp`;
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
