/**
 * Record lines at the three detail levels (brief, "Detail levels"). Every
 * projection builds a fresh object with a fixed key order, so the same memory
 * always serializes to the same bytes: offload files diff cleanly and the token
 * estimate of a record is reproducible.
 */
import { type DetailLevel, fullRecord, lightRecord, mediumRecord } from "@atlatl/lro";
import type {
  EmbeddingRef,
  EntityRef,
  FullRecord,
  LightRecord,
  MediumRecord,
  Memory,
  Provenance,
  RelationshipRef,
  Temporal,
} from "./memory.js";
import { wikiLinks } from "./wiki-links.js";

/** A record line at some detail level. */
export type MemoryRecord = LightRecord | MediumRecord | FullRecord;

/**
 * The memory at `light` detail: identity and classification, no content (a light read suffices).
 * Fields and order are `@atlatl/lro`'s memory record (one definition for the file and its schema).
 */
export function toLightRecord(memory: LightRecord): LightRecord {
  return lightRecord(memory);
}

/** The memory at `medium` detail: light plus content, summary and a flattened confidence. */
export function toMediumRecord(memory: Memory): MediumRecord {
  return mediumRecord(memory, memory.provenance?.confidence ?? null);
}

/**
 * Rebuild `value` with `order` keys first (those present), then any other keys in
 * their original order, then `extra` last. Unknown keys are kept, never dropped:
 * the model grows (imports keep MIF properties it has no field for) and a full
 * record must stay lossless. `extra` goes last and only when non-empty, so a jq
 * user reading `.provenance` sees the known fields first and the imported
 * leftovers under one predictable key.
 */
function ordered<T extends object>(value: T, order: readonly string[]): T {
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of order) if (key in src && key !== "extra") out[key] = src[key];
  for (const key of Object.keys(src)) {
    if (!(key in out) && key !== "extra") out[key] = src[key];
  }
  const extra = src.extra;
  if (extra && typeof extra === "object" && Object.keys(extra).length > 0) out.extra = extra;
  return out as T;
}

const PROVENANCE_ORDER = ["confidence", "trust_level", "source_type", "agent"];
const TEMPORAL_ORDER = [
  "valid_from",
  "valid_until",
  "recorded_at",
  "ttl",
  "decay",
  "access_count",
  "last_accessed",
];
const DECAY_ORDER = ["model", "half_life", "current_strength"];
const ENTITY_ORDER = ["id", "name", "entity_type", "role"];
const RELATIONSHIP_ORDER = ["relationship_type", "target", "strength"];
const EMBEDDING_ORDER = [
  "model",
  "model_version",
  "dimensions",
  "source_text",
  "vector_uri",
  "normalized",
];

const NO_PROVENANCE: Provenance = {
  confidence: null,
  trust_level: null,
  source_type: null,
  agent: null,
};

function orderedTemporal(temporal: Temporal | null): Temporal | null {
  if (!temporal) return null;
  const t = ordered(temporal, TEMPORAL_ORDER);
  if (t.decay) t.decay = ordered(t.decay, DECAY_ORDER);
  return t;
}

/**
 * The whole memory with a canonical key order: the light fields first (so every
 * detail level starts alike), then content and summary, then the enrichment.
 * Confidence lives only at `provenance.confidence` here.
 */
export function toFullRecord(memory: Memory): FullRecord {
  const full: Record<string, unknown> = fullRecord(memory, {
    content: memory.content,
    summary: memory.summary ?? null,
    aliases: [...(memory.aliases ?? [])],
    entities: (memory.entities ?? []).map((e: EntityRef) => ordered(e, ENTITY_ORDER)),
    relationships: (memory.relationships ?? []).map((r: RelationshipRef) =>
      ordered(r, RELATIONSHIP_ORDER),
    ),
    wiki_links: wikiLinks(memory.content),
    provenance: ordered(memory.provenance ?? NO_PROVENANCE, PROVENANCE_ORDER),
    temporal: orderedTemporal(memory.temporal ?? null),
    embedding: memory.embedding ? ordered(memory.embedding as EmbeddingRef, EMBEDDING_ORDER) : null,
    blocks: memory.blocks ?? null,
    citations: [...(memory.citations ?? [])],
    extensions: memory.extensions ?? {},
  });
  // Keep any top-level field a newer model adds, after the known ones.
  for (const key of Object.keys(memory)) {
    if (!(key in full)) full[key] = (memory as unknown as Record<string, unknown>)[key];
  }
  return full as unknown as FullRecord;
}

/**
 * The record line for `memory` at `detail`:
 * - `light`: id, title, namespace, memory_type, tags, created, modified, status;
 * - `medium`: light + content, summary, confidence (from `provenance.confidence`, null if none);
 * - `full`: the whole memory and its `wiki_links`, confidence only at `provenance.confidence`.
 */
export function toRecord(memory: LightRecord, detail: "light"): LightRecord;
export function toRecord(memory: Memory, detail: "medium"): MediumRecord;
export function toRecord(memory: Memory, detail: "full"): FullRecord;
export function toRecord(memory: Memory, detail: DetailLevel): MemoryRecord;
export function toRecord(memory: LightRecord | Memory, detail: DetailLevel): MemoryRecord {
  switch (detail) {
    case "light":
      return toLightRecord(memory);
    case "medium":
      // The overloads take a light memory at light detail only.
      return toMediumRecord(memory as Memory);
    case "full":
      return toFullRecord(memory as Memory);
  }
}
