/**
 * Memory → MIF JSON-LD document: the exact inverse of `mifToMemory` for every memory
 * that function produces, so export → re-import gives deep-equal memories and an
 * imported document is exported with all of its properties where they were.
 */
import type {
  EmbeddingRef,
  EntityRef,
  Memory,
  RelationshipRef,
  Temporal,
} from "../model/memory.js";
import { provAgent } from "./from-mif.js";
import { isObject, type JsonObject } from "./json-utils.js";
import {
  MIF_CONTEXT_URL,
  MIF_ENTITY_PREFIX,
  MIF_ID_PREFIX,
  STATUS_EXTENSION_KEY,
  UNMAPPED_EXTENSION_KEY,
} from "./keys.js";

function entityToMif(ref: EntityRef): JsonObject {
  const { entity: entityExtra, ...extra } = ref.extra ?? {};
  const out: JsonObject = {
    "@type": "EntityReference",
    entity: {
      ...(isObject(entityExtra) ? entityExtra : {}),
      "@id": `${MIF_ENTITY_PREFIX}${ref.id}`,
    },
  };
  if (ref.entity_type !== null) out.entityType = ref.entity_type;
  if (ref.name !== null) out.name = ref.name;
  if (ref.role !== null) out.role = ref.role;
  return { ...extra, ...out };
}

function relationshipToMif(rel: RelationshipRef): JsonObject {
  const { target: targetExtra, ...extra } = rel.extra ?? {};
  const out: JsonObject = {
    "@type": "Relationship",
    relationshipType: rel.relationship_type,
    target: {
      ...(isObject(targetExtra) ? targetExtra : {}),
      "@id": `${MIF_ID_PREFIX}${rel.target}`,
    },
  };
  if (rel.strength !== null) out.strength = rel.strength;
  return { ...extra, ...out };
}

function temporalToMif(t: Temporal): JsonObject {
  // validFrom/validUntil are nullable in MIF, so null is written (the official example
  // carries `"validUntil": null`); the other fields are left out when unknown.
  const out: JsonObject = {
    ...t.extra,
    "@type": "TemporalMetadata",
    validFrom: t.valid_from,
    validUntil: t.valid_until,
  };
  if (t.recorded_at !== null) out.recordedAt = t.recorded_at;
  if (t.ttl !== null) out.ttl = t.ttl;
  if (t.decay !== null) {
    const decay: JsonObject = { ...t.decay.extra };
    if (t.decay.model !== undefined) decay.model = t.decay.model;
    if (t.decay.half_life !== undefined) decay.halfLife = t.decay.half_life;
    if (t.decay.current_strength !== undefined) decay.currentStrength = t.decay.current_strength;
    out.decay = decay;
  }
  if (t.access_count !== null) out.accessCount = t.access_count;
  if (t.last_accessed !== null) out.lastAccessed = t.last_accessed;
  return out;
}

function provenanceToMif(memory: Memory): JsonObject | undefined {
  const p = memory.provenance;
  const out: JsonObject = { ...p.extra };
  if (p.source_type !== null) out.sourceType = p.source_type;
  if (p.confidence !== null) out.confidence = p.confidence;
  if (p.trust_level !== null) out.trustLevel = p.trust_level;
  // Import derives `agent` from PROV when no explicit one is given; write it only when
  // that derivation would not give it back.
  if (p.agent !== provAgent(p.extra)) out.agent = p.agent;
  return Object.keys(out).length > 0 ? out : undefined;
}

function embeddingToMif(e: EmbeddingRef): JsonObject {
  const out: JsonObject = { ...e.extra, "@type": "EmbeddingReference" };
  if (e.model !== null) out.model = e.model;
  if (e.model_version !== null) out.modelVersion = e.model_version;
  if (e.dimensions !== null) out.dimensions = e.dimensions;
  if (e.source_text !== null) out.sourceText = e.source_text;
  if (e.vector_uri !== null) out.vectorUri = e.vector_uri;
  if (e.normalized !== null) out.normalized = e.normalized;
  return out;
}

function authorToMif(author: unknown): unknown {
  if (Array.isArray(author)) return author.map(authorToMif);
  return isObject(author) ? entityToMif(author as unknown as EntityRef) : author;
}

function citationToMif(c: Record<string, unknown>): JsonObject {
  const out: JsonObject = { "@type": "Citation" };
  for (const [key, value] of Object.entries(c)) {
    if (key === "citation_type") out.citationType = value;
    else if (key === "citation_role") out.citationRole = value;
    else if (key === "author") out.author = authorToMif(value);
    else out[key] = value;
  }
  return out;
}

/** The MIF JSON-LD document of a memory (`@id` `urn:mif:{id}`, camelCase fields). */
export function memoryToMif(memory: Memory): JsonObject {
  const {
    [UNMAPPED_EXTENSION_KEY]: unmapped,
    [STATUS_EXTENSION_KEY]: _status,
    ...extensions
  } = memory.extensions;
  const doc: JsonObject = {
    "@context": MIF_CONTEXT_URL,
    "@type": "Memory",
    ...(isObject(unmapped) ? unmapped : {}),
    "@id": `${MIF_ID_PREFIX}${memory.id}`,
    memoryType: memory.memory_type,
    title: memory.title,
    content: memory.content,
    created: memory.created,
    modified: memory.modified,
    namespace: memory.namespace,
    tags: memory.tags,
  };
  if (memory.aliases.length > 0) doc.aliases = memory.aliases;
  if (memory.entities.length > 0) doc.entities = memory.entities.map(entityToMif);
  if (memory.relationships.length > 0)
    doc.relationships = memory.relationships.map(relationshipToMif);
  if (memory.temporal !== null) doc.temporal = temporalToMif(memory.temporal);
  const provenance = provenanceToMif(memory);
  if (provenance) doc.provenance = provenance;
  if (memory.embedding !== null) doc.embedding = embeddingToMif(memory.embedding);
  if (memory.citations.length > 0) doc.citations = memory.citations.map(citationToMif);
  if (memory.summary !== null) doc.summary = memory.summary;
  if (memory.blocks !== null) doc.blocks = memory.blocks;
  // MIF has no lifecycle status; it travels as an extension (read back by import).
  doc.extensions = { ...extensions, [STATUS_EXTENSION_KEY]: memory.status };
  return doc;
}
