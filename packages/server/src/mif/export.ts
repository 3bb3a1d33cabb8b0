/**
 * `exportMemories`: the store's memories as MIF JSON-LD, streamed. Memories are read
 * page by page (`store.iterate`) and written in chunks that respect the stream's
 * back-pressure, so exporting a large store never holds it in memory.
 */
import { once } from "node:events";
import type { Memory } from "../model/memory.js";
import type { MemoryFilter, MemoryStore } from "../store/store.js";
import { memoryToMif } from "./to-mif.js";

export type ExportFormat = "mif-json" | "jsonl";

export interface ExportOptions {
  /**
   * `mif-json`: one JSON array of MIF documents, one document per line;
   * `jsonl`: one MIF document per line.
   */
  format: ExportFormat;
  /** Which memories; all statuses unless `filter.status` says otherwise. */
  filter?: MemoryFilter;
}

export interface ExportReport {
  count: number;
}

const CHUNK_CHARS = 64 * 1024;

/**
 * Write the memories matching `options.filter` to `out` in (created, id) order.
 * `out` is left open (it may be stdout); the caller ends it.
 */
export function exportMemories(
  store: MemoryStore,
  options: ExportOptions,
  out: NodeJS.WritableStream,
): Promise<ExportReport> {
  const memories = store.iterate({
    ...options.filter,
    status: options.filter?.status ?? "any",
  });
  return writeMifDocuments(memories, options.format, out);
}

/**
 * Write `memories` (from a store, a generator, an array) to `out` as MIF
 * documents in `format`, in chunks that respect back-pressure. `out` is left open.
 */
export async function writeMifDocuments(
  memories: AsyncIterable<Memory> | Iterable<Memory>,
  format: ExportFormat,
  out: NodeJS.WritableStream,
): Promise<ExportReport> {
  const json = format === "mif-json";
  let pending = "";
  const write = async (text: string, force = false) => {
    pending += text;
    if (!force && pending.length < CHUNK_CHARS) return;
    const chunk = pending;
    pending = "";
    if (!out.write(chunk)) await once(out, "drain");
  };

  let count = 0;
  if (json) await write("[");
  for await (const memory of memories) {
    const line = JSON.stringify(memoryToMif(memory));
    await write(json ? `${count === 0 ? "\n" : ",\n"}${line}` : `${line}\n`);
    count++;
  }
  if (json) await write(count === 0 ? "]\n" : "\n]\n");
  await write("", true);
  return { count };
}
