/**
 * MIF JSON-LD document → Memory. Runs on documents that passed `validateMifDocument`,
 * so types of known fields are trusted; every property the model has no field for is
 * kept verbatim in an `extra` slot (or `extensions["atlatl:mif"]` at the top level),
 * which `memoryToMif` writes back exactly where it came from.
 */

import { defaultNamespace, deriveTitle } from "../model/defaults.js";
import {
  type EmbeddingRef,
  type EntityRef,
  MEMORY_STATUSES,
  type Memory,
  type MemoryStatus,
  type MemoryType,
  type Provenance,
  type RelationshipRef,
  type Temporal,
} from "../model/memory.js";
import { wellFormed } from "../model/well-formed.js";
import { isObject, type JsonObject, num, str, unknownProperties } from "./json-utils.js";
import {
  MIF_AGENT_PREFIX,
  MIF_CONTEXT_URL,
  MIF_ENTITY_PREFIX,
  MIF_ID_PREFIX,
  STATUS_EXTENSION_KEY,
  UNMAPPED_EXTENSION_KEY,
} from "./keys.js";
import type { MifIssue } from "./validate.js";

const TOP_LEVEL = new Set([
  "@context",
  "@type",
  "@id",
  "memoryType",
  "content",
  "title",
  "created",
  "modified",
  "namespace",
  "tags",
  "aliases",
  "entities",
  "relationships",
  "temporal",
  "provenance",
  "embedding",
  "citations",
  "summary",
  "blocks",
  "extensions",
]);
const ENTITY_REF = new Set(["@type", "entity", "entityType", "name", "role"]);
const ENTITY_ID = new Set(["@id"]);
const RELATIONSHIP = new Set(["@type", "relationshipType", "target", "strength"]);
const TEMPORAL = new Set([
  "@type",
  "validFrom",
  "validUntil",
  "recordedAt",
  "ttl",
  "decay",
  "accessCount",
  "lastAccessed",
]);
const DECAY = new Set(["model", "halfLife", "currentStrength"]);
const PROVENANCE = new Set(["sourceType", "confidence", "trustLevel", "agent"]);
const EMBEDDING = new Set([
  "@type",
  "model",
  "modelVersion",
  "dimensions",
  "sourceText",
  "vectorUri",
  "normalized",
]);

function stripPrefix(value: string, prefix: string): string {
  return value.startsWith(prefix) ? value.slice(prefix.length) : value;
}

/** The agent named by PROV provenance (`prov:wasGeneratedBy.prov:wasAssociatedWith`). */
export function provAgent(extra: JsonObject | undefined): string | null {
  const activity = extra?.["prov:wasGeneratedBy"];
  const agent = isObject(activity) ? activity["prov:wasAssociatedWith"] : undefined;
  const id = isObject(agent) ? agent["@id"] : undefined;
  if (typeof id !== "string") return null;
  return stripPrefix(stripPrefix(id, MIF_AGENT_PREFIX), MIF_ID_PREFIX);
}

