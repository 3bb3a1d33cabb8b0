/**
 * `importPath`: memories from a file or directory into a MemoryStore, in transactions.
 *
 * Durability contract: documents are committed in batches through `store.upsertMany`
 * (one transaction each). `onCommitted(ids)` fires only after that call resolved, i.e.
 * after the batch is durably in the store; a process killed at any moment therefore
 * keeps every memory it acknowledged, and never a part of a batch. Upserting by id makes
 * a re-run after a crash (or any re-import) update instead of duplicating.
 */
import { stat } from "node:fs/promises";
import type { Memory } from "../model/memory.js";
import type { MemoryStore } from "../store/store.js";
import { MifError } from "./errors.js";
import { collectFiles, type ImportRejection, readMemoryFile } from "./sources.js";

export const DEFAULT_IMPORT_BATCH_SIZE = 2000;

/**
 * Rejections an import report spells out; the rest are only counted. A file of a
 * million bad values must not build a million-entry report (it ran out of memory).
 */
export const MAX_REPORTED_REJECTIONS = 100;

export interface ImportProgress {
  /** The file being read. */
  file: string;
  filesDone: number;
  filesTotal: number;
  /** Bytes consumed across all files, and their total size. */
  bytesDone: number;
  bytesTotal: number;
  /** Memories committed so far (new + updated). */
  committed: number;
  rejected: number;
}

export interface ImportOptions {
  /** Memories per transaction; default 2000 (SQLite commits dominate bulk loads: 2000 clears 10k/s with headroom). */
  batchSize?: number;
  /** Called after each committed batch and after each file. */
  onProgress?: (progress: ImportProgress) => void;
  /** Called with the ids of each batch once its transaction is committed (the acknowledgement). */
  onCommitted?: (ids: readonly string[]) => void;
}

export interface ImportReport {
  /** Memory files read (`.md` files without front matter are not counted). */
  files: number;
  /** Memories whose id was new to the store. */
  imported: number;
  /** Memories that replaced a stored memory of the same id (including repeats within the import). */
  updated: number;
  /**
   * The first {@link MAX_REPORTED_REJECTIONS} documents not imported, with file, JSON
   * pointer, line and reason, in file order.
   */
  rejected: ImportRejection[];
  /** How many documents were not imported in all (>= `rejected.length`). */
  rejectedCount: number;
}

/**
 * Import MIF `.json` (one document, an array, or `{ "memories": [...] }`), JSONL (MIF
 * documents or atlatl records, one per line) and MIF Markdown (`.memory.md`, `.md` with
 * front matter) from a file or, recursively, a directory. Invalid documents and
 * malformed lines are reported in `rejected` and skipped; the rest is imported.
 * Throws `MifError` only when the path does not exist or the store fails (code
 * `STORE_FAILED`, with the batches committed before the failure still in place).
 */
export async function importPath(
  store: MemoryStore,
  path: string,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const batchSize = options.batchSize ?? DEFAULT_IMPORT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new MifError("BAD_OPTIONS", `batchSize must be a positive integer, got ${batchSize}`);
  }
  const files = await collectFiles(path);
  const sizes = await Promise.all(
    files.map((f) =>
      stat(f).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  const report: ImportReport = {
    files: 0,
    imported: 0,
    updated: 0,
    rejected: [],
    rejectedCount: 0,
  };
  let filesDone = 0;
  let bytesBefore = 0; // bytes of the files already finished
  let bytesInFile = 0;
  let currentFile = files[0] ?? path;
  // Keyed by id: a repeated id within one batch replaces the earlier document, as
  // sequential upserts would, and counts as an update.
  let batch = new Map<string, Memory>();
  let repeats = 0;

  const progress = () =>
    options.onProgress?.({
      file: currentFile,
      filesDone,
      filesTotal: files.length,
      bytesDone: Math.min(bytesTotal, bytesBefore + bytesInFile),
      bytesTotal,
      committed: report.imported + report.updated,
      rejected: report.rejectedCount,
    });

  const flush = async () => {
    if (batch.size === 0) return;
    const memories = [...batch.values()];
    let result: Awaited<ReturnType<MemoryStore["upsertMany"]>>;
    try {
      result = await store.upsertMany(memories);
    } catch (err) {
      throw new MifError(
        "STORE_FAILED",
        `storing a batch of ${memories.length} memories failed after ${report.imported + report.updated} were committed: ${String(err)}`,
        { cause: err },
      );
    }
    report.imported += result.inserted;
    report.updated += result.updated + repeats;
    batch = new Map();
    repeats = 0;
    options.onCommitted?.(memories.map((m) => m.id));
    progress();
  };

  for (const [index, file] of files.entries()) {
    currentFile = file;
    bytesInFile = 0;
    let isMemoryFile = true;
    for await (const items of readMemoryFile(file)) {
      for (const item of items) {
        if (item.kind === "memory") {
          if (batch.has(item.memory.id)) repeats++;
          batch.set(item.memory.id, item.memory);
          if (batch.size >= batchSize) await flush();
        } else if (item.kind === "rejected") {
          if (report.rejected.length < MAX_REPORTED_REJECTIONS)
            report.rejected.push(item.rejection);
          report.rejectedCount++;
        } else if (item.kind === "progress") {
          bytesInFile = item.bytes;
        } else {
          isMemoryFile = false;
        }
      }
    }
    if (isMemoryFile) report.files++;
    filesDone++;
    bytesBefore += sizes[index] ?? 0;
    bytesInFile = 0;
    progress();
  }
  await flush();
  if (report.imported + report.updated > 0) {
    try {
      await store.afterBulkWrite?.();
    } catch (err) {
      throw new MifError(
        "STORE_FAILED",
        `all ${report.imported + report.updated} memories were committed, but the store's upkeep after the import failed: ${String(err)}`,
        { cause: err },
      );
    }
  }
  return report;
}

/**
 * One line for a person: `file[:line]: message (id X)`. Schema messages already name
 * their JSON pointers (`/memoryType must be one of ...`).
 */
export function formatRejection(rejection: ImportRejection): string {
  const where =
    rejection.line !== undefined ? `${rejection.file}:${rejection.line}` : rejection.file;
  const id = rejection.id !== undefined ? ` (id ${rejection.id})` : "";
  return `${where}: ${rejection.message}${id}`;
}
