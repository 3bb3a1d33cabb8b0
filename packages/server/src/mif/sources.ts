/**
 * Reading memory files: which files a path names, and the documents in each file
 * (MIF `.json`, JSONL, MIF Markdown), each converted to a Memory or a rejection that
 * names its file, line and JSON pointer. Nothing here throws for bad content.
 */
import { createReadStream } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Memory } from "../model/memory.js";
import { type Conversion, convertJsonValue, convertMifDocument } from "./convert.js";
import { MifError } from "./errors.js";
import { firstJsonChar, readJsonArray } from "./json-array-stream.js";
import { isObject } from "./json-utils.js";
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

type SourceItem =
  | { kind: "memory"; memory: Memory }
  | { kind: "rejected"; rejection: ImportRejection }
  /** A `.md` file without front matter: not a memory, silently skipped. */
  | { kind: "not-memory" }
  /** Bytes of the file consumed so far (for progress). */
  | { kind: "progress"; bytes: number };

type FileFormat = "json" | "jsonl" | "markdown";

/** The format a file name implies, or undefined for files an import ignores. */
function fileFormat(name: string): FileFormat | undefined {
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

/** Documents converted per yielded chunk of a `.json` array. */
const JSON_CHUNK = 1000;

/** A UTF-8 byte-order mark, decoded: other JSON tools accept one at the start of a file. */
const BOM = "\uFEFF";

function withoutBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/**
 * Above this size a `.json` array is streamed element by element: peak memory
 * then no longer grows with the file (JSON.parse takes up to ~10x the file size,
 * and V8 cannot hold a string past ~512 MiB at all). Below it, JSON.parse is
 * about twice as fast.
 */
const JSON_STREAM_BYTES = 16 * 1024 * 1024;

/** A `.json` file holding an array of documents, streamed element by element. */
async function* readJsonArrayFile(file: string): AsyncGenerator<SourceItem[]> {
  for await (const chunk of readJsonArray(file)) {
    if (chunk.kind === "problem") {
      const { line, column, message } = chunk.problem;
      yield [
        {
          kind: "rejected",
          rejection: {
            file,
            pointer: "",
            line,
            message: `malformed JSON at line ${line} column ${column}: ${message}; nothing from this file was imported`,
          },
        },
      ];
      return;
    }
    const items: SourceItem[] = [];
    for (const { index, value } of chunk.elements) {
      if (!isLroHeader(value)) items.push(item(file, convertJsonValue(value), `/${index}`));
    }
    items.push({ kind: "progress", bytes: chunk.bytesRead });
    yield items;
  }
}

/**
 * A `.json` file: one document, an array of documents, or `{ "memories": [...] }`.
 * A large array is streamed; otherwise the file is parsed whole, then converted and
 * yielded a chunk at a time, so only the memories of the current batch and the
 * listed rejections are kept beside the parsed value.
 */
async function* readJson(file: string): AsyncGenerator<SourceItem[]> {
  if ((await stat(file)).size > JSON_STREAM_BYTES && (await firstJsonChar(file)) === "[") {
    yield* readJsonArrayFile(file);
    return;
  }
  const raw = await readFile(file, "utf8");
  const bytes = Buffer.byteLength(raw);
  const text = withoutBom(raw);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    yield [{ kind: "rejected", rejection: syntaxError(file, text, err) }];
    return;
  }
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
    yield isLroHeader(value) ? [] : [item(file, convertJsonValue(value), "")];
  } else {
    for (let start = 0; start < docs.length; start += JSON_CHUNK) {
      const items: SourceItem[] = [];
      const end = Math.min(docs.length, start + JSON_CHUNK);
      for (let i = start; i < end; i++) {
        if (!isLroHeader(docs[i]))
          items.push(item(file, convertJsonValue(docs[i]), `${prefix}/${i}`));
        docs[i] = undefined; // converted: let the parsed document go
      }
      yield items;
    }
  }
  yield [{ kind: "progress", bytes }];
}

function jsonlLine(file: string, text: string, line: number): SourceItem | undefined {
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      kind: "rejected",
      rejection: { file, pointer: "", line, message: `malformed JSON on line ${line}: ${message}` },
    };
  }
  // An offload file's first line is its header, not a memory.
  if (isLroHeader(value)) return undefined;
  return item(file, convertJsonValue(value), "", line);
}

/**
 * JSONL, streamed in large chunks and split by hand: per-line events and per-item
 * promises (readline, one `yield` per line) cost as much as parsing the line itself.
 */
async function* readJsonl(file: string): AsyncGenerator<SourceItem[]> {
  const input = createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 });
  let rest = "";
  let line = 0;
  try {
    let first = true;
    for await (const chunk of input as AsyncIterable<string>) {
      const text = first ? withoutBom(chunk) : rest + chunk;
      first = false;
      const items: SourceItem[] = [];
      let start = 0;
      let newline = text.indexOf("\n", start);
      while (newline !== -1) {
        line++;
        const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
        const result = jsonlLine(file, text.slice(start, end), line);
        if (result) items.push(result);
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      rest = text.slice(start);
      items.push({ kind: "progress", bytes: input.bytesRead });
      yield items;
    }
    if (rest !== "") {
      const result = jsonlLine(file, rest.replace(/\r$/, ""), line + 1);
      if (result) yield [result];
    }
  } finally {
    input.destroy();
  }
}

async function readMarkdown(file: string): Promise<SourceItem[]> {
  const text = await readFile(file, "utf8");
  const parsed = parseMemoryMarkdown(text);
  const progress: SourceItem = { kind: "progress", bytes: Buffer.byteLength(text) };
  if (parsed.kind === "none") {
    if (file.toLowerCase().endsWith(".memory.md")) {
      return [
        {
          kind: "rejected",
          rejection: {
            file,
            pointer: "",
            line: 1,
            message: "no YAML front matter (a MIF Markdown memory starts with `---`)",
          },
        },
        progress,
      ];
    }
    return [{ kind: "not-memory" }, progress];
  }
  if (parsed.kind === "error") {
    return [
      {
        kind: "rejected",
        rejection: { file, pointer: "", line: parsed.line, message: parsed.message },
      },
      progress,
    ];
  }
  return [item(file, convertMifDocument(parsed.doc, parsed.toSourcePointer), ""), progress];
}

/**
 * Every document of one file, converted, in chunks (a thousand documents of a `.json`
 * array, a whole `.md` file, or about a MiB of JSONL at a time). An unreadable file becomes one rejection.
 */
export async function* readMemoryFile(file: string): AsyncGenerator<SourceItem[]> {
  const format = fileFormat(file);
  if (!format) {
    yield [
      {
        kind: "rejected",
        rejection: {
          file,
          pointer: "",
          message: "unsupported file type (expected .json, .jsonl or .md)",
        },
      },
    ];
    return;
  }
  try {
    if (format === "jsonl") yield* readJsonl(file);
    else if (format === "json") yield* readJson(file);
    else yield await readMarkdown(file);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    yield [
      {
        kind: "rejected",
        rejection: { file, pointer: "", message: `cannot read file: ${message}` },
      },
    ];
  }
}
