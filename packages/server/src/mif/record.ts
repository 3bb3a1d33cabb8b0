/**
 * atlatl record lines (the snake_case `Memory` shape of `full` records, e.g. lines of an
 * offload file or of `atlatl export --format jsonl` from another tool) → MIF document,
 * so they are validated by the same schema as everything else. Missing optional fields
 * get the same defaults as in MIF documents.
 */

import { defaultNamespace, deriveTitle } from "../model/defaults.js";
import type { Memory } from "../model/memory.js";
import { isObject, type JsonObject } from "./json-utils.js";
import { STATUS_EXTENSION_KEY, UNMAPPED_EXTENSION_KEY } from "./keys.js";
import { memoryToMif } from "./to-mif.js";
import type { MifIssue } from "./validate.js";

const RECORD_KEYS = new Set([
  "id",
  "memory_type",
  "title",
  "content",
  "namespace",
  "tags",
  "status",
  "created",
  "modified",
  "aliases",
  "entities",
  "relationships",
  "provenance",
  "temporal",
  "embedding",
  "summary",
  "blocks",
  "citations",
  "extensions",
  // Flattened confidence of `medium` records; folded into provenance.
  "confidence",
  // Derived from the content at projection (model/wiki-links.ts): dropped, not kept.
  "wiki_links",
]);
const ARRAYS = ["tags", "aliases", "entities", "relationships", "citations"] as const;
const OBJECTS = ["provenance", "temporal", "embedding", "blocks", "extensions"] as const;

/** Keys only a MIF document has: one of them makes a value a MIF document. */
const MIF_ONLY_KEYS = ["@id", "@type", "@context", "memoryType"];

/**
 * True when a parsed JSON value is an atlatl record (snake_case) rather than a MIF
 * document (camelCase, `@id`). A value with any MIF-only key is MIF, so a rejection
 * names fields in the vocabulary the document itself uses, whatever the file type.
 */
export function isAtlatlRecord(value: JsonObject): boolean {
  return !MIF_ONLY_KEYS.some((key) => key in value) && ("memory_type" in value || "id" in value);
}

const SEGMENTS: Record<string, string> = {
  "@id": "id",
  memoryType: "memory_type",
  trustLevel: "trust_level",
  sourceType: "source_type",
  validFrom: "valid_from",
  validUntil: "valid_until",
  recordedAt: "recorded_at",
  accessCount: "access_count",
  lastAccessed: "last_accessed",
  halfLife: "half_life",
  currentStrength: "current_strength",
  modelVersion: "model_version",
  sourceText: "source_text",
  vectorUri: "vector_uri",
  relationshipType: "relationship_type",
  entityType: "entity_type",
  citationType: "citation_type",
  citationRole: "citation_role",
};

/**
 * Translate a pointer into the MIF document back to the record's snake_case fields
 * (a `medium` record's flattened `confidence` included, when `record` has one).
 */
export function recordPointer(pointer: string, record?: JsonObject): string {
  if (pointer === `/extensions/${STATUS_EXTENSION_KEY}`) return "/status";
  if (
    pointer === "/provenance/confidence" &&
    record &&
    "confidence" in record &&
    !(isObject(record.provenance) && "confidence" in record.provenance)
  ) {
    return "/confidence";
  }
  return pointer
    .replace(/\/entity\/@id$/, "/id")
    .replace(/\/target\/@id$/, "/target")
    .split("/")
    .map((segment) => SEGMENTS[segment] ?? segment)
    .join("/");
}

function entityRefs(value: unknown[]): unknown[] {
  return value.map((e) =>
    isObject(e) ? { name: null, entity_type: null, role: null, ...e, id: String(e.id ?? "") } : e,
  );
}

/** Build a MIF document from a record, or say which structural field is wrong. */
export function recordToMif(
  record: JsonObject,
): { ok: true; doc: JsonObject } | { ok: false; issues: MifIssue[] } {
  const issues: MifIssue[] = [];
  for (const key of ["id", "memory_type", "content", "created"]) {
    if (record[key] === undefined || record[key] === null)
      issues.push({ pointer: `/${key}`, message: "is required" });
  }
  if (record.content !== undefined && typeof record.content !== "string") {
    issues.push({ pointer: "/content", message: "must be string" });
  }
  for (const key of ARRAYS) {
    if (record[key] != null && !Array.isArray(record[key]))
      issues.push({ pointer: `/${key}`, message: "must be array" });
  }
  for (const key of OBJECTS) {
    if (record[key] != null && !isObject(record[key]))
      issues.push({ pointer: `/${key}`, message: "must be object" });
  }
  for (const key of ["entities", "relationships", "citations"] as const) {
    const list = record[key];
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      if (!isObject(item)) issues.push({ pointer: `/${key}/${i}`, message: "must be object" });
    });
  }
  if (issues.length > 0) return { ok: false, issues };

  const r = record as JsonObject & Partial<Memory>;
  const provenance = isObject(r.provenance) ? r.provenance : {};
  const unmapped: JsonObject = {};
  for (const [key, value] of Object.entries(record))
    if (!RECORD_KEYS.has(key)) unmapped[key] = value;
  const extensions: JsonObject = { ...(r.extensions ?? {}) };
  if (Object.keys(unmapped).length > 0) {
    const earlier = isObject(extensions[UNMAPPED_EXTENSION_KEY])
      ? extensions[UNMAPPED_EXTENSION_KEY]
      : {};
    extensions[UNMAPPED_EXTENSION_KEY] = { ...earlier, ...unmapped };
  }
  const content = r.content as string;
  const memory = {
    id: String(r.id),
    memory_type: r.memory_type,
    title: r.title ?? deriveTitle(content),
    content,
    namespace: r.namespace ?? defaultNamespace(String(r.memory_type)),
    tags: r.tags ?? [],
    status: r.status ?? "active",
    created: r.created,
    modified: r.modified ?? r.created,
    aliases: r.aliases ?? [],
    entities: entityRefs(r.entities ?? []),
    relationships: (r.relationships ?? []).map((rel) => ({
      strength: null,
      ...(rel as unknown as JsonObject),
    })),
    provenance: {
      confidence: typeof r.confidence === "number" ? r.confidence : null,
      trust_level: null,
      source_type: null,
      agent: null,
      ...provenance,
    },
    temporal: r.temporal
      ? {
          valid_from: null,
          valid_until: null,
          recorded_at: null,
          ttl: null,
          decay: null,
          access_count: null,
          last_accessed: null,
          ...(r.temporal as unknown as JsonObject),
        }
      : null,
    embedding: r.embedding
      ? {
          model: null,
          model_version: null,
          dimensions: null,
          source_text: null,
          vector_uri: null,
          normalized: null,
          ...(r.embedding as unknown as JsonObject),
        }
      : null,
    summary: r.summary ?? null,
    blocks: r.blocks ?? null,
    citations: r.citations ?? [],
    extensions,
  } as Memory;
  // memoryToMif writes the status as the extension MIF import reads (and validates) it from.
  return { ok: true, doc: memoryToMif(memory) };
}
