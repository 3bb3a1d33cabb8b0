/**
 * Rebuild the `content` and `structuredContent` of an offloaded result from its
 * descriptor's files (the inverse of `call-result-layout.ts`): for people and tools that
 * want the original back, and for tests that prove nothing was lost. JSON text
 * text blocks are printed back with the indentation recorded for them.
 */
import { readFile } from "node:fs/promises";
import { RECORDS_MARK, TEXT_BLOCK_MARK } from "./call-result-layout.js";

type Json = Record<string, unknown>;

async function readLines(path: string): Promise<Json[]> {
  const text = await readFile(path, "utf8");
  return text
    .split("\n")
    .slice(1)
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Json);
}

function substitute(value: unknown, records: unknown[], texts: Map<number, string>): unknown {
  if (value === RECORDS_MARK) return records;
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const v = value as Json;
    const ref = v[TEXT_BLOCK_MARK];
    if (Object.keys(v).length === 1 && typeof ref === "number") return texts.get(ref);
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, k === "" ? x : substitute(x, records, texts)]),
    );
  }
  return value;
}

async function restoreBinary(line: Json): Promise<Json> {
  const { block: _b, ...block } = line;
  if (typeof block.file === "string") {
    const data = (await readFile(block.file)).toString("base64");
    const { file: _f, bytes: _n, ...rest } = block;
    return { ...rest, data };
  }
  const r = block.resource as Json | undefined;
  if (r && typeof r.file === "string") {
    const blob = (await readFile(r.file)).toString("base64");
    const { file: _f, bytes: _n, ...rest } = r;
    return { ...block, resource: { ...rest, blob } };
  }
  return block;
}

/**
 * The `content` and `structuredContent` an offload descriptor stands for: a
 * multi-section one (`files`), or a records-profile one (`file_path`) with its
 * `reassemble` lines (see `PureRecords`).
 */
export async function reassembleResult(
  descriptor:
    | { files: Record<string, string> }
    | { file_path: string; reassemble: { text: Json[]; structured?: unknown } },
): Promise<{ content: Json[]; structuredContent?: unknown }> {
  const sections = new Map<string, Json[]>();
  if ("files" in descriptor) {
    for (const [key, path] of Object.entries(descriptor.files)) {
      sections.set(key, await readLines(path));
    }
  } else {
    sections.set("records", await readLines(descriptor.file_path));
    sections.set("text", descriptor.reassemble.text);
    if ("structured" in descriptor.reassemble) {
      sections.set("structured", [descriptor.reassemble.structured as Json]);
    }
  }
  const records = sections.get("records") ?? [];
  const blocks = new Map<number, Json>();
  const textLines = new Map<number, string[]>();
  const jsonBlocks = new Map<number, { json: unknown; indent: unknown }>();
  for (const line of sections.get("text") ?? []) {
    const block = line.block as number;
    if ("json" in line) jsonBlocks.set(block, { json: line.json, indent: line.indent });
    else {
      const lines = textLines.get(block) ?? [];
      lines[(line.line as number) - 1] = line.text as string;
      textLines.set(block, lines);
    }
  }
  const texts = new Map([...textLines].map(([b, lines]) => [b, lines.join("\n")]));
  const print = (value: unknown, indent: unknown) =>
    JSON.stringify(
      value,
      null,
      typeof indent === "number" && indent > 0 ? indent : indent === "\t" ? "\t" : undefined,
    );
  // The records' text first: structuredContent may point at it.
  for (const [b, { json, indent }] of jsonBlocks) {
    if (json !== "structuredContent") texts.set(b, print(substitute(json, records, texts), indent));
  }
  const structuredLine = sections.get("structured")?.[0];
  const structured =
    structuredLine !== undefined ? substitute(structuredLine, records, texts) : undefined;
  for (const [b, { json, indent }] of jsonBlocks) {
    if (json === "structuredContent") texts.set(b, print(structured, indent));
  }
  for (const [b, t] of texts) blocks.set(b, { type: "text", text: t });
  for (const [key, lines] of sections) {
    if (key === "records" || key === "text" || key === "structured") continue;
    for (const line of lines) blocks.set(line.block as number, await restoreBinary(line));
  }
  const content = [...blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
  return structured !== undefined ? { content, structuredContent: structured } : { content };
}
