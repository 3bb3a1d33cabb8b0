/**
 * One parsed value (a MIF document or an atlatl record) → a Memory or a rejection.
 * Every input format funnels through here, so the validation policy of
 * `validate.ts` applies to JSON, JSONL and Markdown alike.
 */
import type { Memory } from "../model/memory.js";
import { mifToMemory } from "./from-mif.js";
import { isObject, type JsonObject } from "./json-utils.js";
import { isAtlatlRecord, recordPointer, recordToMif } from "./record.js";
import { type MifIssue, validateMifDocument } from "./validate.js";

export type Conversion =
  | { ok: true; memory: Memory }
  | { ok: false; pointer: string; message: string; id?: string };

/** At most this many violations are spelled out in one rejection message. */
const MAX_ISSUES = 5;

function rejection(
  issues: MifIssue[],
  toSource: (pointer: string) => string,
  id: string | undefined,
): Conversion {
  const translated = issues.map((i) => ({ pointer: toSource(i.pointer), message: i.message }));
  const shown = translated.slice(0, MAX_ISSUES).map((i) => `${i.pointer || "/"} ${i.message}`);
  if (translated.length > MAX_ISSUES) shown.push(`and ${translated.length - MAX_ISSUES} more`);
  return {
    ok: false,
    pointer: translated[0]?.pointer ?? "",
    message: shown.join("; "),
    ...(id !== undefined ? { id } : {}),
  };
}

function idOf(doc: JsonObject): string | undefined {
  const id = doc["@id"] ?? doc.id;
  return typeof id === "string" ? id.replace(/^urn:mif:/, "") : undefined;
}

/**
 * Validate a MIF document and map it. `toSource` translates pointers into the
 * document back to what the user wrote (front-matter keys, record fields).
 */
export function convertMifDocument(
  doc: JsonObject,
  toSource: (pointer: string) => string = (p) => p,
): Conversion {
  const validation = validateMifDocument(doc);
  if (!validation.ok) return rejection(validation.issues, toSource, idOf(doc));
  const mapped = mifToMemory(doc);
  return mapped.ok ? mapped : rejection(mapped.issues, toSource, idOf(doc));
}

/** Convert one parsed JSON value: a MIF document, or an atlatl record (snake_case). */
export function convertJsonValue(value: unknown): Conversion {
  if (!isObject(value)) {
    return {
      ok: false,
      pointer: "",
      message: "must be a JSON object (a MIF document or a memory record)",
    };
  }
  if (!isAtlatlRecord(value)) return convertMifDocument(value);
  let built: ReturnType<typeof recordToMif>;
  try {
    built = recordToMif(value);
  } catch (err) {
    return { ok: false, pointer: "", message: `malformed memory record: ${String(err)}` };
  }
  if (!built.ok) return rejection(built.issues, (p) => p, idOf(value));
  return convertMifDocument(built.doc, (pointer) => recordPointer(pointer, value));
}
