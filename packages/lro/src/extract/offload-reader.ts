/**
 * Reading an offload file for extraction: header line, record bytes, and (on
 * demand) the records parsed for the fast path, all cached per file version
 * (path, device, inode, size, mtime) so repeated queries on one file neither
 * re-read nor re-parse it.
 */
import { isUtf8 } from "node:buffer";
import { LroError } from "../errors.js";
import type { OffloadHeader } from "../types.js";
import type { OpenOffloadFile } from "./confine.js";
import type { FastRecords } from "./fast-recipes.js";
import { jqDumpText } from "./jq-values.js";

/** An offload file in memory. */
export interface LoadedOffload {
  /** Identity of this version of the file (cache key; the jq worker's input key). */
  readonly key: string;
  readonly path: string;
  readonly name: string;
  readonly header: OffloadHeader;
  /** Line 1 of the file as written (no newline). */
  readonly headerLine: string;
  /** The record lines' bytes: the file after its header line. */
  readonly body: Buffer;
  /** The records parsed for the fast path, or null when the file is outside its domain. */
  fast(): FastRecords | null;
}

/** Limits of an {@link OffloadFileCache}. */
export interface OffloadFileCacheOptions {
  /** Files kept (default 8). */
  maxEntries?: number;
  /**
   * Memory the cache may hold, in bytes (default 512 MiB): a file counts its
   * size, and five times its size once its records are parsed (what parsed
   * JSON costs on the V8 heap).
   */
  maxBytes?: number;
  /** Files larger than this are not parsed for the fast path (jq answers; default 128 MiB). */
  maxParseBytes?: number;
}

/** Heap cost of parsed records relative to their JSON text (measured: ~4-6x). */
const PARSED_WEIGHT = 5;

/** A small LRU of loaded offload files, bounded by count and by memory. */
export class OffloadFileCache {
  private readonly entries = new Map<string, LoadedOffload & { parsed(): boolean }>();
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly maxParseBytes: number;

  constructor(options: OffloadFileCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 8;
    this.maxBytes = options.maxBytes ?? 512 * 1024 * 1024;
    this.maxParseBytes = options.maxParseBytes ?? 128 * 1024 * 1024;
  }

  /**
   * The loaded file behind an open, confined descriptor: from the cache when
   * this exact version was read before, else read (at most `maxBytes`).
   */
  async load(file: OpenOffloadFile, maxBytes: number): Promise<LoadedOffload> {
    const { dev, ino, size, mtimeMs } = file.identity;
    const key = `${file.path}\0${dev}:${ino}:${size}:${mtimeMs}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      this.evict(hit);
      return hit;
    }
    if (size > maxBytes) {
      throw new LroError(
        "INPUT_TOO_LARGE",
        `${file.name} is ${size} bytes, above the ${maxBytes}-byte limit of lro_extract; use the shell recipes from the descriptor instead`,
      );
    }
    const data = await readAll(file, size);
    const loaded = makeLoaded(key, file, data, this.maxParseBytes);
    // Drop stale versions of the same path.
    for (const [k, v] of this.entries) if (v.path === loaded.path) this.entries.delete(k);
    this.entries.set(loaded.key, loaded);
    this.evict(loaded);
    return loaded;
  }

  /** Forget every cached file. */
  clear(): void {
    this.entries.clear();
  }

  /** Memory the cached files hold (as weighed for `maxBytes`). */
  get weight(): number {
    let total = 0;
    for (const v of this.entries.values()) total += weigh(v);
    return total;
  }

  /** Evict least recently used files (never `keep`, which the caller is about to use). */
  private evict(keep: LoadedOffload): void {
    let total = this.weight;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && total <= this.maxBytes) break;
      if (v === keep) continue;
      this.entries.delete(k);
      total -= weigh(v);
    }
  }
}

function weigh(v: LoadedOffload & { parsed(): boolean }): number {
  return v.body.length * (v.parsed() ? PARSED_WEIGHT : 1);
}

async function readAll(file: OpenOffloadFile, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let offset = 0;
  while (offset < size) {
    const { bytesRead } = await file.handle.read(buf, offset, size - offset, offset);
    if (bytesRead === 0) break; // truncated under us: use what is there
    offset += bytesRead;
  }
  return offset === size ? buf : buf.subarray(0, offset);
}

function makeLoaded(
  key: string,
  file: OpenOffloadFile,
  data: Buffer,
  maxParseBytes: number,
): LoadedOffload & { parsed(): boolean } {
  const nl = data.indexOf(0x0a);
  const headerText = (nl < 0 ? data : data.subarray(0, nl)).toString("utf8");
  let header: unknown;
  try {
    header = JSON.parse(headerText);
  } catch {
    header = undefined;
  }
  if (
    !header ||
    typeof header !== "object" ||
    (header as { type?: unknown }).type !== "lro_header"
  ) {
    throw new LroError(
      "PATH_REFUSED",
      `${file.name} does not start with an lro_header line; it is not an offload file`,
    );
  }
  const body = nl < 0 ? Buffer.alloc(0) : data.subarray(nl + 1);
  let fast: FastRecords | null | undefined;
  return {
    key,
    path: file.path,
    name: file.name,
    header: header as OffloadHeader,
    headerLine: headerText,
    body,
    fast() {
      if (fast === undefined) fast = body.length <= maxParseBytes ? parseFastRecords(body) : null;
      return fast;
    },
    parsed: () => fast !== undefined && fast !== null,
  };
}

// Inside canonical JSON, `\uD8xx`..`\uDFxx` escapes are lone surrogates (jq rejects them).
const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/**
 * True when every number inside `v` prints without an exponent: JSON.stringify
 * writes large and tiny numbers as `1e+21`, which jq 1.7 prints as `1E+21`.
 */
function plainNumbers(v: unknown): boolean {
  if (typeof v === "number") return !String(v).includes("e");
  if (v === null || typeof v !== "object") return true;
  if (Array.isArray(v)) {
    for (const x of v) if (!plainNumbers(x)) return false;
    return true;
  }
  for (const k in v) if (!plainNumbers((v as Record<string, unknown>)[k])) return false;
  return true;
}
const BLANK = /^[ \t\r]*$/;

/**
 * Parse record lines for the fast path. Admitted only when every line is one
 * JSON object whose canonical `JSON.stringify` text is the line itself (so key
 * order, duplicate keys, number spelling and escapes are exactly what jq sees
 * and prints), the bytes are valid UTF-8, and no number needs an exponent.
 * Anything else returns null: jq handles it, errors included.
 */
export function parseFastRecords(body: Buffer): FastRecords | null {
  if (!isUtf8(body)) return null;
  const text = body.toString("utf8");
  const records: Record<string, unknown>[] = [];
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line === "" || BLANK.test(line)) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return null;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
    if (JSON.stringify(value) !== line) return null;
    if (LONE_SURROGATE_ESCAPE.test(line) || !plainNumbers(value)) return null;
    records.push(value as Record<string, unknown>);
    lines.push(jqDumpText(line));
  }
  return { records, lines };
}
