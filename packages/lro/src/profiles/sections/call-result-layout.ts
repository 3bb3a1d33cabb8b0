/**
 * How an offloaded `CallToolResult` is laid out in sections (pure: no I/O).
 * `content` and `structuredContent` are what is offloaded; everything else of
 * the result (`_meta`, unknown keys) stays on the returned result.
 *
 * - `records`: an array of objects found in `structuredContent` (at top level or
 *   under one key) or, failing that, in the JSON of the only text block.
 * - `text`: every other text block, one line record per line of text
 *   (`{block, line, text}`, lines numbered from 1); a text block that is the
 *   JSON of `structuredContent` or the records' source gets one marker line.
 * - one section per other content block kind (`image`, `audio`, `resource`,
 *   `resource_link`, ...): one line per block; image/audio `data` and resource
 *   `blob`s are written to their own files, named in the line.
 * - `structured`: `structuredContent` with the records array replaced by
 *   `"$records"` and strings equal to a text block by `{"$text_block": i}`.
 */

import { EncodedLines, encodeTextLines } from "../../materialize/encoded-lines.js";
import type { AnyCallToolResult } from "../../protocol/mcp-types.js";
import { recordRecipes, textRecipes } from "./call-result-recipes.js";

/** Placeholder of the records array inside its envelope. */
export const RECORDS_MARK = "$records";
/** Key of a reference to a text block's text inside `structured`. */
export const TEXT_BLOCK_MARK = "$text_block";

/** One section of the layout: its items become the lines of one file. */
export interface LayoutSection {
  key: string;
  /** The lines' values (serialized by the engine's writer). */
  items: unknown[];
  /** Lines already encoded (the text section's), used instead of `items`. */
  encoded?: EncodedLines;
  /** The line schema when known without looking (text lines); else inferred from `items`. */
  lineSchema?: Record<string, unknown>;
  description: string;
  /** Recipes with `{key_file}` placeholders; undefined = the engine's defaults. */
  recipes?: Record<string, string>;
}

/** A binary payload (base64) to write to its own file; `ref` is patched with the path. */
export interface BinaryPart {
  block: number;
  mimeType: string | undefined;
  base64: string;
  /** The line object that names the file (gets `file` and `bytes`). */
  ref: Record<string, unknown>;
}

/** The layout of one offloaded result. */
export interface ResultLayout {
  /** `records` when an array of objects was found, else `sections`. */
  kind: "records" | "sections";
  /**
   * The records are the whole result: every content block is a text marker
   * (the records' JSON, or `structuredContent`'s), nothing else. Such a result
   * goes to the records profile (one file, numbered recipes).
   */
  pure?: PureRecords;
  sections: LayoutSection[];
  binaries: BinaryPart[];
  /** Keys kept inline beside the descriptor (`inline_keys`). */
  inline: Record<string, unknown>;
}

type Json = Record<string, unknown>;

/** Records that are the whole result, and what else it takes to give the result back. */
export interface PureRecords {
  records: Json[];
  /** The array's key in its envelope (undefined: a top-level array). */
  key: string | undefined;
  /** The envelope's other keys. */
  rest: Json;
  /**
   * The non-record lines, kept in the descriptor as `reassemble`: the text
   * blocks' JSON markers and the `structured` line (records replaced by
   * `"$records"`), so `reassembleResult` gives the result back from one file.
   */
  reassemble: { text: Json[]; structured?: unknown };
}

/** Schema of the text section's lines (line records and JSON markers). */
export const TEXT_LINE_SCHEMA: Json = {
  type: "object",
  properties: {
    block: { type: "integer" },
    line: { type: "integer" },
    text: { type: "string" },
    json: {},
    indent: { type: ["integer", "string"] },
  },
};

function isPlainObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function isObjectArray(v: unknown): v is Json[] {
  return Array.isArray(v) && v.length > 0 && v.every(isPlainObject);
}

/** Where the records are: the array and its envelope (null when top level). */
interface RecordsSource {
  records: Json[];
  /** The object holding the array, and the array's key; null for a top-level array. */
  envelope: { object: Json; key: string } | null;
}

function findRecords(value: unknown): RecordsSource | undefined {
  if (isObjectArray(value)) return { records: value, envelope: null };
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value).filter((k) => isObjectArray(value[k]));
  if (keys.length !== 1) return undefined;
  const key = keys[0] as string;
  return { records: value[key] as Json[], envelope: { object: value, key } };
}

function envelopeLine(source: RecordsSource): unknown {
  if (!source.envelope) return RECORDS_MARK;
  return { ...source.envelope.object, [source.envelope.key]: RECORDS_MARK };
}

