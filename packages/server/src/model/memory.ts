/**
 * The memory record as the server stores it and as record lines carry it:
 * the specification's snake_case field names. MIF JSON-LD (camelCase, `urn:mif:`
 * ids) is only the import/export format (see `../mif/`).
 */

export const MEMORY_TYPES = ["semantic", "episodic", "procedural"] as const;
/** The MIF cognitive triad. */
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const MEMORY_STATUSES = ["active", "archived", "superseded"] as const;
/** Lifecycle state; MIF has no such field, so export keeps it under `extensions`. */
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

/** MIF namespace pattern, e.g. `_semantic/decisions`. */
export const NAMESPACE_PATTERN = /^[a-zA-Z0-9_-]+(\/[a-zA-Z0-9_-]+)*$/;

export interface Provenance {
  confidence: number | null;
  trust_level: string | null;
  source_type: string | null;
  agent: string | null;
  /** Unknown MIF provenance properties (e.g. `prov:wasGeneratedBy`), kept verbatim. */
  extra?: Record<string, unknown>;
}

export interface Temporal {
  valid_from: string | null;
  valid_until: string | null;
  recorded_at: string | null;
  /** ISO 8601 duration. */
  ttl: string | null;
  decay: {
    model?: string;
    half_life?: string;
    current_strength?: number;
    /** Unknown MIF decay properties (e.g. `lastReinforced`), kept verbatim. */
    extra?: Record<string, unknown>;
  } | null;
  access_count: number | null;
  last_accessed: string | null;
  /** Unknown MIF temporal properties (e.g. `reinforcementHistory`), kept verbatim. */
  extra?: Record<string, unknown>;
}

export interface EntityRef {
  id: string;
  name: string | null;
  entity_type: string | null;
  role: string | null;
  extra?: Record<string, unknown>;
}

export interface RelationshipRef {
  relationship_type: string;
  target: string;
  strength: number | null;
  extra?: Record<string, unknown>;
}

export interface EmbeddingRef {
  model: string | null;
  model_version: string | null;
  dimensions: number | null;
  source_text: string | null;
  vector_uri: string | null;
  normalized: boolean | null;
  /** Unknown MIF embedding properties, kept verbatim. */
  extra?: Record<string, unknown>;
}

/** One memory, complete (what a `full` record line carries). */
export interface Memory {
  /** UUID for memories captured here; imported ids are kept as given (without `urn:mif:`). */
  id: string;
  memory_type: MemoryType;
  title: string;
  /** Markdown. */
  content: string;
  namespace: string;
  tags: string[];
  status: MemoryStatus;
  /** ISO 8601. */
  created: string;
  modified: string;
  aliases: string[];
  entities: EntityRef[];
  relationships: RelationshipRef[];
  provenance: Provenance;
  temporal: Temporal | null;
  embedding: EmbeddingRef | null;
  summary: string | null;
  blocks: Record<string, string> | null;
  citations: Record<string, unknown>[];
  /**
   * Provider extensions (MIF `extensions`), kept verbatim. MIF top-level properties the
   * model has no field for (`ontology`, `compressedAt`, a non-default `@context`, ...) are
   * kept under the reserved key `atlatl:mif` (see `../mif/keys.ts`).
   */
  extensions: Record<string, unknown>;
}

/** A `light` record line: identity and classification, no content. */
export type LightRecord = Pick<
  Memory,
  "id" | "title" | "namespace" | "memory_type" | "tags" | "created" | "modified" | "status"
>;

/** A `medium` record line: light plus content, summary and a flattened confidence. */
export type MediumRecord = LightRecord & {
  content: string;
  summary: string | null;
  confidence: number | null;
};

/**
 * A `full` record line: the whole memory, plus the specification's derived
 * enrichment `wiki_links` (targets of `[[...]]` links in the content).
 */
export type FullRecord = Memory & { wiki_links: string[] };
