/**
 * LRO for any `CallToolResult` (a proxy's upstream results, or a tool that
 * returns ready results). The whole result is estimated; at or below the
 * threshold it is returned untouched (the same object). Above it, it is
 * offloaded losslessly:
 *
 * - JSON holding an array of objects (in `structuredContent` or in the only
 *   text block; at top level or under one key) becomes one record per line,
 *   records profile: inferred line schema, recipes on the fields present. Other
 *   keys of that object stay inline beside the descriptor.
 * - Anything else becomes the sections profile: one section per kind of
 *   content block. Text is split into line records `{block, line, text}`
 *   (line numbers from 1; joining a block's texts with "\n" gives it back);
 *   images, audio and binary embedded resources go to attachment files of their
 *   own, named in their section's records; text resources and resource links
 *   are records as they are; non-record `structuredContent` is one record.
 *
 * `isError` results are never offloaded (the model needs the error). If a
 * write fails, the original result is returned with a warning block appended.
 */
import { basename } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { estimateTokens } from "../estimate/estimate.js";
import { EncodedLines, encodeTextLines } from "../materialize/encoded-lines.js";
import type { Offloader } from "../offload/offloader.js";
import type { OffloadSection } from "../offload/types.js";
import { recordsProfile } from "../profiles/records/records-profile.js";
import {
  type McpNames,
  mcpNames,
  OFFLOAD_MIME_TYPE,
  offloadResourceUri,
} from "./offload-resource-uri.js";

/** Options of {@link offloadCallToolResult}. */
export interface OffloadCallResultOptions {
  /** Goes into file names and headers (e.g. the tool's name). */
  operation: string;
  query?: string | null;
  /** Offload regardless of the threshold (a per-tool `always` policy). */
  force?: boolean;
  /** A threshold of this call's own (a per-tool policy), instead of the config's. */
  thresholdTokens?: number;
  /** Keys of a JSON object result kept inline beside the descriptor (the Python library's `inline_keys`); default: every key but the records'. */
  inlineKeys?: readonly string[];
  /** Add `resource_link`s to the written files. */
  resourceLinks?: boolean;
  names?: Partial<McpNames>;
}

type Obj = Record<string, unknown>;
type Block = CallToolResult["content"][number];

const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

const isRecords = (v: unknown): v is Obj[] => Array.isArray(v) && v.length > 0 && v.every(isObject);

/** The records in a JSON value: the array itself, or the one key holding one. */
function recordsIn(value: unknown): { records: Obj[]; key?: string; rest: Obj } | undefined {
  if (isRecords(value)) return { records: value, rest: {} };
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value).filter((k) => isRecords(value[k]));
  if (keys.length !== 1) return undefined;
  const key = keys[0] as string;
  const { [key]: records, ...rest } = value;
  return { records: records as Obj[], key, rest };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Records of a result, when it is one JSON array of objects (see the module comment). */
function findRecords(result: CallToolResult) {
  const texts = result.content.filter(
    (b): b is Extract<Block, { type: "text" }> => b.type === "text",
  );
  if (texts.length !== result.content.length) return undefined;
  if (result.structuredContent !== undefined) {
    const found = recordsIn(result.structuredContent);
    if (!found) return undefined;
    // Lossless only if every text block is the same JSON as the structured content.
    const same = JSON.stringify(result.structuredContent);
    if (texts.every((t) => JSON.stringify(parseJson(t.text)) === same)) return found;
    return undefined;
  }
  if (texts.length !== 1) return undefined;
  return recordsIn(parseJson((texts[0] as { text: string }).text));
}

/** Schema of the text section's line records. */
const TEXT_LINE_SCHEMA = {
  type: "object",
  properties: { block: { type: "integer" }, line: { type: "integer" }, text: { type: "string" } },
  required: ["block", "line", "text"],
};

function decode(base64: string): Uint8Array {
  return Buffer.from(base64, "base64");
}

/** The sections of a non-record result, attachments written on the way. */
async function sectionsOf(
  offloader: Offloader,
  result: CallToolResult,
  operation: string,
  written: string[],
): Promise<OffloadSection[]> {
  const text = new EncodedLines();
  const blocks = new Set<number>();
  const images: Obj[] = [];
  const audio: Obj[] = [];
  const resources: Obj[] = [];
  const links: Obj[] = [];
  const attach = async (data: string, mimeType: string | undefined) => {
    const file = await offloader.writeAttachment({ operation, data: decode(data), mimeType });
    written.push(file.path);
    return file;
  };
  for (const [block, b] of result.content.entries()) {
    if (b.type === "text") {
      encodeTextLines(text, block, b.text);
      blocks.add(block);
    } else if (b.type === "image" || b.type === "audio") {
      const file = await attach(b.data, b.mimeType);
      const { data: _data, ...rest } = b;
      (b.type === "image" ? images : audio).push({
        block,
        ...rest,
        file: file.path,
        bytes: file.bytes,
      });
    } else if (b.type === "resource") {
      const r = b.resource as Obj;
      if (typeof r.blob === "string") {
        const file = await attach(r.blob, r.mimeType as string | undefined);
        const { blob: _blob, ...rest } = r;
        resources.push({ block, ...rest, file: file.path, bytes: file.bytes });
      } else {
        resources.push({ block, ...r });
      }
    } else {
      links.push({ block, ...(b as Obj) });
    }
  }
  const sections: OffloadSection[] = [];
  if (text.count > 0) {
    sections.push({
      key: "text",
      encoded: text,
      lineSchema: TEXT_LINE_SCHEMA,
      description:
        'Line 1 is header metadata. Lines 2+ are {block, line, text}: line `line` (from 1) of text block `block`; join a block\'s texts with "\\n" to get it back.',
      summary: { count: text.count, blocks: blocks.size },
      recipes: {
        full_text: "tail -n +2 {text_file} | jq -r '.text'",
        search_text: `tail -n +2 {text_file} | jq -c 'select(.text | test("error"; "i"))'`,
        count_lines: "tail -n +2 {text_file} | jq -s 'length'",
        first_50_lines: "tail -n +2 {text_file} | head -50 | jq -r '.text'",
      },
    });
  }
  const plain = (key: string, items: Obj[], description: string) => {
    if (items.length > 0) sections.push({ key, items, description });
  };
  plain(
    "images",
    images,
    "Line 1 is header metadata. Lines 2+ name one image each: its block, mimeType and the file holding its bytes.",
  );
  plain(
    "audio",
    audio,
    "Line 1 is header metadata. Lines 2+ name one audio clip each: its block, mimeType and the file holding its bytes.",
  );
  plain(
    "resources",
    resources,
    "Line 1 is header metadata. Lines 2+ are embedded resources (text inline; binary ones name the file holding their bytes).",
  );
  plain(
    "resource_links",
    links,
    "Line 1 is header metadata. Lines 2+ are the result's resource links.",
  );
  if (result.structuredContent !== undefined) {
    plain(
      "structured",
      [result.structuredContent as Obj],
      "Line 1 is header metadata. Line 2 is the result's structuredContent.",
    );
  }
  return sections;
}