function parseJsonText(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Indentation that `JSON.stringify` needs to print `value` as `text` exactly (0 = compact). */
type JsonIndent = 0 | 2 | 4 | "\t";

/** The indentation reproducing `text` from `value`, or undefined when none does. */
export function jsonIndentOf(text: string, value: unknown): JsonIndent | undefined {
  for (const indent of [0, 2, 4, "\t"] as const) {
    if (JSON.stringify(value, null, indent === 0 ? undefined : indent) === text) return indent;
  }
  return undefined;
}

function pickInline(source: unknown, keys: readonly string[]): Json {
  const out: Json = {};
  if (!isPlainObject(source)) return out;
  for (const k of keys) if (k in source) out[k] = source[k];
  return out;
}

/** Lay out `result` (whose `isError` is not set) for offloading. */
export function layoutResult(
  result: AnyCallToolResult,
  inlineKeys: readonly string[],
): ResultLayout {
  const content = Array.isArray(result.content) ? (result.content as Json[]) : [];
  const structured = result.structuredContent as unknown;
  const texts = content.map((b) =>
    b.type === "text" && typeof b.text === "string" ? b.text : null,
  );
  const textIndexes = texts.flatMap((t, i) => (t === null ? [] : [i]));

  let source = structured !== undefined ? findRecords(structured) : undefined;
  let sourceBlock = -1;
  let sourceIndent: JsonIndent | undefined;
  if (!source && textIndexes.length === 1) {
    const i = textIndexes[0] as number;
    const parsed = parseJsonText(texts[i] as string);
    const found = findRecords(parsed);
    sourceIndent = found ? jsonIndentOf(texts[i] as string, parsed) : undefined;
    // Only text that prints back exactly: the files must give the same bytes again.
    if (found && sourceIndent !== undefined) {
      source = found;
      sourceBlock = i;
    }
  }

  const mirrorIndent = (text: string): JsonIndent | undefined => {
    if (structured === undefined) return undefined;
    const parsed = parseJsonText(text);
    return parsed === undefined ? undefined : jsonIndentOf(text, structured);
  };

  const sections = new Map<string, LayoutSection>();
  const section = (key: string, description: string, recipes?: Record<string, string>) => {
    let s = sections.get(key);
    if (!s) {
      s = { key, items: [], description, ...(recipes ? { recipes } : {}) };
      sections.set(key, s);
    }
    return s;
  };
  if (source) {
    section(
      "records",
      "Line 1 is a header; then the records in order, one per line.",
      recordRecipes(source.records),
    );
    (sections.get("records") as LayoutSection).items = source.records;
  }
  const binaries: BinaryPart[] = [];
  const textSection = () => {
    const s = section(
      "text",
      "Line 1 is a header; then each text block's lines, {block, line, text}; {block, json, indent} is a block that is JSON (\"structuredContent\", or the records' envelope).",
      textRecipes(),
    );
    if (!s.encoded) {
      s.encoded = new EncodedLines();
      s.lineSchema = TEXT_LINE_SCHEMA;
    }
    return s;
  };

  let allMarkers = content.length > 0;
  /** Some text block is text, not a JSON marker (else the text section is for reassembly only). */
  let textLines = false;
  const markers: Json[] = [];
  content.forEach((block, i) => {
    const text = texts[i];
    if (text !== null && text !== undefined) {
      const encoded = textSection().encoded as EncodedLines;
      const mirror = i === sourceBlock ? undefined : mirrorIndent(text);
      const marker =
        i === sourceBlock && source
          ? { block: i, json: envelopeLine(source), indent: sourceIndent }
          : mirror !== undefined
            ? { block: i, json: "structuredContent", indent: mirror }
            : undefined;
      if (marker) {
        markers.push(marker);
        encoded.line(JSON.stringify(marker));
      } else {
        allMarkers = false;
        textLines = true;
        encodeTextLines(encoded, i, text);
      }
      return;
    }
    allMarkers = false;
    const type = typeof block.type === "string" ? block.type : "unknown";
    const s = section(
      type.replace(/[^A-Za-z0-9_]/g, "_"),
      `Line 1 is a header; then the ${type} blocks with "block" (their index); "file" holds binary data.`,
    );
    const line: Json = { block: i, ...block };
    if ((type === "image" || type === "audio") && typeof block.data === "string") {
      delete line.data;
      binaries.push({
        block: i,
        mimeType: block.mimeType as string,
        base64: block.data,
        ref: line,
      });
    } else if (type === "resource" && isPlainObject(block.resource)) {
      const r = block.resource;
      if (typeof r.blob === "string") {
        const { blob, ...rest } = r;
        line.resource = rest;
        binaries.push({
          block: i,
          mimeType: r.mimeType as string | undefined,
          base64: blob,
          ref: rest,
        });
      }
    }
    s.items.push(line);
  });

  // Markers only: nothing there for a recipe to read.
  const text = sections.get("text");
  if (text && !textLines) text.recipes = {};

  let structuredLine: unknown;
  if (structured !== undefined) {
    let line: unknown = source && sourceBlock < 0 ? envelopeLine(source) : structured;
    if (isPlainObject(line)) {
      const refs = new Map(textIndexes.map((i) => [texts[i] as string, i]));
      line = Object.fromEntries(
        Object.entries(line).map(([k, v]) =>
          typeof v === "string" && refs.has(v) ? [k, { [TEXT_BLOCK_MARK]: refs.get(v) }] : [k, v],
        ),
      );
    }
    section(
      "structured",
      `Line 2 is structuredContent ("${RECORDS_MARK}": the records; {"${TEXT_BLOCK_MARK}": i}: text block i).`,
      {},
    ).items.push(line);
    structuredLine = line;
  }

  const inlineSource = source?.envelope ? source.envelope.object : structured;
  const pure =
    source && allMarkers && (structured === undefined || sourceBlock < 0)
      ? {
          records: source.records,
          key: source.envelope?.key,
          rest: source.envelope
            ? Object.fromEntries(
                Object.entries(source.envelope.object).filter(([k]) => k !== source?.envelope?.key),
              )
            : {},
          reassemble: {
            text: markers,
            ...(structured !== undefined ? { structured: structuredLine } : {}),
          },
        }
      : undefined;
  return {
    kind: source ? "records" : "sections",
    ...(pure ? { pure } : {}),
    sections: [...sections.values()],
    binaries,
    inline: pickInline(inlineSource, inlineKeys),
  };
}