function entityFromMif(ref: JsonObject): EntityRef {
  const entity = isObject(ref.entity) ? ref.entity : {};
  const out: EntityRef = {
    id: stripPrefix(str(entity["@id"]) ?? "", MIF_ENTITY_PREFIX),
    name: str(ref.name),
    entity_type: str(ref.entityType),
    role: str(ref.role),
  };
  const extra = unknownProperties(ref, ENTITY_REF) ?? {};
  const entityExtra = unknownProperties(entity, ENTITY_ID);
  if (entityExtra) extra.entity = entityExtra;
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

function relationshipFromMif(rel: JsonObject): RelationshipRef {
  const target = isObject(rel.target) ? rel.target : {};
  const out: RelationshipRef = {
    relationship_type: str(rel.relationshipType) ?? "",
    target: stripPrefix(str(target["@id"]) ?? "", MIF_ID_PREFIX),
    strength: num(rel.strength),
  };
  const extra = unknownProperties(rel, RELATIONSHIP) ?? {};
  const targetExtra = unknownProperties(target, ENTITY_ID);
  if (targetExtra) extra.target = targetExtra;
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

function temporalFromMif(t: JsonObject): Temporal {
  let decay: Temporal["decay"] = null;
  if (isObject(t.decay)) {
    const d = t.decay;
    decay = {};
    if (typeof d.model === "string") decay.model = d.model;
    if (typeof d.halfLife === "string") decay.half_life = d.halfLife;
    if (typeof d.currentStrength === "number") decay.current_strength = d.currentStrength;
    const extra = unknownProperties(d, DECAY);
    if (extra) decay.extra = extra;
  }
  const out: Temporal = {
    valid_from: str(t.validFrom),
    valid_until: str(t.validUntil),
    recorded_at: str(t.recordedAt),
    ttl: str(t.ttl),
    decay,
    access_count: num(t.accessCount),
    last_accessed: str(t.lastAccessed),
  };
  const extra = unknownProperties(t, TEMPORAL);
  if (extra) out.extra = extra;
  return out;
}

function provenanceFromMif(p: JsonObject | undefined): Provenance {
  if (!p) return { confidence: null, trust_level: null, source_type: null, agent: null };
  const extra = unknownProperties(p, PROVENANCE);
  // An explicit `agent` (even null) wins; otherwise the PROV agent is surfaced, and
  // export leaves `agent` out again when it equals that derived value.
  const agent = "agent" in p ? str(p.agent) : provAgent(extra);
  const out: Provenance = {
    confidence: num(p.confidence),
    trust_level: str(p.trustLevel),
    source_type: str(p.sourceType),
    agent,
  };
  if (extra) out.extra = extra;
  return out;
}

function embeddingFromMif(e: JsonObject): EmbeddingRef {
  const out: EmbeddingRef = {
    model: str(e.model),
    model_version: str(e.modelVersion),
    dimensions: num(e.dimensions),
    source_text: str(e.sourceText),
    vector_uri: str(e.vectorUri),
    normalized: typeof e.normalized === "boolean" ? e.normalized : null,
  };
  const extra = unknownProperties(e, EMBEDDING);
  if (extra) out.extra = extra;
  return out;
}

function authorFromMif(author: unknown): unknown {
  if (Array.isArray(author)) return author.map(authorFromMif);
  return isObject(author) ? entityFromMif(author) : author;
}

function citationFromMif(c: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(c)) {
    if (key === "@type") continue; // always "Citation" (schema const), written back on export
    if (key === "citationType") out.citation_type = value;
    else if (key === "citationRole") out.citation_role = value;
    else if (key === "author") out.author = authorFromMif(value);
    else out[key] = value;
  }
  return out;
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export type MemoryFromMif = { ok: true; memory: Memory } | { ok: false; issues: MifIssue[] };

/** Map a schema-valid MIF document to a Memory, filling defaults for missing optional fields. */
export function mifToMemory(doc: JsonObject): MemoryFromMif {
  const id = stripPrefix(str(doc["@id"]) ?? "", MIF_ID_PREFIX);
  if (id === "") return { ok: false, issues: [{ pointer: "/@id", message: "is an empty id" }] };

  const docExtensions = isObject(doc.extensions) ? doc.extensions : {};
  const { [STATUS_EXTENSION_KEY]: rawStatus, ...extensions } = docExtensions;
  let status: MemoryStatus = "active";
  if (rawStatus !== undefined) {
    if (!MEMORY_STATUSES.includes(rawStatus as MemoryStatus)) {
      return {
        ok: false,
        issues: [
          {
            pointer: `/extensions/${STATUS_EXTENSION_KEY}`,
            message: `must be one of ${MEMORY_STATUSES.map((s) => JSON.stringify(s)).join(", ")}`,
          },
        ],
      };
    }
    status = rawStatus as MemoryStatus;
  }

  const unmapped = unknownProperties(doc, TOP_LEVEL) ?? {};
  if (doc["@context"] !== MIF_CONTEXT_URL) unmapped["@context"] = doc["@context"];
  if (doc["@type"] !== "Memory") unmapped["@type"] = doc["@type"];
  if (Object.keys(unmapped).length > 0) extensions[UNMAPPED_EXTENSION_KEY] = unmapped;

  const memoryType = doc.memoryType as MemoryType;
  const content = str(doc.content) ?? "";
  const created = str(doc.created) ?? "";
  const memory: Memory = {
    id,
    memory_type: memoryType,
    title: str(doc.title) ?? deriveTitle(content),
    content,
    namespace: str(doc.namespace) ?? defaultNamespace(memoryType),
    tags: strings(doc.tags),
    status,
    created,
    modified: str(doc.modified) ?? created,
    aliases: strings(doc.aliases),
    entities: objects(doc.entities).map(entityFromMif),
    relationships: objects(doc.relationships).map(relationshipFromMif),
    provenance: provenanceFromMif(isObject(doc.provenance) ? doc.provenance : undefined),
    temporal: isObject(doc.temporal) ? temporalFromMif(doc.temporal) : null,
    embedding: isObject(doc.embedding) ? embeddingFromMif(doc.embedding) : null,
    summary: str(doc.summary),
    blocks: isObject(doc.blocks) ? (doc.blocks as Record<string, string>) : null,
    citations: objects(doc.citations).map(citationFromMif),
    extensions,
  };
  return { ok: true, memory: wellFormed(memory) };
}
