import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { type ExportOptions, exportMemories } from "../../src/mif/export.js";
import type { Memory } from "../../src/model/memory.js";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import type { SqliteMemoryStore } from "../../src/store/sqlite/sqlite-store.js";
import type { MemoryStore } from "../../src/store/store.js";

/** The official MIF example documents, vendored with the schema. */
export const EXAMPLES_DIR = fileURLToPath(new URL("../../vendor/mif/examples/", import.meta.url));

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "atlatl-mif-"));
}

/** A real SQLite store in memory. */
export function memoryStore(): Promise<SqliteMemoryStore> {
  return openSqliteStore({ path: ":memory:" });
}

/** Write `files` (relative path → content) under `dir`; objects are written as JSON. */
export function writeFiles(dir: string, files: Record<string, string | object>): void {
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
}

/** Every memory of the store, any status, in (created, id) order. */
export async function allMemories(store: MemoryStore): Promise<Memory[]> {
  const out: Memory[] = [];
  for await (const memory of store.iterate({ status: "any" })) out.push(memory);
  return out;
}

/** Run an export into a string. */
export async function exportToString(store: MemoryStore, options: ExportOptions): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on("data", (chunk: Buffer) => chunks.push(chunk));
  await exportMemories(store, options, out);
  out.end();
  return Buffer.concat(chunks).toString("utf8");
}

/** A minimal valid MIF document. */
export function mifDoc(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "@context": "https://mif-spec.dev/schema/context.jsonld",
    "@type": "Memory",
    "@id": `urn:mif:${id}`,
    memoryType: "semantic",
    content: `Memory ${id} says something about PostgreSQL.`,
    created: "2026-01-15T10:30:00Z",
    ...extra,
  };
}
