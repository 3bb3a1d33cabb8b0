/**
 * Reading memory files: which files a path names, and the documents in each file
 * (MIF `.json`, JSONL, MIF Markdown), each converted to a Memory or a rejection that
 * names its file, line and JSON pointer. Nothing here throws for bad content.
 */
import { createReadStream } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Memory } from "../model/memory.js";
import { type Conversion, convertJsonValue, convertMifDocument } from "./convert.js";
import { MifError } from "./errors.js";
import { isObject, type JsonObject } from "./json-utils.js";
import { parseMemoryMarkdown } from "./markdown.js";

/** A document that was not imported, and why. */
export interface ImportRejection {
  file: string;
  /** RFC 6901 pointer into the document (for a `.json` array, it starts with the index). */
  pointer: string;
  /** 1-based line: of the JSONL line, or of a JSON / YAML syntax error. */
  line?: number;
  message: string;
  /** The document's id, when it has one. */
  id?: string;
}

export type SourceItem =
  | { kind: "memory"; memory: Memory }
  | { kind: "rejected"; rejection: ImportRejection }
  /** A `.md` file without front matter: not a memory, silently skipped. */
  | { kind: "not-memory" }
  /** Bytes of the file consumed so far (for progress). */
  | { kind: "progress"; bytes: number };

export type FileFormat = "json" | "jsonl" | "markdown";

/** The format a file name implies, or undefined for files an import ignores. */
export function fileFormat(name: string): FileFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return "jsonl";
  if (lower.endsWith(".json")) return "json";
  if (lower.endsWith(".md") || lower.endsWith(".markdown")) return "markdown";
  return undefined;
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    // Hidden folders (.git, .obsidian) and dependencies hold no memories.
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, out);
    else if ((entry.isFile() || entry.isSymbolicLink()) && fileFormat(entry.name)) out.push(path);
  }
}

/** The files an import of `path` reads: the file itself, or the memory files under a directory. */
export async function collectFiles(path: string): Promise<string[]> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (err) {
    throw new MifError("PATH_NOT_FOUND", `cannot import ${path}: no such file or directory`, {
      cause: err,
    });
  }
  if (!info.isDirectory()) return [path];
  const files: string[] = [];
  try {
    await walk(path, files);
  } catch (err) {
    throw new MifError("READ_FAILED", `cannot read directory ${path}: ${String(err)}`, {
      cause: err,
    });
  }
  return files;
}

function isLroHeader(value: unknown): boolean {
  return isObject(value) && value.type === "lro_header";
}

/** 1-based line and column of a character offset. */
function lineAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function syntaxError(file: string, text: string, err: unknown): ImportRejection {
  const message = err instanceof Error ? err.message : String(err);
  const position = /at position (\d+)/.exec(message);
  const at = position ? lineAt(text, Number(position[1])) : lineAt(text, text.length);
  return {
    file,
    pointer: "",
    line: at.line,
    message: `malformed JSON at line ${at.line} column ${at.column}: ${message.replace(/ in JSON at position \d+.*$/, "")}; nothing from this file was imported`,
  };
}

function item(file: string, conversion: Conversion, prefix: string, line?: number): SourceItem {
  if (conversion.ok) return { kind: "memory", memory: conversion.memory };
  const { pointer, message, id } = conversion;
  return {
    kind: "rejected",
    rejection: {
      file,
      pointer: `${prefix}${pointer}`,
      ...(line !== undefined ? { line } : {}),
      message,
      ...(id !== undefined ? { id } : {}),
    },
  };
}

async function* readJson(file: string): AsyncGenerator<SourceItem> {
  const text = await readFile(file, "utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    yield { kind: "rejected", rejection: syntaxError(file, text, err) };
    return;
  }
  // One document, an array of documents, or `{ "memories": [...] }`.
  let docs: unknown[] | undefined;
  let prefix = "";
  if (Array.isArray(value)) docs = value;
  else if (
    isObject(value) &&
    Array.isArray(value.memories) &&
    !("@id" in value) &&
    !("id" in value)
  ) {
    docs = value.memories;
    prefix = "/memories";
  }
  if (!docs) {
    if (!isLroHeader(value)) yield item(file, convertJsonValue(value), "");
  } else {
    for (let i = 0; i < docs.length; i++) {
      if (isLroHeader(docs[i])) continue;
      yield item(file, convertJsonValue(docs[i]), `${prefix}/${i}`);
    }
  }
  yield { kind: "progress", bytes: Buffer.byteLength(text) };
}

async function* readJsonl(file: string): AsyncGenerator<SourceItem> {
  const input = createReadStream(file, { encoding: "utf8" });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  let bytes = 0;
  try {
    for await (const text of lines) {
      line++;
      bytes += text.length + 1;
      if (line % 256 === 0) yield { kind: "progress", bytes };
      if (text.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        yield {
          kind: "rejected",
          rejection: {
            file,
            pointer: "",
            line,
            message: `malformed JSON on line ${line}: ${message}`,
          },
        };
        continue;
      }
      // An offload file's first line is its header, not a memory.
      if (isLroHeader(value)) continue;
      yield item(file, convertJsonValue(value), "", line);
    }
  } finally {
    lines.close();
    input.destroy();
  }
  yield { kind: "progress", bytes: input.bytesRead };
}

async function* readMarkdown(file: string): AsyncGenerator<SourceItem> {
  const text = await readFile(file, "utf8");
  const parsed = parseMemoryMarkdown(text);
  if (parsed.kind === "none") {
    if (file.toLowerCase().endsWith(".memory.md")) {
      yield {
        kind: "rejected",
        rejection: {
          file,
          pointer: "",
          line: 1,
          message: "no YAML front matter (a MIF Markdown memory starts with `---`)",
        },
      };
    } else {
      yield { kind: "not-memory" };
    }
  } else if (parsed.kind === "error") {
    yield {
      kind: "rejected",
      rejection: { file, pointer: "", line: parsed.line, message: parsed.message },
    };
  } else {
    yield item(file, convertMifDocument(parsed.doc as JsonObject, parsed.toSourcePointer), "");
  }
  yield { kind: "progress", bytes: Buffer.byteLength(text) };
}

/** Every document of one file, converted; unreadable files become one rejection. */
export async function* readMemoryFile(file: string): AsyncGenerator<SourceItem> {
  const format = fileFormat(file);
  if (!format) {
    yield {
      kind: "rejected",
      rejection: {
        file,
        pointer: "",
        message: "unsupported file type (expected .json, .jsonl or .md)",
      },
    };
    return;
  }
  const reader = format === "json" ? readJson : format === "jsonl" ? readJsonl : readMarkdown;
  try {
    yield* reader(file);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    yield {
      kind: "rejected",
      rejection: { file, pointer: "", message: `cannot read file: ${message}` },
    };
  }
}