function withWarning(result: CallToolResult, warning: string): CallToolResult {
  return {
    ...result,
    content: [...result.content, { type: "text", text: `> Warning: ${warning}` }],
  };
}

function pick(obj: Obj, keys: readonly string[] | undefined): Obj {
  if (!keys) return obj;
  return Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));
}

/**
 * Estimated tokens of a whole `CallToolResult` (its JSON), against `threshold`.
 * The texts alone, at chars / 4, decide when they are already above: the JSON
 * is longer still, and non-Latin text only costs more tokens per character (a
 * large text is then never serialized again). Else the JSON is serialized and,
 * at or below the threshold by chars / 4, estimated properly.
 */
export async function estimateCallResultTokens(
  result: CallToolResult,
  threshold: number,
): Promise<number> {
  let chars = 0;
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (block?.type === "text" && typeof block.text === "string") chars += block.text.length;
  }
  const byText = Math.ceil(chars / 4);
  if (byText > threshold) return byText;
  const json = JSON.stringify(result);
  const byChars = Math.ceil(json.length / 4);
  return byChars > threshold ? byChars : estimateTokens(json);
}

/** Offload `result` when it is too large (see the module comment); otherwise return it as is. */
export async function offloadCallToolResult(
  offloader: Offloader,
  result: CallToolResult,
  options: OffloadCallResultOptions,
): Promise<CallToolResult> {
  if (result.isError) return result;
  const { config } = offloader;
  if (!options.force && !config.enabled) return result;
  const threshold = options.thresholdTokens ?? config.thresholdTokens;
  const tokens = await estimateCallResultTokens(result, threshold);
  if (!options.force && tokens <= threshold) return result;
  const names = mcpNames(options.names);
  const link = (path: string, description: string) => ({
    type: "resource_link" as const,
    uri: offloadResourceUri(path, names.resourcePrefix),
    name: basename(path),
    mimeType: OFFLOAD_MIME_TYPE,
    description,
  });
  const meta = result._meta !== undefined ? { _meta: result._meta } : {};

  const found = findRecords(result);
  if (found) {
    const outcome = await offloader.offloadRecords({
      operation: options.operation,
      query: options.query ?? null,
      profile: recordsProfile,
      records: found.records,
      force: true,
    });
    if (outcome.kind !== "offloaded") {
      const warning = outcome.kind === "truncated" ? outcome.warning : "offload failed";
      return withWarning(
        result,
        `Offloading this large result failed, so it is returned whole. ${warning}`,
      );
    }
    const { offloaded, ...described } = outcome.response;
    const descriptor = {
      offloaded,
      ...pick(found.rest, options.inlineKeys),
      ...(found.key !== undefined ? { records_key: found.key } : {}),
      ...described,
    };
    const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(descriptor) }];
    if (options.resourceLinks) {
      content.push(
        link(
          outcome.file.path,
          `Offloaded ${options.operation} result (${outcome.file.header.count} records, JSONL; line 1 is the header)`,
        ),
      );
    }
    return { ...meta, content };
  }

  const attachments: string[] = [];
  let sections: OffloadSection[];
  try {
    sections = await sectionsOf(offloader, result, options.operation, attachments);
  } catch (err) {
    await offloader.removeFiles(attachments);
    return withWarning(
      result,
      `Offloading this large result failed (${(err as Error).message}), so it is returned whole.`,
    );
  }
  const outcome = await offloader.offloadSections({
    operation: options.operation,
    query: options.query ?? null,
    sections,
    force: true,
    // Measured above: the lines are not serialized or measured again.
    estimatedTokens: tokens,
  });
  if (outcome.kind !== "offloaded") {
    await offloader.removeFiles(attachments);
    const warning = outcome.kind === "truncated" ? outcome.warning : "offload failed";
    return withWarning(
      result,
      `Offloading this large result failed, so it is returned whole. ${warning}`,
    );
  }
  const content: CallToolResult["content"] = [
    { type: "text", text: JSON.stringify(outcome.response) },
  ];
  if (options.resourceLinks) {
    for (const f of outcome.files) {
      content.push(
        link(
          f.path,
          `Offloaded ${options.operation} result, section ${String((f.header as { section?: unknown }).section)} (JSONL; line 1 is the header)`,
        ),
      );
    }
  }
  return { ...meta, content };
}
